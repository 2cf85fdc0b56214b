"""evmstate run -n / --shards: each machine's shards as tasks over the worker pool (pool.py), their events forwarded and
their results merged; never prints.

Everything a worker says (its events, then the task's result) goes back over one queue, so the
parent sees each worker's messages in order and feeds them to one renderer (Board). A machine's
failure is shrunk in its worker; the worker builds its record and the parent saves it, once.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ..contracts import calls
from ..config import Config
from ..contracts.project import Project
from ..search import canaries
from ..engine.discovery import Item
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
    StoreWarning,
)
from ..engine.item import RunRequest
from ..engine.native import own_loop
from ..engine.records import best_of, keep_optima, kept
from ..engine.settings import Overrides
from ..engine.events import RunSummary
from ..engine.item import RunOptions
from ..engine.trace import GasStats
from ..errors import MachineDefinitionError, ResourceError
from ..failures import FailureRecord, FailureStore
from ..search.coverage import Collector, Identity
from ..search.session import collector_of
from .shards import run_task
from .pool import Pool, ProjectSource, WorkerCrashed, WorkerState, absolute_paths, loaded_modules, worker_killed
from .interrupts import Grace, sigint_count

Hits = dict[Identity, set[int]]  # what one process reached, per contract code (coverage.Collector.hits)


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

    def run(
        self, state: WorkerState, emit: Callable[[Event], None]
    ) -> tuple[MachineFinished, FailureRecord | None, GasStats | None, Hits | None]:
        collector = collector_of(state.project)
        if self.coverage:
            collector.wanted = True
            state.project.fast_getters = False  # a getter read from storage runs no code
        shard = self.shard if self.shards > 1 else None
        stats = GasStats() if self.gas else None
        with calls.recording(stats) if stats is not None else contextlib.nullcontext():
            request = RunRequest(
                overrides=self.overrides, seed=self.seed, shard=shard, shards=self.shards, capture=self.capture,
                position=self.position, native=own_loop(state.config),
            )
            result, record = run_task(state, self.key, request, emit)
        # everything this process reached so far: the parent's union makes repeats harmless
        hits = {identity: set(h) for identity, h in collector.hits.items()} if self.coverage else None
        return result, record, stats, hits


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
            m.gated = m.gated or s.gated
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
        canaries=canaries.merged([r.canaries for r in ordered]),
        left_out={name: why for r in ordered for name, why in r.left_out.items()},
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

    def __init__(
        self, config: Config, items: list[Item], shards: int, options: RunOptions, summary: RunSummary,
        emit: Callable[[Event], None],
    ) -> None:
        self.config = config
        self.shards = shards
        self.options = options
        self.summary = summary
        self.emit = emit
        self.runs = {item.id: _ItemRun(i, item) for i, item in enumerate(items)}
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
            self.emit(
                ExampleFinished(
                    name=event.name, examples=examples, steps=steps, elapsed=now - (run.started or now),
                    shrinking=run.failing is not None, path=event.path, runs=runs, branches=run.branches,
                )
            )
        elif isinstance(event, FailureFound):
            if run.failing is None:
                run.failing = task.shard
                self.emit(FailureFound(event.name, sum(p[0] for p in run.progress.values()) + 1, event.path))
        elif isinstance(event, ShrinkProgress):
            if run.failing == task.shard:
                self.emit(event)
        else:
            self.emit(event)

    def done(
        self, task: ItemTask, value: tuple[MachineFinished, FailureRecord | None, GasStats | None, Hits | None]
    ) -> None:
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
        elapsed = (
            time.perf_counter() - run.started
            if run.started is not None
            else max(r.elapsed for r, _ in run.results.values())
        )
        at, merged = merge_shards({i: r for i, (r, _) in run.results.items()}, self.shards, elapsed)
        problem = None
        if merged.failure is not None:
            record = run.results[at][1]
            if self.options.save_failures and record is not None:
                try:
                    merged = kept(merged, record, FailureStore.of(self.config).keep(record))
                # a full or read-only disk: the failure is shown all the same, then why it was not kept
                except ResourceError as exc:
                    merged, problem = replace(merged, failure_id=None), str(exc)
            else:
                merged = replace(merged, failure_id=None)
        optima = best_of(o for r, _ in run.results.values() for o in r.optima)
        problems: list[str] = []
        if optima:  # each shard's best values: the best of each kept, its record saved here
            optima, problems = keep_optima(FailureStore.of(self.config), optima)
            merged = replace(merged, optima=optima)
        self.emit(merged)
        for message in [problem, *problems] if problem is not None else problems:
            self.emit(StoreWarning(message))
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


def run_items(
    config: Config, project: Project, items: list[Item], options: RunOptions, seed: int, summary: RunSummary,
    emit: Callable[[Event], None],
) -> RunSummary:
    """Run items split into options.shards shards each, over options.workers processes (in this one when 1)."""
    shards = max(1, options.shards)
    # in this process, the run's own gas recording sees every call; workers gather theirs for it
    gas = options.gas and options.workers > 1
    tasks = [
        ItemTask(item.id, i, shards, seed, options.overrides, (k, len(items)), options.capture, gas, options.coverage)
        for k, item in enumerate(items, 1)
        for i in range(shards)
    ]
    board = Board(config, items, shards, options, summary, emit)
    if options.coverage:
        board.collector = collector_of(project)
    if options.workers <= 1:
        state = WorkerState(config, project, {i.id: i for i in items})
        for task in tasks:
            if not board.wanted(task):
                continue
            try:
                value = task.run(state, lambda e: board.event(task, e))  # run before the loop moves on
            except MachineDefinitionError as exc:
                board.refused(task, str(exc))
                continue
            board.done(task, value)
            if summary.interrupted:
                break
        return board.result()
    source = ProjectSource(config, absolute_paths(options.paths), options.keyword, loaded_modules(), project.build)
    with sigint_count() as sigints:
        pool = Pool(source, min(options.workers, len(tasks)), slots=options.workers)
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
        if not pending:
            pool.lend()  # workers left idle help shrink the failures still being shrunk
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
            elif m.kind == "killed":
                raise worker_killed(m, pool.processes[m.worker].pid)
            # "interrupted": the task stopped without a failure to report
