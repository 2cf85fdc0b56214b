"""Property tests: one @given test, each example from the same chain, injected by name."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import hypothesis
from hypothesis import reporting
from hypothesis import settings as Settings
from hypothesis.errors import FailedHealthCheck, HypothesisException, StopTest, Unsatisfiable, UnsatisfiedAssumption

from ..contracts.project import Project
from ..errors import CallTimeout, MachineDefinitionError, from_ctrl_c
from ..failures import FailureIdentity
from .tracebacks import ErrorInfo, harness_limit, machine_error, user_error
from ..hooks import ctrl_c_noted
from .verdicts import is_mistake, message_of, run_code, shown_type
from .events import (
    Event,
    ExampleFinished,
    Failure,
    FailureFound,
    Interrupted,
    MachineFinished,
    MachineStarted,
    ShrinkReport,
    Status,
)
from .database import KNOWN, ShrunkExamples
from .explain import divergence_failure, test_explained_on_py_evm
from .lifecycle import Lifecycle, Phases, RunState, frozen_heap, left_out_note, search_session, with_note, with_trace
from .program import DEFINITION_ERRORS, Diverged, OutOfTime, Step, Stopped, differential_notes, provide
from .recorded import example_line
from .rejections import Rejections
from .settings import RunSetup
from .trace import Trace, trace_test


@dataclass
class ExampleLog:
    """What isolate_examples() saw: examples run, and the drawn arguments of the last one that failed."""

    examples: int = 0  # every call of the test, shrinking included
    failing: dict[str, Any] | None = None
    error_type: str | None = None  # of the last example that failed
    valid: bool = True  # whether the last example counts (assume() did not reject it)
    rejection: BaseException | None = None  # what rejected the last example: assume() or reject()
    left_out: int = 0  # examples tried while shrinking that met an error of the test, not the failure
    left_out_first: str | None = None
    mistake: bool = False  # the last example that failed met a mistake of the test (verdicts.is_mistake), not a verdict
    known: bool = False  # the last example failed as a failure known before (keep-going): counted, and ended as a pass


@contextlib.contextmanager
def isolate_examples(
    fn: Any, backend: Any, injected: Iterable[str], on_example: Callable[[ExampleLog, bool], None] | None = None,
    stop: Callable[[], bool] | None = None, before_revert: Callable[[], object] | None = None,
    stop_at_limits: bool = False, past: Callable[[Exception], bool] | None = None,
) -> Iterator[ExampleLog]:
    """While inside, every example of the @given test fn starts from the same chain and leaves it as it was.

    Swaps fn.hypothesis.inner_test (the hook Hypothesis documents for wrapping each example)
    and restores it on the way out. on_example(log, failed) is called after every example;
    stop(), when given, is asked before every example until one fails (see run_machine);
    before_revert() at the end of each, while what it deployed is still there. With
    stop_at_limits (evmstate's runs, not pytest's), a CallTimeout (a limit of evmstate) or a mistake
    of the test (verdicts.is_mistake) stops the test at once as Stopped, and a BaseException the
    test raises that is not an Exception is told as one (verdicts.Escaped). past(error), when given, says whether an
    example's error is a failure known before (keep-going): that example ends as a pass, and the search goes on.
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
        log.rejection = None
        log.known = False
        failed = False
        try:
            with backend.anchor():
                try:
                    return run_code(original, *args, **kwargs) if stop_at_limits else original(*args, **kwargs)
                finally:
                    if before_revert is not None:
                        before_revert()
        except Exception as exc:
            if from_ctrl_c(exc):
                raise KeyboardInterrupt from exc  # raised on the way out of what a Ctrl-C stopped: not the contract's
            mistake = is_mistake(exc)
            if log.failing is not None and not log.mistake and (mistake or isinstance(exc, CallTimeout)):
                # an example tried while shrinking met an error of the test or a limit of
                # evmstate, not the failure being shrunk: it is left out, the shrinking goes on
                log.left_out += 1
                log.left_out_first = log.left_out_first or f"{fn.__name__} raised {shown_type(exc)}: {message_of(exc)}"
                log.valid = False
                hypothesis.reject()
            if stop_at_limits and (mistake or isinstance(exc, CallTimeout)):
                drawn = {k: v for k, v in kwargs.items() if k not in injected}
                lines = [example_line(fn.__name__, drawn)]
                raise Stopped(
                    machine_error(fn.__name__, exc, lines) if mistake else harness_limit(fn.__name__, exc, lines),
                    mistake=mistake,
                ) from exc
            if past is not None and not isinstance(exc, HypothesisException) and past(exc):
                log.known = True
                return None
            if not isinstance(exc, HypothesisException):
                failed = True
                log.failing = {k: v for k, v in kwargs.items() if k not in injected}
                log.error_type = shown_type(exc)
                log.mistake = mistake
            elif isinstance(exc, UnsatisfiedAssumption):
                log.valid = False
                log.rejection = exc
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


def property_failure(
    name: str, path: str, exc: BaseException, log: ExampleLog, reported: list[object],
    shrink: ShrinkReport | None = None,
) -> Failure:
    """A falsified property test: the error, and the example as name(arg=value, ...) with its drawn arguments only.

    reported (what Hypothesis printed) stands in only when the failing example was not seen.
    """
    if log.failing is not None:
        program = [example_line(name, log.failing)]
    else:
        program = [line for text in reported for line in str(text).splitlines() if line.strip()]
        program += [n for n in getattr(exc, "__notes__", []) if not n.startswith("You can reproduce")]
    recorded = (Step(name, dict(log.failing)).recorded(),) if log.failing is not None else ()
    # a property test's error names no invariant
    error = dataclasses.replace(ErrorInfo.of(exc), invariant=None)
    return Failure(name=name, path=path, error=error, program=program, steps=0, recorded=recorded, shrink=shrink)


def run_test(
    fn: Callable, project: Project, settings: Settings, seed: int | None, emit: Callable[[Event], None], path: str = "",
    database: Any = None, *, position: tuple[int, int] = (0, 0), **options: Any,
) -> MachineFinished:
    """Run one @given property test, injecting accounts, chain and contracts by name (see PropertyRun; options: capture,
    stop).

    Raises Interrupted on Ctrl-C before anything failed.
    """
    return PropertyRun(fn, project, settings, seed, emit, RunSetup(path, database, **options)).run(position)


class PropertyRun:
    """One @given property test: its examples from the same chain, and how it ended."""

    def __init__(
        self,
        fn: Any,  # the @given test; Hypothesis keeps its handle at fn.hypothesis
        project: Project,
        settings: Settings,
        seed: int | None,
        emit: Callable[[Event], None],
        setup: RunSetup = RunSetup(),  # path, database, capture and stop: a machine's other fields are not a test's
    ) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.project = project
        self.settings = settings
        self.seed = seed
        self.path = setup.path
        database = self.database = setup.database
        capture = self.capture = setup.capture
        self.traced = setup.trace
        self.stop = setup.stop
        self.params = inspect.signature(fn).parameters
        # a property test's examples are single calls with nothing to extend: no guidance
        self.search = search_session(project, {"guidance": False}, self.name, seed, self.params)
        self.life = Lifecycle(project, capture, emit, self.search)
        self.emit = self.life.emit
        self.state = RunState()
        self.phases = Phases()  # seconds per phase, for the statistics
        # the examples assume() threw away before any failed
        self.rejections = Rejections.of([(self.name, fn.hypothesis.inner_test)])
        self.examples = database if isinstance(database, ShrunkExamples) else None
        self.started = 0.0
        self.broken = False  # how an error ended it: a mistake of the test (MachineFinished.broken)
        self.known = setup.known  # failures found before: an example that fails as one is counted and passes
        self.hits: dict[str, int] = {}  # those examples, by the id of the failure they hit

    def run(self, position: tuple[int, int] = (0, 0)) -> MachineFinished:
        """Run the test start to finish; raises Interrupted on Ctrl-C before anything failed."""
        name, path, project = self.name, self.path, self.project
        self.started = time.perf_counter()
        self.emit(
            MachineStarted(
                name=name, kind="test", path=path, index=position[0], total=position[1],
                max_examples=self.settings.max_examples,
            )
        )
        status: Status = "passed"
        failure, error = None, None
        self.life.enter()
        try:
            # @given hides the parameters it draws from fn's signature: the rest are injected
            kwargs = provide(self.params, project, name)
            self.search.base_ready()
            with frozen_heap():
                status, failure, error = self.examples_of(kwargs)
        except MachineDefinitionError as exc:
            status, error, self.broken = "error", str(exc), True
        finally:
            self.life.exit()
        divergence = project.backend.divergence
        if divergence is not None:
            status = "failed"
            failure = divergence_failure(name, path, project, Diverged(divergence, []))
        elif failure is not None and not project.backend.capabilities.frames:
            with self.phases.timed("explain"):
                failure = test_explained_on_py_evm(self.fn, project, failure)
        statistics = {**self.statistics(failure), **self.search.statistics(), **self.phases.statistics()}
        state = self.state
        result = MachineFinished(
            name=name, kind="test", path=path, status=status, examples=state.examples, steps=state.steps,
            elapsed=time.perf_counter() - self.started, rules={}, failure=failure, error=error, statistics=statistics,
            seed=self.seed, runs=state.runs, max_examples=self.settings.max_examples, rejected=self.rejections.total,
            late_branches=self.life.growth.late(), late_stages=self.life.growth.late_stages(),
            phases=dict(self.phases.seconds), broken=self.broken and status == "error",
            differential=differential_notes(project.backend), hits=dict(self.hits),
        )
        if status == "interrupted":
            raise Interrupted(result)
        return result

    def hypothesis_test(self) -> Callable[..., None]:
        """The test with its seed and settings."""
        settings = self.settings
        if self.database is not None:
            settings = Settings(settings, database=self.database)
        test = self.fn
        if self.seed is not None:
            test = hypothesis.seed(self.seed)(test)
        # settings after seed(): seed() alone would switch the example database off
        with contextlib.suppress(HypothesisException):
            test = settings(test)
        return test

    def examples_of(self, kwargs: dict[str, Any]) -> tuple[Status, Failure | None, str | None]:
        """Run the test's examples; (status, failure, error) as it ended."""
        name, state = self.name, self.state
        test = self.hypothesis_test()
        lines: list[object] = []  # what Hypothesis reports: objects, written with str()
        status: Status = "passed"
        failure, error = None, None
        past = self.past if self.known else None
        isolated = isolate_examples(
            self.fn, self.project.backend, kwargs, self.counted, self.stop, before_revert=self.search.absorb,
            stop_at_limits=True, past=past,
        )
        with isolated as log:
            try:
                with reporting.with_reporter(lines.append), self.search.running(), ctrl_c_noted() as ctrl_c:
                    searching = time.perf_counter()
                    try:
                        test(**kwargs)
                    finally:
                        found = state.first_failure_at
                        self.phases.searched(searching, self.started + found if found is not None else None)
            except OutOfTime:
                pass
            except KeyboardInterrupt:
                status = "interrupted"
            except DEFINITION_ERRORS as exc:
                status, error, self.broken = "error", user_error(name, exc), True
            except Stopped as stop:
                status, error, self.broken = "error", stop.message, stop.mistake
            except (FailedHealthCheck, Unsatisfiable) as exc:  # most examples thrown away: nothing was tested
                status, error = "error", str(self.rejections.error(name, "test", state.examples, exc))
            except BaseException as exc:
                if not state.failing:
                    # no example failed, so what came out is not the contract's: Hypothesis's own bookkeeping,
                    # stopped by a Ctrl-C, raises something else in its handler (an assert); else an internal error
                    if not ctrl_c:
                        raise
                    status = "interrupted"
                else:
                    status = "failed"
                    failure = self.failure_of(exc, log, lines)
                    raised = exc
        if failure is not None and log.failing is not None and self.traced:
            drawn = log.failing
            with self.phases.timed("trace"):
                failure = with_trace(
                    failure, lambda: _trace_test(name, self.fn, self.project, kwargs, drawn, raised, self.capture)
                )
        return status, failure, error

    def failure_of(self, exc: BaseException, log: ExampleLog, lines: list[object]) -> Failure:
        """The failure Hypothesis reported for the test."""
        state, examples = self.state, self.examples
        if examples is not None:
            examples.commit(examples.outcome)  # the last run replayed the reported failure
        first = state.first_failure_example or state.runs
        report = ShrinkReport(
            first_steps=1,
            hypothesis_steps=1,
            steps=1,
            seconds=time.perf_counter() - self.started - (state.first_failure_at or 0.0),
            runs=state.runs - first,
            replays=0,
            replayed=examples is not None and first <= examples.fetched,
        )
        failure = property_failure(self.name, self.path, exc, log, lines, report)
        if log.left_out:
            failure = with_note(failure, left_out_note(log.left_out, log.left_out_first))
        return failure

    def counted(self, log: ExampleLog, failed: bool) -> None:
        """After every example: counts, the search session, the example database, events."""
        name, path, state, search = self.name, self.path, self.state, self.search
        state.runs = state.steps = log.examples
        if not state.failing and (log.valid or failed):
            state.examples += 1
        if log.rejection is not None and not state.failing:
            self.rejections.add(log.rejection)
        self.life.output.reset()
        search.run_finished()
        search.run_started()  # the next example draws from what the test's fixtures left
        if self.examples is not None:
            known = KNOWN if log.known else None  # passed as a known failure: its saved example is kept
            self.examples.outcome = (log.error_type, example_line(name, log.failing)) if failed else known
        if failed and not state.failing:
            state.failing = True
            state.first_failure_at = time.perf_counter() - self.started
            state.first_failure_example = state.runs
            self.emit(FailureFound(name, state.examples, path))
        self.emit(
            ExampleFinished(
                name=name, examples=state.examples, steps=state.steps, elapsed=time.perf_counter() - self.started,
                shrinking=state.failing, path=path, runs=state.runs,
                branches=search.branches if search.covering else None, stages=search.stages,
            )
        )

    def past(self, exc: Exception) -> bool:
        """Whether an example's error is a failure known before (RunSetup.known); counted under it while searching."""
        if isinstance(exc, CallTimeout) or is_mistake(exc):
            return False
        rid = self.known.get(FailureIdentity.of(self.path, self.name, "test", ErrorInfo.of(exc).to_data(), []))
        if rid is not None and not self.state.failing:
            self.hits[rid] = self.hits.get(rid, 0) + 1
        return rid is not None

    def statistics(self, failure: Failure | None) -> dict[str, Any]:
        state = self.state
        stats: dict[str, Any] = {
            "max_examples": self.settings.max_examples, "seed": self.seed if self.seed is not None else "random",
            "examples": state.examples, "runs": state.runs,
        }
        if failure is not None and failure.shrink is not None:
            stats["first failure at run"] = state.first_failure_example
            stats["shrink runs"] = failure.shrink.runs
            stats["shrink time"] = f"{failure.shrink.seconds:.2f}s"
        return stats


def _trace_test(
    name: str, fn: Any, project: Project, injected: dict[str, Any], drawn: dict[str, Any], exc: BaseException,
    capture: bool,
) -> Trace:
    return trace_test(name, fn.hypothesis.inner_test, project, injected, drawn, exc, capture=capture)
