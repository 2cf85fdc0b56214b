"""Time-budgeted fuzzing campaigns: shards of (machine, seed) over workers until the time is up; never prints.

A shard runs one machine or property test under a seed of its own, for a number of examples,
and stops starting runs when its share of the budget is spent; a failure it finds is shrunk
where it runs and comes back as a record, which the campaign saves. Workers are local
processes (evmstate.scale.pool) or Dask tasks on a cluster (evmstate.scale.cluster); both hand back
ShardResults, from which the campaign's progress is built.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any, Callable

from ..compiler.sources import Build
from ..config import Config
from ..search import canaries
from ..engine.database import check_database, replayed_first
from ..engine.discovery import Item, machine_files
from ..engine.events import ExampleFinished, LoadFailed, MachineFinished, RunStarted, StoreWarning
from ..engine.item import prepare
from ..engine.records import kept
from ..engine.settings import Overrides, keep_hypothesis_storage, run_seed
from ..engine.item import told_once
from ..errors import ResourceError, UsageError
from ..units import duration_seconds
from ..evm.factory import for_campaign
from ..failures import FailureIdentity, FailureRecord, FailureStore
from . import pool
from .cluster import DaskWorkers
from .events import (  # noqa: F401  (importable from here too)
    CampaignEvent, CampaignFinished, CampaignProgress, CampaignStarted, CampaignSummary, FailureReplaced, ItemTotals,
)
from .events import FailureTally
from .pool import Pool, WorkerCrashed, worker_killed
from .shards import Outcome, ProjectBundle, Shard, Workers
from .interrupts import Grace, sigint_count

# -- durations ------------------------------------------------------------------------

def parse_duration(text: str) -> float:
    """Seconds in "30s", "10m", "1h", "1h30m" or "90" (seconds)."""
    seconds = duration_seconds(text)
    if seconds is None:
        raise UsageError(f"--time {text!r}: give a duration such as 30s, 10m, 1h or 1h30m")
    return seconds


class LocalWorkers:
    """Processes on this machine (evmstate.scale.pool.Pool), loading the project in place."""

    def __init__(self, source: Any, workers: int) -> None:
        self.pool = Pool(source, workers)
        self.description = f"{workers} local worker{'s' if workers != 1 else ''}"
        self.shrinking: set[int] = set()  # workers whose shard found a failure
        self.counts: dict[int, tuple[int, int]] = {}  # worker -> (runs, steps) its running shard told
        self.failing: set[str] = set()  # machines a shard found a failure in

    def free(self) -> int:
        return len(self.pool.idle())

    def submit(self, shard: Shard) -> None:
        self.pool.send(self.pool.idle()[0], shard)

    def collect(self, timeout: float) -> list[Outcome]:
        out = []
        for m, task in self.pool.receive(timeout):
            if m.kind == "crashed":
                where = f" while running {m.key}" if m.key else " while loading the project"
                raise WorkerCrashed(f"worker process {m.worker} failed{where}:\n{m.payload}")
            if m.kind == "killed":
                raise worker_killed(m, self.pool.processes[m.worker].pid)
            if m.kind == "event":
                if isinstance(m.payload, ExampleFinished):
                    self.counts[m.worker] = (m.payload.examples, m.payload.steps)
                elif isinstance(m.payload, StoreWarning):  # told as it happens, not when the shard ends
                    if task is not None:
                        out.append(Outcome("warning", task, message=m.payload.message))
                else:  # FailureFound: the shard shrinks a failure of its own; the machine's other shards stop
                    self.shrinking.add(m.worker)
                    if task is not None:
                        self.failing.add(task.key)
                        self.retire(task.key)
                continue
            self.shrinking.discard(m.worker)
            self.counts.pop(m.worker, None)
            if task is None:
                continue
            out.append(
                Outcome(m.kind, task, m.payload if m.kind == "done" else None, m.payload if m.kind == "refused" else "")
            )
        return out

    def running(self) -> int:
        return len(self.pool.busy)

    def live(self) -> tuple[int, int]:
        return sum(r for r, _ in self.counts.values()), sum(s for _, s in self.counts.values())

    def shrinking_now(self) -> int:
        return len(self.shrinking & set(self.pool.busy))

    def interrupt(self) -> None:
        self.pool.interrupt()

    def lend(self) -> None:
        self.pool.lend()

    def retire(self, key: str) -> None:
        self.pool.retire([w for w, task in self.pool.busy.items() if task.key == key and w not in self.shrinking])

    def close(self) -> None:
        self.pool.close()


@dataclass(frozen=True)
class CampaignOptions:
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    overrides: Overrides = Overrides()  # max_examples: examples per shard
    budget: float | None = None  # seconds; None runs until Ctrl-C
    workers: int = 1  # local processes
    cluster: str | None = None  # a Dask scheduler's address
    # a machine that failed is fuzzed no further (--stop-on-failure); by default it keeps going: a run that fails as a
    # failure found before is counted under it and the search goes on, and each new failure is shrunk and saved
    stop_on_failure: bool = False


def fuzz(
    config: Config, options: CampaignOptions, emit: Callable[[CampaignEvent], None], workers: Workers | None = None
) -> CampaignSummary:
    """Run a campaign: discover, start the workers, hand them shards until the budget ends or Ctrl-C."""
    check_database(config)  # a Redis server that does not answer is an error before anything runs
    keep_hypothesis_storage(config)
    config = for_campaign(config)
    if workers is None and options.cluster is None:
        pool.start_early(config.environment)  # the workers' imports, while this process discovers and compiles
    machine_files(config, tuple(options.paths))  # a path that is not there is an error before the seed is told
    seed = run_seed(config.hypothesis, options.overrides)
    fresh = options.overrides.fresh
    emit(RunStarted(seed, config.origin, fresh, None if fresh else replayed_first(config, corpus=True)))
    summary = CampaignSummary(seed=seed)
    emit = told_once(summary.store_warnings, emit)  # each store that failed, told once whichever worker met it
    # local workers build their projects from its compiled contracts
    prepared = prepare(config, options.paths, options.keyword, emit)
    summary.load_errors.extend(prepared.load_errors)
    summary.nothing = prepared.nothing
    project = prepared.project
    if project is None or not prepared.items:
        return summary
    keys = [i.id for i in prepared.items]
    started = time.monotonic()
    summary.started_at = time.time()
    with sigint_count() as sigints:
        if workers is None:
            workers = open_workers(config, options, project.build)
        given_up = False
        try:
            emit(CampaignStarted(options.budget, workers.description, tuple(keys), config.backend.name))
            started = _drive(config, options, keys, workers, summary, emit, started, seed, sigints)
        except KeyboardInterrupt:
            # a second Ctrl-C, or shards that did not stop within interrupts.GRACE of the first: the workers are
            # ended, and what the campaign found and ran so far is reported all the same, as `evmstate run` reports
            summary.interrupted = given_up = True
        finally:
            workers.close()
    if not summary.interrupted:
        _not_searched(prepared.items, summary, emit, options.budget)
    # from the clock's start (_drive's); given up inside _drive, from the last time it was read
    summary.elapsed = time.time() - summary.started_at if given_up else time.monotonic() - started
    summary.workers = workers.description
    return summary


def open_workers(config: Config, options: CampaignOptions, build: Build | None = None) -> Workers:
    """Dask's workers, or local ones (which build the project from build, when given: the contracts compiled here)."""
    if options.cluster is not None:
        return DaskWorkers(
            options.cluster, ProjectBundle.of(config, options.paths, options.keyword, pool.loaded_modules())
        )
    source = pool.ProjectSource(
        config, pool.absolute_paths(options.paths), options.keyword, pool.loaded_modules(), build
    )
    return LocalWorkers(source, options.workers)


def _clock_starts(budget: float | None, workers: Workers, waited: float) -> bool:
    """Whether a campaign's budget starts counting, its workers waited for for waited seconds.

    The budget counts from when a worker is first ready to run a shard (its imports done and the project loaded), as
    `evmstate run`'s search starts once its own process has imported and compiled: on a busy machine a worker's start
    takes seconds, which a short budget would otherwise spend before any run. Workers not ready after as long again as
    the budget start the clock anyway (and a machine no run of which started is then an error, never "no failure").
    No shard starts before the clock: a worker that became ready since the check would get no time limit.
    """
    return budget is None or workers.free() > 0 or waited >= budget


def _drive(
    config: Config, options: CampaignOptions, keys: list[str], workers: Workers, summary: CampaignSummary,
    emit: Callable[[CampaignEvent], None], started: float, seed: int, sigints: list[int],
) -> float:
    store = FailureStore.of(config)
    clock: float | None = None  # when the budget started
    deadline: float | None = None
    submitted = {k: 0 for k in keys}
    summary.items = {k: ItemTotals() for k in keys}
    live = list(keys)  # still fuzzed: not in error (and, with stop_on_failure, not failed)
    saved: dict[tuple[str, FailureIdentity], MachineFinished] = {}  # the failure reported, per machine and identity
    # per machine, the failures found so far by identity, both as a run raises it and once shrunk: the id each is
    # counted under. Every shard started gets them, and goes past a run that fails so (keep-going)
    known: dict[str, dict[FailureIdentity, str]] = {k: {} for k in keys}
    keep_going = not options.stop_on_failure
    last_progress = 0.0

    def stop() -> None:
        summary.interrupted = True
        workers.interrupt()

    grace = Grace(sigints, stop)

    def progress() -> None:
        runs, steps = workers.live()  # of the shards still running
        emit(
            CampaignProgress(
                elapsed=time.monotonic() - clock if clock is not None else 0.0,
                budget=options.budget,
                shards=summary.shards,
                running=workers.running(),
                examples=summary.examples + runs,
                steps=summary.steps + steps,
                shrinking=workers.shrinking_now(),
                failures=len(summary.failures),
                branches=len(summary.branches) if summary.branches is not None else None,
                hits=sum(t.hits for t in summary.items.values()),
                best={
                    f"{key.rpartition('::')[2]}.{name}": o.value for key, found in summary.optima.items()
                    for name, o in found.items()
                },
            )
        )

    while True:
        interrupted = grace.check()
        now = time.monotonic()
        if clock is None and _clock_starts(options.budget, workers, now - started):
            clock = now = time.monotonic()  # read after the check: a worker seen ready has all of the budget
            summary.started_at = time.time()
            deadline = clock + options.budget if options.budget is not None else None
        time_left = deadline - now if deadline is not None else None
        accepting = clock is not None and bool(live) and not interrupted and (time_left is None or time_left > 0)
        if accepting:
            while live and workers.free() > 0:
                key = min(live, key=lambda k: (submitted[k], keys.index(k)))
                told = tuple(known[key].items())
                workers.submit(Shard(key, submitted[key], seed, options.overrides, time_left, known=told))
                submitted[key] += 1
                summary.items[key].shards += 1
                summary.shards += 1
        elif workers.running() == 0 and (clock is not None or interrupted):
            break
        elif clock is not None:
            workers.lend()  # no shard is left to start: idle workers help shrink
        for outcome in workers.collect(0.2):
            _record(outcome, summary, live, store, saved, emit, workers.retire, known if keep_going else None)
            if keep_going and outcome.kind == "done" and outcome.shard.key in known:
                # its failure is known now: the machine's next shards go past it
                workers.failing.discard(outcome.shard.key)
        # a machine with a failure being shrunk gets no more shards until it is known: they would find it again
        live[:] = [k for k in live if k not in workers.failing]
        if keep_going:
            again = [k for k in keys if k in live or summary.items[k].status == "failed"]
            live[:] = [k for k in again if k not in workers.failing]
        if time.monotonic() - last_progress >= 0.5:
            last_progress = time.monotonic()
            progress()
    progress()
    return clock if clock is not None else started  # when the campaign's clock started (_clock_starts)


def _record(
    outcome: Outcome, summary: CampaignSummary, live: list[str], store: FailureStore,
    saved: dict[tuple[str, FailureIdentity], MachineFinished], emit: Callable[[CampaignEvent], None],
    retire: Callable[[str], None], known: dict[str, dict[FailureIdentity, str]] | None = None,
) -> None:
    """What a shard's outcome adds to the campaign: its counts, its failure reported (once per identity), its errors.

    known, when the campaign keeps going: per machine, the failures found so far (see _drive), which this adds to.
    """
    key = outcome.shard.key
    totals = summary.items[key]
    if outcome.kind == "warning":
        emit(StoreWarning(outcome.message))
        return
    if outcome.kind == "refused":
        if key in live:
            live.remove(key)
            totals.status = "error"
            err = LoadFailed(key, outcome.message)
            summary.load_errors.append(err)
            emit(err)
        return
    if outcome.kind != "done" or outcome.result is None:
        return  # interrupted without a failure to report
    shard = outcome.result
    result = shard.result
    for message in shard.warnings:  # from a cluster's workers, which tell nothing before the shard ends
        emit(StoreWarning(message))
    sighting: tuple[float, int] | None = None
    if shard.found is not None:
        # when its first sighting was, and the runs before it: of the shards that had ended, and of this one
        when, runs = shard.found
        sighting = (max(0.0, when - summary.started_at), runs + sum(n for ended, n in totals.ended if ended <= when))
        if totals.found_after is None:
            totals.found_after, totals.runs_before = sighting
    for rid, n in result.hits.items():  # runs that failed as a failure the shard was told of
        if rid in totals.failures:
            totals.failures[rid].hits += n
    if result.optima:
        _best_kept(key, result, summary, store, emit, runs_before=totals.examples)
    totals.ended.append((time.time(), result.examples))
    summary.examples += result.examples
    summary.steps += result.steps
    summary.cpu += shard.cpu
    totals.examples += result.examples
    totals.corpus = result.statistics.get("corpus", totals.corpus)
    totals.loop = result.statistics.get("evmstate's own loop", totals.loop)
    totals.steps += result.steps
    totals.canaries = canaries.merged([totals.canaries, result.canaries])
    if shard.branches is not None:
        summary.branches = shard.branches if summary.branches is None else summary.branches | shard.branches
    if result.status == "error":
        # reported even when the machine left the campaign already (a shard of it found a failure): a shard
        # that could not run is an error, never "no failure"
        if key in live:
            live.remove(key)
        if totals.status != "error":
            totals.status = "error"
            summary.errors.append(result)
            emit(result)
    elif result.status == "failed" and shard.record is not None:
        if known is None:
            # stop_on_failure: the machine is fuzzed no further (every later shard would replay the saved failure first
            # and find it again)
            if key in live:
                live.remove(key)
                retire(key)
        totals.status = "failed"
        reported = _report_once(key, result, shard.record, summary, store, saved, emit)
        _tally(totals, shard.record, result, reported, sighting, known.setdefault(key, {}) if known is not None else {})


def _report_once(
    key: str, result: MachineFinished, record: FailureRecord, summary: CampaignSummary, store: FailureStore,
    saved: dict[tuple[str, FailureIdentity], MachineFinished], emit: Callable[[CampaignEvent], None],
) -> MachineFinished:
    """Report a failure the first time its machine fails with its identity; a shorter program for it later replaces
    the saved one.

    Returns the result reported for it (with its record's id).
    """
    assert result.failure is not None
    same = (key, record.identity)
    first = saved.get(same)
    if first is None:
        reported, problem = _saved(store, record, result)
        saved[same] = reported
        summary.failures.append(reported)
        emit(reported)
        if problem is not None:  # after the failure: what could not be written never hides it
            emit(StoreWarning(problem))
        return reported
    if first.failure is not None and result.failure.steps < first.failure.steps:
        # two shards shrank the same failure: keep the shorter program, report it once
        reported, problem = _saved(store, record, result)
        if problem is not None:
            emit(StoreWarning(problem))
            return first
        saved[same] = reported
        summary.failures[summary.failures.index(first)] = reported
        emit(
            FailureReplaced(
                key=key, old_id=first.failure_id, new_id=reported.failure_id or record.id, steps=result.failure.steps,
                program=tuple(result.failure.program),
            )
        )
        return reported
    return first


def _tally(
    totals: ItemTotals, record: FailureRecord, result: MachineFinished, reported: MachineFinished,
    sighting: tuple[float, int] | None, known: dict[FailureIdentity, str],
) -> None:
    """Count a failure a shard found and shrank under the failure it is: a new one, or one found before that its shrunk
    identity shows it to be (merged); known learns both its identities."""
    rid = reported.failure_id or record.id
    tally = totals.failures.get(rid)
    if tally is None:
        # saved again under another id
        for old in [t for t in totals.failures.values() if t.identity == record.identity]:
            rid, tally = old.id, old
    steps = reported.failure.steps if reported.failure is not None else len(record.steps)
    if tally is None:
        found_after, runs_before = sighting if sighting is not None else (None, None)
        totals.failures[rid] = FailureTally(rid, record.identity, steps, 1, found_after, runs_before)
    else:
        tally.hits += 1
        tally.steps = min(tally.steps, steps)
    known[record.identity] = rid
    if result.found_as is not None:
        known[result.found_as] = rid


def _best_kept(
    key: str, result: MachineFinished, summary: CampaignSummary, store: FailureStore,
    emit: Callable[[CampaignEvent], None], runs_before: int,
) -> None:
    """A shard's best value of each optimize method, kept where it beats the campaign's (higher, or as high and
    shorter), its record saved; when it was first reached counted from the campaign's start."""
    best = summary.optima.setdefault(key, {})
    started = time.time() - result.elapsed  # the shard's machine started about then
    for optimum in result.optima:
        known = best.get(optimum.name)
        if known is not None and (known.value, -len(known.recorded)) >= (optimum.value, -len(optimum.recorded)):
            continue
        seconds = max(0.0, started + optimum.seconds - summary.started_at)
        found = dataclasses.replace(optimum, seconds=seconds, runs=runs_before + optimum.runs, record=None)
        if optimum.record is not None:
            try:
                found = dataclasses.replace(found, record_id=store.keep(optimum.record).id)
            except ResourceError as exc:
                emit(StoreWarning(str(exc)))
        best[optimum.name] = found


def _not_searched(
    items: list[Item], summary: CampaignSummary, emit: Callable[[CampaignEvent], None], budget: float | None
) -> None:
    """Each machine or test no run of which started (the budget ended while the workers were starting): an error, never
    "no failure".
    """
    for item in items:
        key = item.id
        totals = summary.items.get(key)
        if totals is None or totals.status != "running" or totals.examples > 0:
            continue
        totals.status = "error"
        spent = f"budget of {budget:g}s" if budget is not None else "time"
        message = (
            f"{key} was not searched: the campaign's {spent} ended before any run of it started (worker "
            "processes start and load "
            "the project first, which takes seconds on a busy machine). Give a longer --time."
        )
        result = MachineFinished(
            name=item.name, kind=item.kind, path=item.path, status="error", examples=0, steps=0, elapsed=0.0,
            error=message,
        )
        summary.errors.append(result)
        emit(result)


def _saved(store: FailureStore, record: FailureRecord, result: MachineFinished) -> tuple[MachineFinished, str | None]:
    """Keep the record (one per failure: FailureStore.keep): the result with its id, or without one and why, when the
    folder cannot be written.
    """
    try:
        kept_now = store.keep(record)
    except ResourceError as exc:
        return dataclasses.replace(result, failure_id=None), str(exc)
    return kept(result, record, kept_now), None
