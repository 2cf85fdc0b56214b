"""A machine's optimize methods at the end of its search: each best program shrunk, replayed, reported as an Optimum."""

from __future__ import annotations

from typing import Any

from ...contracts.project import Project
from ...spec.machine import MachineSpec
from ..events import Optimum
from ..recorded import program_lines
from ..shrink.budget import Budget, OutOfBudget
from ..verdicts import message_of
from .best import Best, Tracker
from .shrink import replay_value, shrink_optimum


def optima(tracker: Tracker | None, spec: MachineSpec, project: Project, base: Any, shrink_seconds: float | None,
           deadline: float | None) -> tuple[Optimum, ...]:
    """The best value of each optimize method, with the shortest program found reaching it (shrink_seconds each).

    Ctrl-C while shrinking keeps the program found so far.
    """
    if tracker is None or base is None:
        return ()
    found = []
    for name in [m.name for m in spec.optimizers if m.name in tracker.best]:
        budget = Budget.of_seconds(shrink_seconds, deadline=deadline)
        found.append(_finished(tracker.best[name], spec, project, base, budget))
    return tuple(found)


def _finished(best: Best, spec: MachineSpec, project: Project, base: Any, budget: Budget) -> Optimum:
    steps, stopped = list(best.steps), None
    try:
        shrunk = shrink_optimum(spec, project, base, best.name, best.value, steps, budget)
        if shrunk is not None:
            steps = shrunk.steps
        budget.check(1)
    except KeyboardInterrupt:
        stopped = "Ctrl-C"
    except OutOfBudget:
        stopped = "the shrink budget"
    try:
        value, at, lines = replay_value(spec, project, base, best.name, steps, best.value)
    except Exception as exc:  # the search's own program no longer runs alike: reported as the search saw it
        value, at, lines = best.value, len(steps), []
        stopped = f"not replayed ({type(exc).__name__}: {message_of(exc)})"
    finally:
        project.backend.revert(base)
    value = best.value if value is None else value
    return Optimum(
        name=best.name, value=value,
        program=program_lines(spec.name, (line for step in lines for line in step.splitlines())),
        recorded=steps[:at], seconds=best.seconds, runs=best.runs, found_steps=len(best.steps), stopped=stopped,
    )
