"""Runs machines and property tests over worker processes and forwards their events; never prints.

Workers load the project once and run the tasks the parent hands them one at a time. Everything
a worker says (its events, then the task's result) goes back over one queue, so the parent sees
each worker's messages in order and feeds them to one renderer. A machine's failure is shrunk in
its worker; the worker builds its record and the parent saves it, once.

How workers start (start_method): from a fork server where the platform has one (Linux, macOS),
else spawned (Windows); EVMSTATE_START_METHOD=spawn|forkserver|fork chooses. The fork server is
one process, started once per parent process (start_early: as soon as a run knows it will use
workers, before it discovers and compiles), that imports the evmstate modules the parent has
loaded, and with them Hypothesis, py-evm and eth-abi; each worker is forked from it, so it starts
with all of that imported instead of importing it again (about 1.5 s a worker). The fork server
is a fresh interpreter with no threads, so forking it is safe where forking the parent (which runs
rich's refresh thread, or Dask's) would not be. A worker then imports the user's machine modules
(discovery) and builds the project from the parent's compiled contracts (ProjectSource.build),
not from the build cache. Only modules the parent has loaded are preloaded. Which of evmstate's
modules a process has loaded changes no program (they add nothing to the constants Hypothesis
draws from, search/constants.py); the user's machine modules do add to them, and a worker loads
the same ones as the parent, so it runs a machine with the same programs for the same seed.

A worker forked from the fork server takes the parent's environment variables as they are when
it starts (as a spawned one has them), not as they were when the server started.

Ctrl-C: the fork server and the workers start with SIGINT ignored until a worker installs its own
handler, which stops the task it runs (see _Interrupts); the parent decides (workers.Grace).
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from .. import calls
from ..compiler import Build
from ..config import Config
from ..contracts.project import Project
from ..engine.discovery import Item, discover
from ..engine.events import (
    Event,
    ExampleFinished,
    FailureFound,
    FilterStats,
    LoadFailed,
    MachineFinished,
    MachineStarted,
    RuleStats,
    ShrinkProgress,
)
from ..engine.item import RunRequest, run_item
from ..engine.settings import Overrides, keep_hypothesis_storage
from ..engine.summary import RunOptions, RunSummary
from ..engine.trace import GasStats
from ..errors import MachineDefinitionError, UsageError
from ..failures import FailureRecord, FailureStore
from ..search.coverage import Collector, Identity
from ..search.session import collector_of
from .workers import Grace, sigint_count

Hits = dict[Identity, set[int]]  # what one process reached, per contract code (coverage.Collector.hits)


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parse_workers(text: str | int) -> int:
    """-n: a number of worker processes, or "auto" for one per core."""
    if isinstance(text, int):
        value = text
    elif text.strip().lower() == "auto":
        return cores()
    else:
        try:
            value = int(text)
        except ValueError:
            raise UsageError(f"-n {text}: give a number of worker processes, or auto for one per core ({cores()} here)") from None
    if value < 1:
        raise UsageError(f"-n {value}: give at least 1 worker process, or auto for one per core ({cores()} here)")
    return value


# -- what a worker holds ---------------------------------------------------------


@dataclass(frozen=True)
class ProjectSource:
    """What a worker needs to load the project the parent runs: its config, and what to discover."""

    config: Config
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    # the evmstate modules the parent had loaded: a worker loads the same ones
    modules: tuple[str, ...] = ()
    # the parent's compiled contracts: a worker builds the project from them instead of from the
    # build cache (None: from the cache, as on a cluster's workers)
    build: Build | None = field(default=None, compare=False, repr=False)

    def open(self) -> "WorkerState":
        return open_source(self)


@dataclass
class WorkerState:
    """A loaded project and the machines and tests found in it, by id (path::name)."""

    config: Config
    project: Project
    items: dict[str, Item]


_opened: dict[Any, WorkerState] = {}


def open_source(source: ProjectSource) -> WorkerState:
    """The project source loaded in this process: discovered and compiled (from the cache) on first use."""
    if source not in _opened:
        for name in source.modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        keep_hypothesis_storage(source.config)
        found = discover(source.config, source.paths, source.keyword)
        project = Project(source.config, build=source.build)
        _opened[source] = WorkerState(source.config, project, {item_id(i): i for i in found.items})
    state = _opened[source]
    state.project.activate()
    return state


def item_id(item: Item) -> str:
    return f"{item.path}::{item.name}"


def loaded_modules() -> tuple[str, ...]:
    return tuple(sorted(n for n in list(sys.modules) if n.split(".")[0] in ("evmstate", "evmstate_cli")))


def absolute_paths(paths: tuple[str, ...]) -> tuple[str, ...]:
    """PATHS as discovery resolves them here, so that a process started elsewhere finds the same files."""
    out = []
    for raw in paths:
        text, sep, selector = raw.partition("::")
        out.append(str((Path.cwd() / text).resolve()) + sep + selector)
    return tuple(out)


# -- tasks -------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemTask:
    """One shard of one machine or test: run it, shrink its failure and build the record."""

    key: str  # the item's id, path::name
    shard: int
    shards: int
    seed: int  # the run's seed
    overrides: Overrides
    position: tuple[int, int] = (0, 0)  # the k-th of the run's machines and tests, and how many
    capture: bool = True
    gas: bool = False  # gather gas per contract function in this task (a worker's calls, for the parent)
    coverage: bool = False  # record coverage, and send what this process reached to the parent

    def run(self, state: WorkerState, emit: Callable[[Event], None]) -> tuple[MachineFinished, FailureRecord | None, GasStats | None, Hits | None]:
        item = state.items[self.key]
        collector = collector_of(state.project)
        if self.coverage:
            collector.wanted = True
            state.project.fast_getters = False  # a getter read from storage runs no code
        records: list[FailureRecord] = []
        shard = self.shard if self.shards > 1 else None
        stats = GasStats() if self.gas else None
        with calls.recording(stats) if stats is not None else contextlib.nullcontext():
            request = RunRequest(overrides=self.overrides, seed=self.seed, shard=shard, shards=self.shards, keep=records.append, capture=self.capture, position=self.position)
            result = run_item(state.config, state.project, item, request, emit)
        # everything this process reached so far: the parent's union makes repeats harmless
        hits = {identity: set(h) for identity, h in collector.hits.items()} if self.coverage else None
        return result, (records[0] if records else None), stats, hits


# -- worker processes -------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """What a worker says: ready, event, done, interrupted, refused (a definition error) or crashed."""

    kind: str
    worker: int
    key: str | None = None
    payload: Any = None


class _Interrupts:
    """SIGINT in a worker: a KeyboardInterrupt in the task it is running, once; ignored while idle."""

    def __init__(self) -> None:
        self.armed = False
        self.fired = False

    def handler(self, signum: int, frame: Any) -> None:
        if self.armed and not self.fired:
            self.fired = True
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def arm(self) -> Iterator[None]:
        self.fired = False
        self.armed = True
        try:
            yield
        finally:
            self.armed = False


def _worker_main(index: int, source: Any, inbox: Any, out: Any, environ: dict[str, str] | None = None) -> None:
    interrupts = _Interrupts()
    signal.signal(signal.SIGINT, interrupts.handler)
    if environ is not None:  # the parent's environment now, not as it was when the fork server started
        os.environ.clear()
        os.environ.update(environ)

    def send(kind: str, key: str | None = None, payload: Any = None) -> None:
        try:
            data = pickle.dumps(Message(kind, index, key, payload))
        except Exception:
            data = pickle.dumps(Message("crashed", index, key, f"cannot send the {kind} message:\n{traceback.format_exc()}"))
        out.put(data)

    started = time.perf_counter()
    try:
        state = source.open()
    except BaseException:
        send("crashed", None, traceback.format_exc())
        return
    send("ready", None, time.perf_counter() - started)
    while True:
        task = inbox.get()
        if task is None:
            break
        try:
            with interrupts.arm():
                value = task.run(state, lambda e, key=task.key: send("event", key, e))
        except KeyboardInterrupt:
            send("interrupted", task.key)
        except MachineDefinitionError as exc:
            send("refused", task.key, str(exc))
        except BaseException:
            send("crashed", task.key, traceback.format_exc())
        else:
            send("done", task.key, value)


START_METHOD = "EVMSTATE_START_METHOD"  # the environment variable that chooses how workers start


def start_method() -> str:
    """How worker processes start: forkserver where the platform has it, else spawn; EVMSTATE_START_METHOD chooses."""
    available = multiprocessing.get_all_start_methods()
    chosen = os.environ.get(START_METHOD, "").strip().lower()
    if chosen:
        if chosen not in available:
            raise UsageError(f"{START_METHOD}={chosen}: worker processes start here by {' or '.join(available)}")
        return chosen
    return "forkserver" if "forkserver" in available else "spawn"


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ctrl-C ignored while inside: a process started now starts ignoring it (Python keeps an inherited SIG_IGN)."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def start_early() -> None:
    """Start the fork server now, when workers start from one: it imports what they need while this process goes on.

    Returns at once; the first worker started waits for what is left of the imports. The fork
    server lives as long as this process (later runs reuse it) and preloads the evmstate modules
    loaded now, so call this once the caller's own imports are done.
    """
    if start_method() == "forkserver":
        start_fork_server(loaded_modules())


def start_fork_server(preload: tuple[str, ...]) -> None:
    """Start multiprocessing's fork server (unless it runs), importing preload: modules this process loads too.

    It starts ignoring Ctrl-C, and so does each worker forked from it until the worker has its own
    handler. It imports before it learns this process's sys.path (multiprocessing passes it, the
    server ignores it), with the folder it starts in first on its path: that is the standard
    library's, not this process's folder, where a project's files could stand for a package.
    (evmstate_cli.launch does the same before the CLI imports evmstate.)
    """
    from multiprocessing import forkserver

    multiprocessing.set_forkserver_preload(list(preload))  # no effect once the server runs
    with _sigint_ignored(), _in_folder(os.path.dirname(os.__file__)):
        forkserver.ensure_running()


@contextlib.contextmanager
def _in_folder(folder: str) -> Iterator[None]:
    """In folder while inside (a process started now starts there), then back; nowhere else if this folder cannot be opened."""
    try:
        here = os.open(".", os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        os.chdir(folder)
        yield
    finally:
        os.fchdir(here)
        os.close(here)


class WorkerCrashed(RuntimeError):
    """Raised in the parent when a worker process fails outside the user's code (an internal error)."""


class Pool:
    """Worker processes (started by start_method()), each loading source once; tasks go to idle workers one at a time."""

    def __init__(self, source: Any, workers: int) -> None:
        method = start_method()
        ctx = multiprocessing.get_context(method)
        self.out = ctx.Queue()
        self.inboxes = [ctx.Queue() for _ in range(workers)]
        environ = dict(os.environ) if method == "forkserver" else None
        self.processes = [
            ctx.Process(target=_worker_main, args=(i, source, self.inboxes[i], self.out, environ), name=f"evmstate-worker-{i}", daemon=True)
            for i in range(workers)
        ]
        self.ready: set[int] = set()
        self.busy: dict[int, Any] = {}  # worker -> the task it runs
        self.dead: set[int] = set()
        self.startup: list[float] = []  # seconds each worker took to load the project
        if method == "forkserver":
            # the workers take Ctrl-C as the fork server does (start_early): ignored until each has
            # its handler. Starting one waits while the server still imports; Ctrl-C counts meanwhile
            start_early()
            starting: Any = contextlib.nullcontext()
        else:
            # started ignoring Ctrl-C until the worker installs its own handler: a Ctrl-C while
            # one starts up does not kill it with a traceback
            starting = _sigint_ignored()
        try:
            with starting:
                for p in self.processes:
                    p.start()
        except BaseException:
            self.close(0.0)
            raise

    def idle(self) -> list[int]:
        return sorted(self.ready - set(self.busy) - self.dead)

    def send(self, worker: int, task: Any) -> None:
        self.busy[worker] = task
        self.inboxes[worker].put(task)

    def receive(self, timeout: float) -> list[tuple[Message, Any]]:
        """The messages that arrived within timeout, each with the task it is about; a dead worker says crashed."""
        messages: list[Message] = []
        try:
            messages.append(pickle.loads(self.out.get(timeout=timeout)))
            while True:
                messages.append(pickle.loads(self.out.get_nowait()))
        except queue.Empty:
            pass
        if not messages:
            for i, p in enumerate(self.processes):
                if i not in self.dead and p.exitcode is not None:
                    self.dead.add(i)
                    task = self.busy.get(i)
                    messages.append(Message("crashed", i, task.key if task is not None else None, f"worker process {i} exited with code {p.exitcode}"))
        out = []
        for m in messages:
            if m.kind == "ready":
                self.ready.add(m.worker)
                self.startup.append(m.payload)
            out.append((m, self.busy.get(m.worker) if m.kind == "event" else self.busy.pop(m.worker, None)))
        return out

    def interrupt(self, workers: list[int] | None = None) -> None:
        """SIGINT to every busy worker (or to those given): what it runs stops as a Ctrl-C stops it in one process."""
        for i in list(self.busy) if workers is None else workers:
            with contextlib.suppress(OSError):
                if self.processes[i].pid is not None and self.processes[i].exitcode is None:
                    os.kill(self.processes[i].pid, signal.SIGINT)

    def close(self, timeout: float = 5.0) -> None:
        """Ask every worker to stop, wait for it, and end those that do not."""
        for i, inbox in enumerate(self.inboxes):
            if self.processes[i].exitcode is None:
                with contextlib.suppress(Exception):
                    inbox.put(None)
        started = [p for p in self.processes if p.pid is not None]  # all, unless starting one failed
        deadline = time.monotonic() + timeout
        for p in started:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in started:
            if p.exitcode is None:
                p.terminate()
                p.join(1.0)
        for q in (self.out, *self.inboxes):
            q.close()
            q.cancel_join_thread()


# -- shards of one item, merged ---------------------------------------------------------


def merge_rules(parts: list[dict[str, RuleStats]]) -> dict[str, RuleStats]:
    merged: dict[str, RuleStats] = {}
    for rules in parts:
        for name, s in rules.items():
            m = merged.setdefault(name, RuleStats())
            m.calls += s.calls
            m.reverts += s.reverts
            m.transactions += s.transactions
            m.transactions_reverted += s.transactions_reverted
            for arg, f in s.filters.items():
                mf = m.filters.setdefault(arg, FilterStats())
                mf.enabled += f.enabled
                mf.skipped += f.skipped
    return merged


def merge_shards(results: dict[int, MachineFinished], shards: int, elapsed: float) -> tuple[int, MachineFinished]:
    """One machine's result from its shards': counts added up, the failure of the first shard that failed.

    Returns the merged result and the shard whose failure (or error) it reports.
    """
    indexes = sorted(results)
    ordered = [results[i] for i in indexes]
    reported_at = next((i for i in indexes if results[i].status == "error"), None)
    if reported_at is None:
        reported_at = next((i for i in indexes if results[i].status == "failed"), indexes[0])
    reported = results[reported_at]
    if shards == 1 and len(ordered) == 1:
        return reported_at, reported
    errors = [r for r in ordered if r.status == "error"]
    failed = [r for r in ordered if r.status == "failed"]
    statistics = dict(reported.statistics)
    statistics["shards"] = f"{len(ordered)} of {shards} ran" if len(ordered) < shards else shards
    return reported_at, replace(
        reported,
        status="error" if errors else "failed" if failed else "passed",
        examples=sum(r.examples for r in ordered),
        steps=sum(r.steps for r in ordered),
        elapsed=elapsed,
        rules=merge_rules([r.rules for r in ordered]),
        error="\n".join(r.error for r in errors if r.error) or None,
        statistics=statistics,
    )


@dataclass
class _ItemRun:
    index: int
    item: Item
    started: float | None = None
    progress: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # shard -> examples, steps, runs
    results: dict[int, tuple[MachineFinished, FailureRecord | None]] = field(default_factory=dict)
    failing: int | None = None  # the shard whose shrinking is shown
    branches: int | None = None  # branch outcomes reached, the most of any shard
    skipped: set[int] = field(default_factory=set)
    refused: bool = False
    finished: bool = False


class Board:
    """The parent's view of a run over shards and workers: one event stream per machine, failures saved once."""

    def __init__(self, config: Config, items: list[Item], shards: int, options: RunOptions, summary: RunSummary, emit: Callable[[Event], None]) -> None:
        self.config = config
        self.shards = shards
        self.options = options
        self.summary = summary
        self.emit = emit
        self.runs = {item_id(item): _ItemRun(i, item) for i, item in enumerate(items)}
        self.finished: list[tuple[int, MachineFinished]] = []
        self.collector: Collector | None = None  # the run's coverage, when asked for: workers' hits go there

    def wanted(self, task: ItemTask) -> bool:
        """Whether a task not yet started should still run: not once its machine failed or cannot run."""
        run = self.runs[task.key]
        if run.refused or any(r.status in ("failed", "error") for r, _ in run.results.values()):
            run.skipped.add(task.shard)
            self._maybe_finish(run)
            return False
        return True

    def event(self, task: ItemTask, event: Any) -> None:
        run = self.runs[task.key]
        if self.shards == 1:
            self.emit(event)
            return
        now = time.perf_counter()
        if isinstance(event, MachineStarted):
            if run.started is None:
                run.started = now
                self.emit(event)
        elif isinstance(event, ExampleFinished):
            run.progress[task.shard] = (event.examples, event.steps, event.runs or event.examples)
            examples, steps, runs = (sum(p[i] for p in run.progress.values()) for i in range(3))
            if event.branches is not None:  # each shard counts its own: the most any reached
                run.branches = max(run.branches or 0, event.branches)
            self.emit(ExampleFinished(name=event.name, examples=examples, steps=steps, elapsed=now - (run.started or now), shrinking=run.failing is not None, path=event.path, runs=runs, branches=run.branches))
        elif isinstance(event, FailureFound):
            if run.failing is None:
                run.failing = task.shard
                self.emit(FailureFound(event.name, sum(p[0] for p in run.progress.values()) + 1, event.path))
        elif isinstance(event, ShrinkProgress):
            if run.failing == task.shard:
                self.emit(event)
        else:
            self.emit(event)

    def done(self, task: ItemTask, value: tuple[MachineFinished, FailureRecord | None, GasStats | None, Hits | None]) -> None:
        run = self.runs[task.key]
        result, record, stats, hits = value
        run.results[task.shard] = (result, record)
        if stats is not None and self.summary.gas is not None:
            self.summary.gas.merge(stats)
        if hits is not None and self.collector is not None:
            for identity, h in hits.items():
                self.collector.add(identity, h)
        self._maybe_finish(run)

    def refused(self, task: ItemTask, message: str) -> None:
        run = self.runs[task.key]
        run.skipped.add(task.shard)
        if not run.refused:
            run.refused = True
            err = LoadFailed(task.key, message)
            self.summary.load_errors.append(err)
            self.emit(err)
        self._maybe_finish(run)

    def _maybe_finish(self, run: _ItemRun, *, partial: bool = False) -> None:
        if run.finished or (not partial and len(run.results) + len(run.skipped) < self.shards):
            return
        run.finished = True
        if not run.results:
            return  # it could not run: reported as a load error
        elapsed = time.perf_counter() - run.started if run.started is not None else max(r.elapsed for r, _ in run.results.values())
        at, merged = merge_shards({i: r for i, (r, _) in run.results.items()}, self.shards, elapsed)
        if merged.failure is not None:
            record = run.results[at][1]
            if self.options.save_failures and record is not None:
                FailureStore.of(self.config).save(record)
            else:
                merged = replace(merged, failure_id=None)
        self.emit(merged)
        self.finished.append((run.index, merged))
        if merged.failure is not None and merged.failure.interrupted:
            self.summary.interrupted = True

    def settle(self) -> None:
        """After a Ctrl-C: report the machines whose finished shards found a failure; the rest are dropped."""
        for run in self.runs.values():
            if not run.finished and any(r.failure is not None for r, _ in run.results.values()):
                self._maybe_finish(run, partial=True)

    def result(self) -> RunSummary:
        self.summary.results.extend(r for _, r in sorted(self.finished, key=lambda x: x[0]))
        return self.summary


def run_items(config: Config, project: Project, items: list[Item], options: RunOptions, seed: int, summary: RunSummary, emit: Callable[[Event], None]) -> RunSummary:
    """Run items split into options.shards shards each, over options.workers processes (in this one when 1)."""
    shards = max(1, options.shards)
    # in this process, the run's own gas recording sees every call; workers gather theirs for it
    gas = options.gas and options.workers > 1
    tasks = [
        ItemTask(item_id(item), i, shards, seed, options.overrides, (k, len(items)), options.capture, gas, options.coverage)
        for k, item in enumerate(items, 1)
        for i in range(shards)
    ]
    board = Board(config, items, shards, options, summary, emit)
    if options.coverage:
        board.collector = collector_of(project)
    if options.workers <= 1:
        state = WorkerState(config, project, {item_id(i): i for i in items})
        for task in tasks:
            if not board.wanted(task):
                continue
            try:
                value = task.run(state, lambda e, task=task: board.event(task, e))
            except MachineDefinitionError as exc:
                board.refused(task, str(exc))
                continue
            board.done(task, value)
            if summary.interrupted:
                break
        return board.result()
    source = ProjectSource(config, absolute_paths(options.paths), options.keyword, loaded_modules(), project.build)
    with sigint_count() as sigints:
        pool = Pool(source, min(options.workers, len(tasks)))
        try:
            interrupted = drive(pool, deque(tasks), board, sigints)
        finally:
            pool.close()
    if interrupted:
        board.settle()
        if not summary.interrupted:
            raise KeyboardInterrupt
    return board.result()


# a Ctrl-C'd task that has not answered after this long is ended with its process
def drive(pool: Pool, pending: deque, board: Board, sigints: list[int]) -> bool:
    """Hand tasks to idle workers and feed what they say to the board; True when Ctrl-C stopped it."""

    def stop() -> None:
        pending.clear()
        pool.interrupt()

    grace = Grace(sigints, stop)
    while True:
        grace.check()
        for worker in pool.idle():
            while pending and not board.wanted(pending[0]):
                pending.popleft()
            if not pending:
                break
            pool.send(worker, pending.popleft())
        while pending and not board.wanted(pending[0]):
            pending.popleft()
        if not pending and not pool.busy:
            return grace.interrupted
        for m, task in pool.receive(0.1):
            if m.kind == "event":
                board.event(task, m.payload)
            elif m.kind == "done":
                board.done(task, m.payload)
            elif m.kind == "refused":
                board.refused(task, m.payload)
            elif m.kind == "crashed":
                where = f" while running {m.key}" if m.key else " while loading the project"
                raise WorkerCrashed(f"worker process {m.worker} failed{where}:\n{m.payload}")
            # "interrupted": the task stopped without a failure to report
