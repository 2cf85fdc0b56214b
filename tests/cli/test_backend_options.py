"""--backend and --backend-check on the command line."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from evmstate_cli.main import main

from ..conftest import copy_project, kept_build, needs_revm
from .helpers import invoke


def report(out: str) -> str:
    """The failure report without timings, speeds and the compile line, which differ from run to run.

    Nor where shrinking replayed its candidates: a py-evm run replays them on revm ("replays on revm (the program confirmed on py-evm)"), a revm run on revm
    itself.
    """
    text = "".join(line for line in out.splitlines(keepends=True) if not line.startswith("compiled "))
    text = text.replace("replays on revm (the program confirmed on py-evm), ", "")
    text = re.sub(r"\d+(\.\d+)?s\b", "<t>", text)
    return re.sub(r"\d+ steps/s", "<n> steps/s", text)


def test_an_unknown_backend_is_refused(example, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["evmstate", "run", "--backend", "geth"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    assert "'geth' is not one of 'pyevm', 'revm'" in capsys.readouterr().err


@needs_revm
def test_revm_reports_the_depositer_bug_exactly_as_py_evm(example):
    # revm has no per-opcode hooks: no coverage guidance, and no storage values for the
    # dictionary; with both off, a seed searches the same on either backend
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nguidance = false\ndictionary_weight = 0\n")
    outputs = []
    for backend in ("pyevm", "revm"):
        code, out = invoke("run", "machines/depositer.py", "--seed", "1", "--backend", backend)
        assert code == 1
        outputs.append(report(out))
        shutil.rmtree(example / ".evmstate" / "examples")  # the second run searches afresh too
    assert "Falsifying example (2 steps):\nstate = StateMachine()\nstate.rule_deposit(address=accounts[0], value=1)\n" in outputs[1]
    assert outputs[1] == outputs[0]


def same_search(root: Path, *args: str) -> list[tuple[int, str, dict, dict]]:
    """Run `evmstate run --coverage` on both backends: (exit code, the programs printed, the coverage report, each item's runs and steps)."""
    # Hypothesis draws constants from the source of every module loaded: revm's modules are
    # loaded before either run, so that a seed draws the same on both
    import evmstate.evm.revm.backend  # noqa: F401

    found = []
    for backend in ("pyevm", "revm"):
        for kept in (root / ".evmstate").glob("*"):
            if kept.name != "build":  # the second run searches afresh, from the same builds
                shutil.rmtree(kept)
        code, out = invoke("run", *args, "--backend", backend, "--coverage-report", "json", str(root / "coverage.json"), "--json", str(root / "run.json"))
        programs = "\n".join(line for line in out.splitlines() if line.startswith(("Falsifying example", "state.", "chain.")))
        items = {r["name"]: (r["runs"], r["steps"], r["status"]) for r in json.loads((root / "run.json").read_text())["results"]}
        found.append((code, programs, json.loads((root / "coverage.json").read_text()), items))
    return found


@pytest.mark.quality
@needs_revm
def test_revm_searches_and_covers_as_py_evm_does(example):
    """With guidance, the dictionary and a coverage report, a seed gives the same runs, programs and coverage on both backends."""
    # 20 runs of 20 steps (not the project's 50): ERC20Machine passes, so every run of it is run whole, and
    # 400 steps cover as much of the token as 1000 do (27 of its 31 lines, all 6 branches); the two failures
    # are found in the same runs
    on_py_evm, on_revm = same_search(example, "machines/erc20.py", "machines/fee_vault.py", "machines/claims.py", "--seed", "3", "--max-examples", "20", "--steps", "20")
    assert on_py_evm[0] == 1 and "Falsifying example" in on_py_evm[1]
    assert on_py_evm[2]["contracts"]["FeeVault"]["branches"]["hit"] > 0
    assert on_revm == on_py_evm


@pytest.mark.quality
@needs_revm
def test_revm_covers_a_snekmate_token_as_py_evm_does(tmp_path, monkeypatch):
    root = copy_project(Path(__file__).parent.parent / "projects" / "snekmate", tmp_path / "snekmate")  # compiled once a session
    monkeypatch.chdir(root)
    # the project's own 10 runs of 15 steps: the claim is that both backends see alike, which 150 steps show as well as
    # 750 (100 of the token's 123 lines hit, against 106 in 20 runs)
    on_py_evm, on_revm = same_search(root, "machines/erc20.py", "--seed", "2", "--max-examples", "10")
    assert on_py_evm[0] == 0 and on_py_evm[2]["contracts"]["ERC20Mock"]["lines"]["hit"] > 50
    assert on_revm == on_py_evm


@needs_revm
def test_the_backend_check_runs_the_bundled_erc20_machine_without_a_difference(example):
    code, out = invoke("run", "machines/erc20.py", "--backend-check", "--max-examples", "5", "--steps", "10")
    assert code == 0 and "1 passed, 0 failed" in out and "differ" not in out


@needs_revm
def test_every_command_that_runs_machines_takes_backend(example, recorded):
    """run, fuzz, replay and shrink run on the backend --backend names (revm refuses london: the option reached the backend)."""
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text().replace('evm_version = "prague"', 'evm_version = "london"'))  # the failure was found on py-evm, and saved
    refused = "evm_version 'london' is not supported by the revm backend"
    build = sorted((example / ".evmstate" / "build").rglob("*"))
    for command in (("run", "machines/depositer.py"), ("fuzz", "--time", "1s", "-n", "1", "machines/depositer.py"), ("replay", "--last"), ("shrink", "--last")):
        code, out = invoke(*command, "--backend", "revm")
        assert code == 2 and refused in out, (command, out)
        # each compiles the whole project first: refused before that, nothing is compiled for london
        assert sorted((example / ".evmstate" / "build").rglob("*")) == build, command
    # the project compiled for london, kept for every test process and run (kept_build): shrink reads the same build.
    # Its contracts but the two the recorded failure deploys are left out, so that a cold run compiles two for london
    for contract in (example / "contracts").glob("*.vy"):
        if contract.stem not in ("Token", "Depositer"):
            contract.unlink()
    code, out = kept_build(example, "kept-example-london", lambda: invoke("replay", "--last", "--backend", "pyevm"))
    assert code == 1 and "still fails" in out
    code, out = invoke("shrink", "--last", "--backend", "pyevm")
    assert code == 1 and "Falsifying example" in out, out


def _searched_or_not(code: int, out: str) -> bool:
    """A 1 s campaign passed, or (on a busy machine) ended before its worker was up, which it says: never a silent pass."""
    return code == 0 or (code == 2 and "was not searched: the campaign's budget of 1s ended before any run of it started" in out)


@needs_revm
def test_fuzz_prefers_revm_unless_a_backend_is_named(example):
    code, out = invoke("fuzz", "--time", "1s", "-n", "1", "--max-examples", "2", "--steps", "3", "machines/erc20.py")
    assert _searched_or_not(code, out) and "fuzzing machines/erc20.py::ERC20Machine for 1s on 1 local worker, on revm\n" in out, out
    code, out = invoke("fuzz", "--time", "1s", "-n", "1", "--max-examples", "2", "--steps", "3", "--backend", "pyevm", "machines/erc20.py")
    assert _searched_or_not(code, out) and "on 1 local worker\n" in out, out
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + '\n[backend]\nname = "pyevm"\n')
    code, out = invoke("fuzz", "--time", "1s", "-n", "1", "--max-examples", "2", "--steps", "3", "machines/erc20.py")
    assert _searched_or_not(code, out) and "on 1 local worker\n" in out, out
    # evmstate run stays on py-evm: its coverage is recorded on py-evm as ever (revm too would give the same)
    toml.write_text(toml.read_text().replace('[backend]\nname = "pyevm"\n', ""))
    from evmstate import config as config_mod

    assert config_mod.load(example).backend.name == "pyevm" and not config_mod.load(example).backend.named
