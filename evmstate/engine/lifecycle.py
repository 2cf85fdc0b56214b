"""What machines and property tests share around their runs: counts, captured output, traces, the search session."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ..contracts.project import Project
from ..search.session import Search, SearchOptions, collector_of
from .deployments import contracts_behind
from .events import Event, ExampleFinished, Failure, RuleStats, Status
from .program import Step, Stopped, stop_error
from .recorded import program_lines
from .shrink.trials import clear_of_known, shorter_error
from .tracebacks import ErrorInfo, identity_of
from .trace import Trace

if TYPE_CHECKING:
    from ..search.corpus import Corpus


class FrozenHeap:
    """The garbage collector's frozen generation, shared by every search in this process.

    gc.freeze() is process-wide: searches may nest (a campaign's local workers run in one process),
    so the heap is frozen by the outermost and given back by it alone.
    """

    def __init__(self) -> None:
        self.depth = 0  # searches inside now

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        """While inside, the objects alive on entry (the project, its compiled code, the libraries) are left out of
        the garbage collector's full collections: each one scans what the search made, not the whole heap again.

        Nothing is lost: what was frozen goes back to the collector on the way out (gc.freeze, gc.unfreeze).
        """
        if not self.depth:
            gc.freeze()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth:
                gc.unfreeze()


frozen_heap = FrozenHeap()


class RunState:
    def __init__(self) -> None:
        self.runs = 0  # every run
        self.examples = 0  # what Hypothesis counts towards max_examples: valid runs until the first failure
        self.steps = 0
        self.failing = False
        self.last_steps: list[Step] = []
        self.current: RuleStats | None = None
        self.best: int | None = None  # the shortest failing program so far
        self.first_failure_at: float | None = None
        self.first_failure_example: int | None = None
        self.best_failure: tuple[Any, BaseException] | None = None  # kept if shrinking stops before its end
        # the known failures the run of best_failure went past (keep-going): a fresh run of it has not been checked
        self.best_met: set[str] = set()
        self.last_error: BaseException | None = None  # what the last failing run raised
        self.left_out = 0  # programs tried while shrinking that met an error of the harness, not the failure
        self.left_out_first: str | None = None  # the first of them: its error and where
        self.rejected = 0  # runs thrown away as invalid by assume()/reject()
        self.aborted = 0  # runs Hypothesis stopped itself (out of data while replaying a mutation)
        self.first_steps: int | None = None  # steps of the first failing program


class Growth:
    """The branch outcomes reached after each run of the search (not of shrinking), from the runs' events; and the kinds
    of state the search's stored-value progress first reached late."""

    # fewer runs than this say nothing about a trend
    MIN_RUNS = 8

    def __init__(self, search: Search | None = None) -> None:
        self.reached: list[int] = []
        self.search = search

    def watch(self, event: Event) -> None:
        if isinstance(event, ExampleFinished) and not event.shrinking and event.branches is not None:
            self.reached.append(event.branches)

    def late(self) -> int | None:
        """Branch outcomes first reached in the last quarter of the runs; None without coverage or with too few runs."""
        return _late(self.reached, self.MIN_RUNS)

    def late_stages(self) -> int | None:
        """New kinds of state (a slot holding a phase, a level, a flag taking a value it never held; not a new amount)
        first stored in the last quarter of the runs; None without stored-value progress or with too few runs."""
        if self.search is None or self.search.guide is None:
            return None
        return self.search.progress.late_kinds(self.MIN_RUNS)


def _late(totals: list[int], min_runs: int) -> int | None:
    n = len(totals)
    if n < min_runs:
        return None
    return totals[-1] - totals[n - n // 4 - 1]


class Output:
    """What the user's code prints while a machine or test runs: kept for the current run only, or passed through."""

    def __init__(self, capture: bool) -> None:
        self.capture = capture
        self.buffer = io.StringIO()

    def reset(self) -> None:
        """Forget what earlier runs printed."""
        self.buffer.seek(0)
        self.buffer.truncate()

    def capturing(self) -> contextlib.AbstractContextManager[Any]:
        if not self.capture:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        stack.enter_context(contextlib.redirect_stdout(self.buffer))
        stack.enter_context(contextlib.redirect_stderr(self.buffer))
        return stack

    def outside(self, emit: Callable[[Event], None]) -> Callable[[Event], None]:
        """emit, called with the output as it was before capturing, so that what it prints is shown."""
        if not self.capture:
            return emit
        out, err = sys.stdout, sys.stderr

        def uncaptured(event: Event) -> None:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                emit(event)

        return uncaptured

    def shown(self) -> str:
        """What the last run printed, to follow an error's message; empty when nothing was."""
        text = self.buffer.getvalue()
        return f"\nCaptured output:\n{text.rstrip()}" if text.strip() else ""


class Lifecycle:
    """What every machine and property test goes through around its runs, in this order.

    enter(): the chain as it is now is kept (every run and the whole machine end back there),
    the per-call time limit starts afresh, the search session starts, and what the user's code
    prints is captured. exit(): the search stops, a last hook runs (a machine's
    teardown_final), the output goes back and the chain is put back as it was.
    """

    def __init__(self, project: Project, capture: bool, emit: Callable[[Event], None], search: Search) -> None:
        self.backend = project.backend
        self.search = search
        self.output = Output(capture)
        self.growth = Growth(search)
        shown = self.output.outside(emit)  # events are shown, not captured

        def watched(event: Event) -> None:
            self.growth.watch(event)
            shown(event)

        self.emit = watched
        self._outer: Any = None
        self._capturing: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()

    def enter(self) -> None:
        self._outer = self.backend.snapshot()
        self.backend.reset_time_limit()  # a timeout in an earlier machine says nothing about this one
        self.search.start()
        self._capturing = self.output.capturing()
        self._capturing.__enter__()

    def exit(self, last: Callable[[], None] | None = None) -> None:
        self.search.stop()
        try:
            if last is not None:
                last()
        finally:
            self._capturing.__exit__(None, None, None)
            self.backend.revert(self._outer)
            self.backend.release(self._outer)


class Phases:
    """Seconds spent in each phase of a machine or test, in the order they ran, as Hypothesis times its own
    phases: the search, Hypothesis's shrinking, evmstate's shrinking, the explanation on py-evm, the trace."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - started)

    def searched(self, started: float, first_failure: float | None) -> None:
        """The search ran from started (time.perf_counter()) until now; Hypothesis shrank from first_failure (the same
        clock), if any.
        """
        now = time.perf_counter()
        # a failure replayed from the example database is found before the search's clock starts: no time searched
        self.add("search", max(0.0, (first_failure if first_failure is not None else now) - started))
        if first_failure is not None:
            self.add("shrink (Hypothesis)", now - first_failure)

    def statistics(self) -> dict[str, str]:
        """One statistics entry per phase that ran: "<phase> phase": seconds."""
        return {f"{name} phase": f"{seconds:.2f}s" for name, seconds in self.seconds.items()}


def with_trace(failure: Failure, make: Callable[[], Trace]) -> Failure:
    """The failure with its trace; Ctrl-C or an error while tracing leaves it without one, and says so."""
    try:
        trace = make()
    except KeyboardInterrupt:
        return dataclasses.replace(failure, interrupted=True)
    except Exception as exc:
        return with_note(
            failure,
            "no trace: replaying the program for its trace failed with an internal error of evmstate "
            f"({type(exc).__name__}: {exc})",
        )
    return dataclasses.replace(failure, trace=trace)


def with_note(failure: Failure, note: str) -> Failure:
    """The failure with one more line for its report."""
    return dataclasses.replace(failure, notes=(*failure.notes, note))


def cleared(
    run: Any, failure: Failure, exc: BaseException, passed: list[int], met: set[str]
) -> tuple[Failure, BaseException, bool]:
    """A failure a keep-going run found past known failures, as a program that fails so in a fresh run (its error), and
    whether one was found (shrink/trials.py's clear_of_known), to be shrunk.

    When a fresh run of it fails first as another failure, that failure: to be shrunk when it is a new one, else a known
    one, which it then merges into (as a shrink that ends on a known failure does), not shrunk again. When a fresh run
    does not fail, the program as found, with a note that says why.
    """
    found, clear = clear_of_known(run.spec, run.project, run.base, failure.recorded, exc, passed, run.shrink_budget)
    if found is not None and not clear:
        # a fresh run of it fails first as another failure: a known one it merges into, else a new one to shrink
        clear = identity_of(run.path, run.spec.name, found.error, [s.rule for s in found.steps]) not in run.known
    if found is not None:
        lines = program_lines(run.spec.name, found.program_lines())
        error, steps = ErrorInfo.of(found.error), tuple(found.steps)
        failure = dataclasses.replace(failure, error=error, program=lines, steps=len(steps), recorded=steps)
        return failure, found.error, clear
    ids = ", ".join(sorted(met))
    note = (
        f"found past a known failure ({ids}): a fresh run of this program (replay, an exported test) does not fail "
        "as it did, and no program that does was found, so it is reported as found, not shrunk"
    )
    return with_note(failure, note), exc, False


def stop_for(run: Any, exc: Exception, steps: list[Step], mistake: bool) -> Stopped | None:
    """What stops a run of the search at exc (program.py's stop_error): for an error of the machine, with the shortest
    program found that raises it (shrink/trials.py's shorter_error), else the program as it ran."""

    def shorter() -> list[str] | None:
        try:
            return shorter_error(run.spec, run.project, run.base, [s.recorded() for s in steps], exc)
        except Exception:  # shown as it ran: the machine's error is what the author is told, not this one
            return None

    return stop_error(run.spec.name, exc, steps, mistake, shorter)


def kept_at_stop(run: Any) -> tuple[Status, Failure | None]:
    """What a Ctrl-C keeps of a failure being shrunk: ("failed", the shortest failing program found), unless that
    program failed only past failures known before (keep-going), where no fresh run has yet checked that it fails on
    its own (it is mostly the known failure's consequence, in a machine whose model went astray there): ("interrupted",
    None)."""
    if run.state.best_met:
        return "interrupted", None
    return "failed", run.cut_short("Ctrl-C", interrupted=True)


def left_out_note(count: int, first: str | None) -> str:
    """The report's line for the programs shrinking left out because they met an error that is not the failure."""
    programs = "1 program" if count == 1 else f"{count} programs"
    were = "was" if count == 1 else "were"
    return (
        f"while shrinking, {programs} met an error of the machine or test, or a limit of evmstate, "
        f"instead of this failure, and {were} left out; the first: {first}"
    )


def internal_error(exc: BaseException) -> str:
    """An error of evmstate itself, as a stopped shrink names it: its type, message and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"an internal error of evmstate ({type(exc).__name__}: {exc}{where})"


def search_session(
    project: Project, machine_settings: dict[str, Any], where: str, seed: int | None, names: Iterable[str],
    corpus: Corpus | None = None,
) -> Search:
    """The coverage, dictionary and guidance of one machine or test; names: the contracts it asks for; corpus: its saved
    runs, if kept.
    """
    options = SearchOptions.of(project.config.fuzz, machine_settings, where, report=collector_of(project).wanted)
    return Search(project, options, seed, contracts_behind(names, project), corpus)

