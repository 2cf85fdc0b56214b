"""The values a machine's optimize methods return, read after every step; the best of each and the program reaching it.

A value is read after every step of the search, once the step's invariants held (before any
failure: shrinking a failure reads none). A method whose preconditions do not hold, or whose
contract call reverts, gives no value at that step. Anything else it raises, or a value that is
not an int, is an error of the machine (exit 2), as an error in an invariant's own code is.

The search is steered toward higher values two ways: each run's highest value of each method is
given to Hypothesis's target() (its target phase climbs on them), and a step that raised a
method's best value keeps the run up to that step in the guide's corpus, as a step that reached
new code does, so that the guided and native loops extend and mutate it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import hypothesis
from hypothesis.errors import InvalidArgument

from ...errors import MachineDefinitionError, TransactionReverted
from ...spec.machine import MachineSpec
from ..program import Stopped, holds, live_program_lines
from ..tracebacks import machine_error
from ..recorded import RecordedStep
from ..verdicts import escaped


class MethodFailed(Exception):
    """Raised when an optimize method raised something other than a revert: where (Machine.method) and what."""

    def __init__(self, where: str, error: BaseException) -> None:
        super().__init__(f"{where}: {error}")
        self.where, self.error = where, error


@dataclass
class Best:
    """The best value of one optimize method so far: the program that reached it (up to the step that did), and when."""

    name: str
    value: int
    steps: list[RecordedStep]
    seconds: float  # from the machine's start
    runs: int  # runs before the one that reached it


def read(spec: MachineSpec, machine: Any) -> dict[str, int]:
    """Each optimize method's value now; those whose preconditions do not hold, or whose call reverted, left out.

    Raises MachineDefinitionError for a value that is not an int, MethodFailed for anything else a method raises but
    a revert.
    """
    values: dict[str, int] = {}
    for method in spec.optimizers:
        if not holds(method, machine):
            continue
        try:
            value = method.function(machine)
        except TransactionReverted:
            continue  # no value here (a share price with nothing deposited)
        except BaseException as exc:
            wrapped = escaped(exc)
            if wrapped is None and not isinstance(exc, Exception):
                raise
            raise MethodFailed(f"{spec.name}.{method.name}", wrapped or exc) from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise MachineDefinitionError(
                f"{spec.name}.{method.name} returned {value!r} ({type(value).__name__}): an optimize method returns "
                "the value to maximize as an int (a token amount in its smallest unit, a count)"
            )
        values[method.name] = value
    return values


_HOW = "\nAn optimize method gives no value where its contract call reverts; anything else it raises is an error."


@dataclass
class Tracker:
    """One machine's optimize methods over its search: the best of each, and each run's highest for target()."""

    spec: MachineSpec
    started: float = field(default_factory=time.perf_counter)
    best: dict[str, Best] = field(default_factory=dict)
    peaks: dict[str, int] = field(default_factory=dict)  # this run's highest value of each

    def run_started(self) -> None:
        self.peaks = {}

    def observe(self, machine: Any, steps: list[Any], runs: int) -> bool:
        """Read the values after a step (steps: the run's program.Steps so far); True when one raised its best.

        Raises Stopped, an error of the machine, when a method raised or returned something other than an int.
        """
        raised = False
        try:
            values = read(self.spec, machine)
        except (MethodFailed, MachineDefinitionError) as exc:
            where, error = (exc.where, exc.error) if isinstance(exc, MethodFailed) else (self.spec.name, exc)
            program = live_program_lines(self.spec.name, steps)
            raise Stopped(machine_error(where, error, program) + _HOW, mistake=True) from error
        for name, value in values.items():
            if name not in self.peaks or value > self.peaks[name]:
                self.peaks[name] = value
            best = self.best.get(name)
            if best is None or value > best.value or (value == best.value and len(steps) < len(best.steps)):
                raised = raised or best is None or value > best.value
                recorded = [s.recorded() for s in steps]
                self.best[name] = Best(name, value, recorded, time.perf_counter() - self.started, runs)
        return raised

    def run_finished(self) -> None:
        """Give the run's highest values to Hypothesis's target phase (inside a Hypothesis test only)."""
        if not self.peaks or not hypothesis.currently_in_test_context():
            return
        for name, value in self.peaks.items():
            try:
                hypothesis.target(value if abs(value) < 2**1000 else float(value), label=name)
            except (OverflowError, InvalidArgument):
                pass  # too large for a float, or a run that reported it already (a recheck)

    def shown(self) -> dict[str, int]:
        """The best value of each method so far, for the live line."""
        return {name: b.value for name, b in self.best.items()}
