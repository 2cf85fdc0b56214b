"""Property tests: one @given test, each example from the same chain, injected by name."""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import hypothesis
from hypothesis import reporting
from hypothesis import settings as Settings
from hypothesis.errors import HypothesisException, StopTest, UnsatisfiedAssumption

from ..contracts.project import Project
from ..contracts.revert import failure_details
from ..errors import MachineDefinitionError
from .describe import describe_error, user_error
from .events import (
    ExampleFinished,
    Failure,
    FailureFound,
    Interrupted,
    MachineFinished,
    MachineStarted,
    ShrinkReport,
)
from .examples import ShrunkExamples
from .explain import divergence_failure, test_explained_on_py_evm
from .lifecycle import Output, RunState, search_session, with_trace
from .program import DEFINITION_ERRORS, Diverged, OutOfTime, Step, provide
from .trace import Trace, trace_test


@dataclass
class ExampleLog:
    """What isolate_examples() saw: examples run, and the drawn arguments of the last one that failed."""

    examples: int = 0  # every call of the test, shrinking included
    failing: dict[str, Any] | None = None
    error_type: str | None = None  # of the last example that failed
    valid: bool = True  # whether the last example counts (assume() did not reject it)


@contextlib.contextmanager
def isolate_examples(
    fn: Any,
    backend: Any,
    injected: Iterable[str],
    on_example: Callable[[ExampleLog, bool], None] | None = None,
    stop: Callable[[], bool] | None = None,
    before_revert: Callable[[], None] | None = None,
) -> Iterator[ExampleLog]:
    """While inside, every example of the @given test fn starts from the same chain and leaves it as it was.

    Swaps fn.hypothesis.inner_test (the hook Hypothesis documents for wrapping each example)
    and restores it on the way out. on_example(log, failed) is called after every example;
    stop(), when given, is asked before every example until one fails (see run_machine);
    before_revert() at the end of each, while what it deployed is still there.
    """
    log = ExampleLog()
    injected = set(injected)
    original = fn.hypothesis.inner_test

    @functools.wraps(original)  # Hypothesis reports the example under the test's own name
    def isolated(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # pytest shows the test's frames, not this one
        if stop is not None and log.failing is None and stop():
            raise OutOfTime()
        log.examples += 1
        log.valid = True
        failed = False
        try:
            with backend.anchor():
                try:
                    return original(*args, **kwargs)
                finally:
                    if before_revert is not None:
                        before_revert()
        except Exception as exc:
            if not isinstance(exc, HypothesisException):
                failed = True
                log.failing = {k: v for k, v in kwargs.items() if k not in injected}
                log.error_type = type(exc).__name__
            elif isinstance(exc, UnsatisfiedAssumption):
                log.valid = False
            raise
        except StopTest:
            log.valid = False
            raise
        finally:
            if on_example is not None:
                on_example(log, failed)

    fn.hypothesis.inner_test = isolated
    try:
        yield log
    finally:
        fn.hypothesis.inner_test = original


def example_line(name: str, drawn: dict[str, Any] | None) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in (drawn or {}).items())})"


def property_failure(name: str, path: str, exc: BaseException, log: ExampleLog, reported: list[str], shrink: ShrinkReport | None = None) -> Failure:
    """A falsified property test: the error, and the example as name(arg=value, ...) with its drawn arguments only.

    reported (what Hypothesis printed) stands in only when the failing example was not seen.
    """
    error_type, message, location, tb = describe_error(exc)
    if log.failing is not None:
        program = [example_line(name, log.failing)]
    else:
        program = [line for text in reported for line in str(text).splitlines() if line.strip()]
        program += [n for n in getattr(exc, "__notes__", []) if not n.startswith("You can reproduce")]
    drawn = log.failing or {}
    steps_data = [Step(name, [(k, repr(v)) for k, v in drawn.items()], values=drawn).to_data()] if log.failing is not None else []
    return Failure(name, path, error_type, message, program, 0, None, location, tb, getattr(exc, "reason", None), steps_data, call_failure=failure_details(exc), shrink=shrink)


def run_test(
    fn: Callable,
    project: Project,
    settings: Settings,
    seed: int | None,
    emit: Callable[[Any], None],
    path: str = "",
    database: Any = None,
    *,
    capture: bool = True,
    position: tuple[int, int] = (0, 0),
    stop: Callable[[], bool] | None = None,
) -> MachineFinished:
    """Run one @given property test, injecting accounts, chain and contracts by name.

    capture, position and stop() as for run_machine(); raises Interrupted on Ctrl-C before anything failed.
    """
    name = fn.__name__
    output = Output(capture)
    emit = output.outside(emit)
    started = time.perf_counter()
    state = RunState()
    emit(MachineStarted(name, "test", path, position[0], position[1], settings.max_examples))
    status, failure, error = "passed", None, None
    outer = project.backend.snapshot()
    project.backend.reset_time_limit()
    capturing = output.capturing()
    capturing.__enter__()
    params = inspect.signature(fn).parameters
    # a property test's examples are single calls with nothing to extend: no guidance
    search = search_session(project, {"guidance": False}, name, seed, params)
    search.start()
    try:
        # @given hides the parameters it draws from fn's signature: the rest are injected
        kwargs = provide(params, project, name)
        search.base_ready()
        examples = database if isinstance(database, ShrunkExamples) else None
        if database is not None:
            settings = Settings(settings, database=database)
        test = fn
        if seed is not None:
            test = hypothesis.seed(seed)(test)
        # settings after seed(): seed() alone would switch the example database off
        with contextlib.suppress(HypothesisException):
            test = settings(test)
        lines: list[str] = []

        def counted(log: ExampleLog, failed: bool) -> None:
            state.runs = state.steps = log.examples
            if not state.failing and (log.valid or failed):
                state.examples += 1
            output.reset()
            search.run_finished()
            search.run_started()  # the next example draws from what the test's fixtures left
            if examples is not None:
                examples.outcome = (log.error_type, example_line(name, log.failing)) if failed else None
            if failed and not state.failing:
                state.failing = True
                state.first_failure_at = time.perf_counter() - started
                state.first_failure_example = state.runs
                emit(FailureFound(name, state.examples, path))
            emit(ExampleFinished(name, state.examples, state.steps, time.perf_counter() - started, state.failing, path, state.runs, search.branches if search.covering else None))

        with isolate_examples(fn, project.backend, kwargs, counted, stop, before_revert=search.absorb) as log:
            try:
                with reporting.with_reporter(lines.append), search.running():
                    test(**kwargs)
            except OutOfTime:
                pass
            except KeyboardInterrupt:
                status = "interrupted"
            except DEFINITION_ERRORS as exc:
                status, error = "error", user_error(name, exc)
            except BaseException as exc:
                status = "failed"
                if examples is not None:
                    examples.commit(examples.outcome)  # the last run replayed the reported failure
                first = state.first_failure_example or state.runs
                report = ShrinkReport(
                    first_steps=1,
                    hypothesis_steps=1,
                    steps=1,
                    seconds=time.perf_counter() - started - (state.first_failure_at or 0.0),
                    runs=state.runs - first,
                    replays=0,
                    replayed=examples is not None and first <= examples.fetched,
                )
                failure = property_failure(name, path, exc, log, lines, report)
                raised = exc
        if failure is not None and log.failing is not None:
            drawn = log.failing
            failure = with_trace(failure, lambda: _trace_test(name, fn, project, kwargs, drawn, raised, capture))
    except MachineDefinitionError as exc:
        status, error = "error", str(exc)
    finally:
        search.stop()
        capturing.__exit__(None, None, None)
        project.backend.revert(outer)
        project.backend.release(outer)
    divergence = getattr(project.backend, "divergence", None)
    if divergence is not None:
        status = "failed"
        failure = divergence_failure(name, path, project, Diverged(divergence, []))
    elif failure is not None and not getattr(project.backend, "reports_frames", True):
        failure = test_explained_on_py_evm(fn, project, failure)
    statistics = {**_statistics_of_test(state, settings, seed, failure), **search.statistics()}
    result = MachineFinished(
        name, "test", path, status, state.examples, state.steps, time.perf_counter() - started, {}, failure, error, statistics,
        seed=seed, runs=state.runs, max_examples=settings.max_examples,
    )
    if status == "interrupted":
        raise Interrupted(result)
    return result


def _trace_test(name: str, fn: Any, project: Project, injected: dict[str, Any], drawn: dict[str, Any], exc: BaseException, capture: bool) -> Trace:
    return trace_test(name, fn.hypothesis.inner_test, project, injected, drawn, exc, capture=capture)


def _statistics_of_test(state: RunState, settings: Settings, seed: int | None, failure: Failure | None) -> dict[str, Any]:
    stats: dict[str, Any] = {"max_examples": settings.max_examples, "seed": seed if seed is not None else "random", "examples": state.examples, "runs": state.runs}
    if failure is not None and failure.shrink is not None:
        stats["first failure at run"] = state.first_failure_example
        stats["shrink runs"] = failure.shrink.runs
        stats["shrink time"] = f"{failure.shrink.seconds:.2f}s"
    return stats

