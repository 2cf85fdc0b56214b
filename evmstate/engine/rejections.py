"""Runs thrown away by assume() or reject(): which rule, which line, and the error when most of them are.

Hypothesis decides when too many are: its filter_too_much health check (on in evmstate unless
suppressed) fails a test whose first runs are mostly invalid, and it gives up on a test none of
whose runs were valid (Unsatisfiable). evmstate only says where the rejections came from.
"""

from __future__ import annotations

import inspect
import linecache
import os
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any, Callable, Iterable

import hypothesis
from hypothesis.errors import FailedHealthCheck

from ..errors import MachineDefinitionError

_HYPOTHESIS = os.path.dirname(hypothesis.__file__) + os.sep
_EVMSTATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass
class Assumption:
    """Where runs were rejected: the rule (or invariant, precondition, test) running, and the assume() line."""

    rule: str | None
    location: str | None  # machines/bank.py:31; None when evmstate itself rejected the run
    line: str  # the source line, "assume(amount <= self.balance)"
    count: int = 0

    def text(self) -> str:
        where = f"in {self.rule}" if self.rule else "while drawing a step"
        if self.location is None:
            return f"{where}: evmstate drew a bundle value that another argument had consumed"
        return f"{where}, {self.location}: {self.line}"


def _shown(filename: str) -> str:
    try:
        return Path(filename).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return filename


def code_of(function: Callable[..., Any]) -> CodeType | None:
    """The code object of a user's function, under its decorators."""
    return getattr(inspect.unwrap(function), "__code__", None)


class Rejections:
    """The runs of one machine or test that assume() or reject() threw away, by where they were thrown away.

    names maps the code of the user's rules, invariants, preconditions or test to what a report
    calls them: the outermost of them in an UnsatisfiedAssumption's traceback is the rule named.
    """

    def __init__(self, names: dict[CodeType, str]) -> None:
        self.names = names
        self.sites: dict[tuple[str | None, str | None], Assumption] = {}
        self.total = 0

    @classmethod
    def of(cls, named: Iterable[tuple[str, Callable[..., Any]]]) -> "Rejections":
        return cls({code: name for name, fn in named if (code := code_of(fn)) is not None})

    def add(self, exc: BaseException) -> None:
        """Count one run thrown away by exc (an UnsatisfiedAssumption), under the rule and line it came from."""
        rule, caller = None, None
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            if rule is None and frame.f_code in self.names:
                rule = self.names[frame.f_code]
            if not frame.f_code.co_filename.startswith(_HYPOTHESIS):
                caller = (frame.f_code.co_filename, lineno)
        location, line = None, ""
        if caller is not None and not caller[0].startswith(_EVMSTATE):
            location = f"{_shown(caller[0])}:{caller[1]}"
            line = linecache.getline(caller[0], caller[1]).strip()
        site = self.sites.setdefault((rule, location), Assumption(rule, location, line))
        site.count += 1
        self.total += 1

    def most(self, n: int = 3) -> list[Assumption]:
        return sorted(self.sites.values(), key=lambda a: -a.count)[:n]

    def error(self, name: str, kind: str, kept: int, exc: BaseException) -> MachineDefinitionError:
        """The error a machine or test ends with when Hypothesis gave up on it for its rejected runs (exc says how)."""
        health_check = isinstance(exc, FailedHealthCheck)
        if health_check and "filter_too_much" not in str(exc):
            # another of Hypothesis's checks, on in a property test's own @settings
            return MachineDefinitionError(f"{name}: Hypothesis's health check failed: {exc}")
        if health_check:
            head = (
                f"{name}: Hypothesis's filter_too_much health check failed: "
                f"{self.total} runs were rejected and {kept} kept"
            )
        else:
            head = f"{name}: no run satisfied the assumptions: {self.total} runs were rejected and {kept} kept"
        lines = [f"{head}, so the {kind} checked almost nothing."]
        if not self.sites:
            lines.append(
                "  The runs were thrown away while drawing values: a strategy's .filter() "
                "(or exclude=) rejects most of them."
            )
        for site in self.most():
            lines.append(f"  {site.count} rejected {site.text()}")
        instead = 'Draw values that pass instead (strategy("uint256", max_value=...) rather than assume(x <= ...))'
        if kind == "machine":
            instead += ", or give the rule a precondition, which skips it without throwing the run away"
        lines.append(f"{instead}.")
        if health_check:
            where = (
                'settings = {"suppress_health_check": ["filter_too_much"]} in the machine, or '
                if kind == "machine"
                else ""
            )
            lines[-1] += (
                " If this much rejection is expected, turn the check off: "
                f'{where}suppress_health_check = ["filter_too_much"] under [hypothesis] in evmstate.toml.'
            )
        return MachineDefinitionError("\n".join(lines))


def of_machine(spec: Any) -> Rejections:
    """A machine's rejections, told apart by its rules, initializers, invariants and preconditions."""
    named: list[tuple[str, Callable[..., Any]]] = []
    for r in (*spec.rules, *spec.initializers, *spec.invariants):
        named.append((r.name, r.function))
        named += [(f"the precondition of {r.name}", p) for p in r.preconditions]
    return Rejections.of(named)
