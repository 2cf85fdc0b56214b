"""Shrinking within a budget, and `evmstate shrink` continuing from the saved record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .. import zygote
from ..conftest import evmstate_exe, FASTEST, PLAIN
from .helpers import invoke

MINIMAL = [
    "state = StateMachine()",
    "state.rule_deposit(address=accounts[0], value=1)",
    "state.rule_withdraw(address=accounts[0], value=0)",
]


def saved(root: Path) -> list[Path]:
    return sorted((root / ".evmstate" / "failures").glob("*.json"))


def command(root: Path, *args: str) -> tuple[int, str]:
    """The installed evmstate command in root: a search pinned to a seed draws from the machine's constants alone in a fresh process."""
    exe = evmstate_exe()
    done = zygote.run([exe, *args], cwd=root, env={**os.environ, **PLAIN}, timeout=600)
    return done.returncode, done.stdout + done.stderr


def test_a_shrink_stopped_by_its_budget_is_continued_by_evmstate_shrink_to_the_same_program(example, depositer_run):
    assert depositer_run.code == 1, depositer_run.out
    unbounded = depositer_run.report["results"][0]["failure"]
    assert unbounded["program"] == MINIMAL
    assert unbounded["shrink"]["minimality"] == "minimal among programs that delete up to two steps"
    assert unbounded["shrink"]["passes"]["chunks"]["replays"] > 0
    # the same failure, with no time to shrink: the program Hypothesis found stands, saved as stopped
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nshrink_time = 0.001\n")
    code, out = invoke("run", "machines/depositer.py", "--seed", "1", "--json", "stopped.json")
    assert code == 1, out
    (path,) = saved(example)
    assert f"not minimal: shrinking stopped at the shrink budget (0.001 s of work: 1 replayed steps, [fuzz] shrink_time); `evmstate shrink {path.stem}` continues" in out
    stopped = json.loads((example / "stopped.json").read_text())["results"][0]["failure"]
    assert stopped["steps"] > 2 and stopped["stopped"].startswith("the shrink budget") and stopped["shrink"]["minimality"] == "not minimal"
    record = json.loads(path.read_text())
    assert record["stopped"].startswith("the shrink budget")
    code, out = invoke("shrink", path.stem)
    assert code == 1, out
    (new,) = saved(example)
    assert new.stem == path.stem  # the shorter program replaces the record: the failure keeps its id
    data = json.loads(new.read_text())
    assert data["program"] == unbounded["program"] and "stopped" not in data
    assert "\n".join(MINIMAL) in out
    assert f"replay with: evmstate replay {new.stem}" in out
    code, out = invoke("replay", new.stem)
    assert code == 1 and "still fails" in out
    # once minimal, shrinking again changes nothing: one round of the passes, each named
    code, out = invoke("shrink", new.stem)
    assert code == 1 and "already as short as these passes make it" in out
    assert "nothing more could go: a round of the passes (chunks, singles, " in out
    assert [p.stem for p in saved(example)] == [new.stem]


def test_shrink_of_a_fixed_failure_says_so(example, recorded):
    (path,) = saved(example)
    source = example / "contracts" / "Depositer.vy"
    source.write_text(source.read_text().replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value"))
    code, out = invoke("shrink", path.stem)
    assert code == 0 and f"fixed: {path.stem} no longer fails" in out


@pytest.mark.quality  # a search at the default budget, then shrinking twice (20-45 s on 2 cores)
@pytest.mark.processes
def test_evmstate_shrink_meets_the_comparisons_a_run_s_shrinking_meets(example):
    # the puzzle's least nonces are found by the scan, which runs only where the replays record
    # the contract's comparisons (to leave alone a number that sits on a line the contract draws).
    # The searches on revm where installed, at 60% of py-evm's CPU: seed 2 finds the puzzle at run 47 on
    # either, and shrinking replays on revm either way (the same program, the same 1199 replays of the scan)
    toml = example / "evmstate.toml"
    text = toml.read_text()
    toml.write_text(text + "\n[fuzz]\nshrink_time = 0\n")  # unbounded, however loaded the machine
    code, out = command(example, "run", "machines/puzzle.py", "--seed", "2", "--backend", FASTEST, "--json", "unbounded.json")
    assert code == 1, out
    unbounded = json.loads((example / "unbounded.json").read_text())["results"][0]["failure"]
    assert unbounded["program"][1:] == [f"state.rule_solve(nonce={n})" for n in (50, 296, 160, 185, 578)]
    assert unbounded["shrink"]["passes"]["scan"]["replays"] > 0
    for path in saved(example):
        path.unlink()
    toml.write_text(text + "\n[fuzz]\nshrink_time = 0.001\n")
    code, out = command(example, "run", "machines/puzzle.py", "--seed", "2", "--backend", FASTEST)
    assert code == 1, out
    (path,) = saved(example)
    assert json.loads(path.read_text())["program"] != unbounded["program"]
    # shrinking replays the record and draws nothing: in this process
    code, out = invoke("shrink", path.stem)
    assert code == 1, out
    (new,) = saved(example)
    assert json.loads(new.read_text())["program"] == unbounded["program"]
