"""A machine run's failure at the end of its search: evmstate's passes over its program (trials.py), and the report of
how shrinking went, from the first failure on. run is the MachineRun that found it (machine_run.py)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from ..events import Failure, ShrinkProgress, ShrinkReport
from ..recorded import program_lines
from ..tracebacks import ErrorInfo
from .budget import StopReason
from .trials import shrink_program


def shrunk(run: Any, failure: Failure, exc: BaseException, hypothesis_steps: int) -> Failure:
    """failure with the program evmstate's passes shrank it to, the way they stopped, and how shrinking went."""
    state, started = run.state, run.started
    name = run.spec.name
    first_failure_at = state.first_failure_at or 0.0
    runs = state.runs - (state.first_failure_example or state.runs)

    def progress(steps: int, replays: int) -> None:
        run.emit(
            ShrinkProgress(
                name=name, steps=steps, examples=state.examples, runs=runs + replays,
                elapsed=time.perf_counter() - started - first_failure_at, phase="removing steps", path=failure.path,
            )
        )

    search = run.search
    hints = tuple(v for v in search.dictionary.literals if v >= 0)  # the sources' own numbers
    outcome = shrink_program(
        run.spec, run.project, run.base, failure.recorded, exc, budget=run.shrink_budget, progress=progress,
        hints=hints, feedback=search.feedback, constants=frozenset(search.dictionary.constants),
    )
    found = outcome.found
    if found is not None:
        # the same failure (the same type and invariant), with the values of the shrunk program (a custom error's
        # arguments)
        failure = dataclasses.replace(
            failure, error=ErrorInfo.of(found.error), program=program_lines(name, found.program_lines()),
            steps=len(found.steps), recorded=tuple(found.steps),
        )
    state.left_out += outcome.left_out
    state.left_out_first = state.left_out_first or outcome.left_out_first
    if outcome.stopped is StopReason.INTERRUPTED:
        failure = dataclasses.replace(failure, interrupted=True)
    elif outcome.stopped is not None:
        failure = dataclasses.replace(failure, stopped=run.budget_reason(outcome.stopped))
    report = shrink_report(run, hypothesis_steps, failure.steps, outcome.replays)
    passes = {k: (v.runs, round(v.seconds, 3)) for k, v in outcome.passes.items() if v.runs}
    gains = {k: (v.work, v.steps, v.bits) for k, v in outcome.passes.items() if v.runs}
    return dataclasses.replace(
        failure,
        shrink=dataclasses.replace(
            report, passes=passes, gains=gains, tried=outcome.tried, replayed_on=outcome.replayed_on or "",
            minimality=outcome.minimality,
        ),
    )


def shrink_report(run: Any, hypothesis_steps: int, steps: int, replays: int, minimal: bool = True) -> ShrinkReport:
    """How shrinking went, from the first failure until now (minimal=False: it stopped or never ran)."""
    state, examples = run.state, run.examples
    return ShrinkReport(
        first_steps=state.first_steps if state.first_steps is not None else hypothesis_steps,
        hypothesis_steps=hypothesis_steps,
        steps=steps,
        seconds=time.perf_counter() - run.started - (state.first_failure_at or 0.0),
        runs=state.runs - (state.first_failure_example or state.runs),
        replays=replays,
        replayed=examples is not None and (state.first_failure_example or 0) <= examples.fetched,
        minimality="1-minimal" if minimal else "",
    )
