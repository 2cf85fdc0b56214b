"""-n N: a failure's shrink candidates also replayed by helpers on the idle workers' slots, and the program the same as one process reaches."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from evmstate.scale import shrinking

from ..conftest import BACKENDS, FASTEST
from .helpers import Forked, invoke

# each invariant check sleeps, so that a replay costs time without costing CPU: helpers replay
# candidates while the worker replays its own, on a loaded machine too. Deposits of at most 100
# (not 1000): the scan pass, which tries numbers one by one, replays 255 candidates, not 1331
SLOW = '''
import time
from evmstate import strategy


class SlowShrink:
    value = strategy("uint256", max_value=100)

    def __init__(cls, accounts, Depositer):
        cls.accounts = accounts
        cls.contract = Depositer.deploy({"from": accounts[0]})

    def setup(self):
        self.total = 0

    def rule_deposit(self, value):
        self.contract.deposit_for(self.accounts[0], {"from": self.accounts[0], "value": value})
        self.total += value

    def invariant(self):
        time.sleep(0.005)
        assert self.total < 300
'''


def run(project: Path, *args: str) -> tuple[str, dict]:
    """evmstate run with a cold example database: its output up to the trace, and the failure's JSON."""
    shutil.rmtree(project / ".evmstate" / "examples", ignore_errors=True)
    shutil.rmtree(project / ".evmstate" / "failures", ignore_errors=True)
    code, out = invoke("run", *args, "--json", "report.json")
    assert code == 1, out
    (result,) = json.loads((project / "report.json").read_text())["results"]
    return out.split("Falsifying example", 1)[1].split("\nTrace:", 1)[0], result["failure"]


@pytest.mark.processes
@pytest.mark.parametrize("backend", BACKENDS)
def test_helpers_shrink_to_the_program_one_process_reaches(example, backend, monkeypatch):
    alone, one = run(example, "machines/claims.py", "--seed", "0", "--backend", backend, "-n", "1")
    # workers forked from this process take the setting: every candidate handed out, however cheap
    monkeypatch.setenv("EVMSTATE_START_METHOD", "fork")
    monkeypatch.setattr(shrinking, "WORTH_A_HELPER", 0.0)
    helped, two = run(example, "machines/claims.py", "--seed", "0", "--backend", backend, "-n", "2")
    assert helped == alone  # byte for byte: the first candidate in the passes' order is kept
    assert one["shrink"]["workers"] == 1 and one["shrink"]["helper_replays"] == 0
    assert two["shrink"]["workers"] == 2 and two["shrink"]["helper_replays"] > 0
    assert one["program"] == two["program"]


@pytest.mark.processes
def test_helpers_take_part_where_a_replay_costs_time_and_the_shrink_line_says_so(example):
    (example / "machines" / "slow.py").write_text(SLOW)
    code, out = invoke("run", "machines/slow.py", "--seed", "3", "-n", "2", "--json", "report.json")
    assert code == 1, out
    (result,) = json.loads((example / "report.json").read_text())["results"]
    shrink = result["failure"]["shrink"]
    assert f"on 2 workers: {shrink['helper_replays']} of the replays by helpers)" in out
    assert shrink["helper_replays"] > 0
    assert sum(p["replays"] for p in shrink["passes"].values()) >= shrink["helper_replays"]
    # the one minimal program (each deposit at most 100), as one process reaches it
    assert "Falsifying example (3 steps):\nstate = SlowShrink()\n" + "state.rule_deposit(value=100)\n" * 3 in out, out


def dies_after_three(conn, judge):  # noqa: ANN001
    """A helper that answers three candidates, then dies."""
    for _ in range(3):
        candidate = shrinking.pickle.loads(conn.recv_bytes())
        result, note = judge(candidate)
        conn.send_bytes(shrinking.pickle.dumps((None if result is None else len(result.steps), note, None)))
    os._exit(9)


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="helpers are forked")
def test_a_helper_that_dies_leaves_its_candidates_to_the_worker_and_the_program_is_the_same(example, monkeypatch):
    # on revm where installed, at half of py-evm's CPU: a helper's death is the point, not the EVM (both backends shrink
    # alike with helpers: test_helpers_shrink_to_the_program_one_process_reaches)
    alone, _ = run(example, "machines/claims.py", "--seed", "0", "--backend", FASTEST, "-n", "1")
    # workers forked from this process (not from the fork server) carry the patched helper
    monkeypatch.setenv("EVMSTATE_START_METHOD", "fork")
    monkeypatch.setattr(shrinking, "WORTH_A_HELPER", 0.0)
    monkeypatch.setattr(shrinking, "_serve", dies_after_three)
    helped, two = run(example, "machines/claims.py", "--seed", "0", "--backend", FASTEST, "-n", "2")
    assert helped == alone
    assert two["shrink"]["workers"] == 2 and 0 < two["shrink"]["helper_replays"] <= 3


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_while_helpers_shrink_saves_the_best_program_and_ends_them(example, cli_env: dict[str, str]):
    (example / "machines" / "slow.py").write_text(SLOW.replace("time.sleep(0.005)", "time.sleep(0.05)"))
    env = {**cli_env, "PYTHONUNBUFFERED": "1"}
    proc = Forked(["run", "machines/slow.py", "--seed", "3", "-n", "2"], cwd=example, env=env)
    try:
        lines = []
        deadline = time.time() + 120
        for line in proc.stdout:
            lines.append(line)
            if "shrinking" in line or time.time() > deadline:
                break
        helpers: list[int] = []
        while not helpers and time.time() < deadline and proc.poll() is None:  # until the worker has forked a helper
            time.sleep(0.05)
            helpers = children_of_children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the whole group, helpers too
        rest, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    out = "".join(lines) + rest
    assert proc.returncode in (1, 130), out
    assert "interrupted while shrinking: this is the shortest failing program found so far" in out
    (path,) = sorted((example / ".evmstate" / "failures").glob("*.json"))
    data = json.loads(path.read_text())
    assert data["interrupted"] is True and data["steps"] and data["error"]["type"] == "AssertionError"
    assert helpers, "no helper process was running while shrinking"
    for _ in range(50):  # the workers and their helpers are gone with it
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("worker or helper processes outlived evmstate run")


def children_of_children(pid: int) -> list[int]:
    """The helpers under the run pid, from /proc: the run starts the fork server, which forks the workers, which fork the helpers."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    level = {pid}
    for _ in range(3):
        level = {p for p, parent in parents.items() if parent in level}
    return sorted(level)
