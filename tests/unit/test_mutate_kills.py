"""What a judge's result on a mutant comes to: a kill, or none when the machine broke (a mistake of its own) or evmstate did."""

import pytest

from evmstate.engine.events import MachineFinished
from evmstate.mutate.tasks import InternalError, MachineBroke, kill_of


def finished(**kwargs) -> MachineFinished:
    return MachineFinished(name="M", kind="machine", path="m.py", examples=1, elapsed=0.1, **kwargs)


def test_a_judge_that_broke_on_a_mutant_kills_nothing():
    with pytest.raises(MachineBroke, match="m.py::M: M.invariant raised AttributeError"):
        kill_of(finished(status="error", steps=2, error="M.invariant raised AttributeError: ...", broken=True), "m.py::M", "search")
    with pytest.raises(InternalError):
        kill_of(finished(status="error", steps=2, error="internal error in evmstate", internal=True), "m.py::M", "search")
    # an error that is the contract's doing (its constructor reverts on the mutant) still kills it
    kill = kill_of(finished(status="error", steps=0, error="M.__init__ raised TransactionReverted: Vault.deploy reverted"), "m.py::M", "search")
    assert kill is not None and kill.kind == "error"
