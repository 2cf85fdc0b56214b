"""A found failure survives whatever happens after it: errors while shrinking, explaining, tracing."""

from __future__ import annotations

import json
import re
from pathlib import Path

from evmstate.engine.machine_run import MachineRun
from evmstate.evm.pyevm.backend import PyEVMBackend

from .helpers import invoke

# The invariant fails once the total reaches 3. A step that adds 1 asks accounts[9] to pay more
# ether than it has: a harness error that, on seed 1, only the programs tried while shrinking meet
# (the shrinker tries small values), as a lending machine's shrunk borrow met an account that
# could not pay for it. Before, it ended the machine as an error and the failure was lost.
LENDING = '''
from evmstate import strategy


class Lending:
    x = strategy("uint8")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def setup(self):
        self.total = 0

    def rule_add(self, x):
        if x == 1:
            self.accounts[9].transfer(self.accounts[0], "10000 ether")
        self.total += x

    def invariant(self):
        assert self.total < 3, f"total {self.total}"
'''


def saved(root: Path) -> list[Path]:
    return sorted((root / ".evmstate" / "failures").glob("*.json"))


def write(example: Path) -> None:
    (example / "machines" / "lending.py").write_text(LENDING)


def test_a_harness_error_while_shrinking_leaves_that_program_out_and_the_failure_is_kept(example):
    write(example)
    code, out = invoke("run", "machines/lending.py", "--seed", "1", "--json", "report.json")
    assert code == 1, out
    assert "Falsifying example (1 step):\nstate = Lending()\nstate.rule_add(x=3)" in out
    assert "met an error of the machine or test, or a limit of evmstate, instead of this failure, and w" in out
    assert "Lending.rule_add raised UsageError: " in out
    (path,) = saved(example)
    report = json.loads((example / "report.json").read_text())
    (result,) = report["results"]
    assert result["status"] == "failed" and result["failure"]["notes"] and result["failure"]["stopped"] is None
    code, replayed = invoke("replay", path.stem)
    assert code == 1, replayed
    assert "still fails" in replayed


def test_an_internal_error_in_evmstates_shrinking_keeps_the_program_found(example, monkeypatch):
    write(example)

    def broken(*args, **kwargs):
        raise RuntimeError("the deletion pass broke")

    with monkeypatch.context() as patched:
        patched.setattr("evmstate.engine.shrink.finish.shrink_program", broken)
        code, out = invoke("run", "machines/lending.py", "--seed", "1")
    assert code == 1, out
    assert "Falsifying example (" in out and "state.rule_add(x=" in out  # as the search found it
    assert "shrinking stopped by an internal error of evmstate (RuntimeError: the deletion pass broke at " in out
    assert "this is the shortest failing program found so far, and it may not be minimal" in out
    (path,) = saved(example)
    data = json.loads(path.read_text())
    assert data["stopped"].startswith("an internal error of evmstate (RuntimeError")
    code, listed = invoke("failures")
    assert "(shrinking stopped early)" in listed
    code, replayed = invoke("replay", path.stem)
    assert code == 1 and "saved when shrinking was stopped by an internal error" in replayed


def test_evmstate_chain_failing_while_shrinking_keeps_the_shortest_program(example, monkeypatch):
    write(example)
    found = []
    revert, failed = PyEVMBackend.revert, MachineRun.failed

    def failing_revert(self, snapshot):
        if found:  # once a failure was found, the chain cannot go back: an internal error while shrinking
            raise RuntimeError("the chain broke")
        return revert(self, snapshot)

    def failed_and_noted(self, exc, steps):
        found.append(len(steps))
        return failed(self, exc, steps)

    with monkeypatch.context() as patched:
        patched.setattr(PyEVMBackend, "revert", failing_revert)
        patched.setattr(MachineRun, "failed", failed_and_noted)
        code, out = invoke("run", "machines/lending.py", "--seed", "1")
    assert code == 1, out
    assert "shrinking stopped by an internal error of evmstate (RuntimeError: the chain broke" in out
    assert "no trace: evmstate's chain failed, so the program was not replayed" in out
    (path,) = saved(example)
    code, replayed = invoke("replay", path.stem)
    assert code == 1, replayed


def test_an_error_while_tracing_keeps_the_failure(example, monkeypatch):
    write(example)

    def broken(*args, **kwargs):
        raise RuntimeError("tracing broke")

    monkeypatch.setattr("evmstate.engine.machine_run.trace_machine", broken)
    code, out = invoke("run", "machines/lending.py", "--seed", "1")
    assert code == 1, out
    assert "Falsifying example (1 step):" in out
    assert "no trace: replaying the program for its trace failed with an internal error of evmstate (RuntimeError: tracing broke)" in out
    assert len(saved(example)) == 1


def test_a_failure_that_cannot_be_saved_is_still_reported(example):
    write(example)
    (example / ".evmstate").mkdir(exist_ok=True)
    (example / ".evmstate" / "failures").write_text("a file where the folder of records goes")
    code, out = invoke("run", "machines/lending.py", "--seed", "1")
    assert code == 1, out
    assert "state.rule_add(x=3)" in out
    # after the program: which record was not written, where, why and what to do
    assert re.search(
        r"^warning: the failure record \w+ could not be written in \.evmstate/failures/ \(File exists\): it is not saved, so `evmstate replay` cannot replay it"
        r" \(the program printed with the failure is all that is kept of it\)\. Check that \.evmstate/failures/ can be written\.$",
        out,
        re.M,
    ), out
    assert out.index("state.rule_add(x=3)") < out.index("warning: the failure record")
    assert "replay with:" not in out
