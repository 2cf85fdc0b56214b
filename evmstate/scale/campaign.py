"""Time-budgeted fuzzing campaigns: shards of (machine, seed) over workers until the time is up; never prints.

A shard runs one machine or property test under a seed of its own, for a number of examples,
and stops starting runs when its share of the budget is spent; a failure it finds is shrunk
where it runs and comes back as a record, which the campaign saves. Workers are local
processes (evmstate.scale.parallel) or Dask tasks on a cluster (evmstate.scale.cluster); both hand back
ShardResults, from which the campaign's progress is built.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from ..config import Config
from ..errors import UsageError
from ..failures import FailureRecord, FailureStore
from ..engine.events import FailureFound, LoadFailed, MachineFinished, NothingFound, RunStarted
from ..engine.item import run_item
from ..engine.settings import Overrides, keep_hypothesis_storage, run_seed
from ..search.session import collector_of

# -- durations ------------------------------------------------------------------------

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")


def parse_duration(text: str) -> float:
    """Seconds in "30s", "10m", "1h", "1h30m" or "90" (seconds)."""
    compact = text.strip().lower().replace(" ", "")
    pos, total = 0, 0.0
    while pos < len(compact):
        m = _PART.match(compact, pos)
        if m is None or (not m.group(2) and m.end() != len(compact)):
            break
        total += float(m.group(1)) * _UNITS[m.group(2) or "s"]
        pos = m.end()
    else:
        if compact and total > 0:
            return total
    raise UsageError(f"--time {text!r}: give a duration such as 30s, 10m, 1h or 1h30m")


# -- shards ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shard:
    """One machine or test (key: path::name) run under the campaign's seed and its shard number."""

    key: str
    index: int
    seed: int  # the campaign's seed; the shard's own is shard_seed(seed, key, index)
    overrides: Overrides  # max_examples is the shard's examples
    budget: float | None  # seconds it may start runs for, from when it starts; None for no limit

    def run(self, state: Any, emit: Callable[[Any], None]) -> "ShardResult":
        return run_shard(state, self, emit)


@dataclass(frozen=True)
class ShardResult:
    """How a shard ended: its counts, its result (with the failure, shrunk) and the failure's record."""

    shard: Shard
    result: MachineFinished
    record: FailureRecord | None
    cpu: float  # CPU seconds of the process while it ran
    worker: str = ""  # host:pid
    # branches hit, for a campaign's coverage figure: the union over shards is what the
    # campaign has covered. None until the engine reports coverage.
    branches: frozenset | None = None


_shard_lock = threading.RLock()  # one shard at a time per process: they share its project


def run_shard(state: Any, shard: Shard, emit: Callable[[Any], None] | None = None) -> ShardResult:
    """Run one shard on a loaded project (a parallel.WorkerState); emit gets FailureFound when a failure is found."""
    with _shard_lock:
        state.project.activate()
        item = state.items[shard.key]
        cpu = time.process_time()
        stop = None
        if shard.budget is not None:
            deadline = time.monotonic() + shard.budget
            stop = lambda: time.monotonic() >= deadline  # noqa: E731
        records: list[FailureRecord] = []
        found = (lambda e: emit(e) if isinstance(e, FailureFound) else None) if emit is not None else (lambda e: None)
        result = run_item(state.config, state.project, item, shard.overrides, found, seed=shard.seed, shard=shard.index, stop=stop, keep=records.append)
        # every branch this process reached so far: the campaign's union makes repeats harmless
        collector = collector_of(state.project)
        branches = collector.branch_ids() if collector.hits else None
        return ShardResult(shard, result, records[0] if records else None, time.process_time() - cpu, f"{socket.gethostname()}:{os.getpid()}", branches)


# -- a project shipped to machines that do not have it ----------------------------------------

_SKIP = {".evmstate", "__pycache__", ".git", ".hypothesis", ".venv"}
MAX_BUNDLE = 64 * 2**20


@dataclass(frozen=True)
class ProjectBundle:
    """A project's files (evmstate.toml, contracts, machines, search paths), to run it on machines that do not have it.

    open() writes them once per machine under the temporary folder, keyed by their hash, and
    loads the project from there with the config the campaign was started with.
    """

    config: Config
    files: tuple[tuple[str, bytes], ...]
    paths: tuple[str, ...]  # PATHS, relative to the root
    keyword: str | None
    modules: tuple[str, ...]
    digest: str

    @classmethod
    def of(cls, config: Config, paths: tuple[str, ...], keyword: str | None, modules: tuple[str, ...] = ()) -> "ProjectBundle":
        root = config.root.resolve()
        folders = [config.contracts_dir, config.machines_dir, *config.search_paths]
        relative = []
        for raw in paths:
            text, sep, selector = raw.partition("::")
            p = (Path.cwd() / text).resolve()
            try:
                rel = p.relative_to(root)
            except ValueError:
                raise UsageError(f"{raw}: with --cluster, machine files must be inside the project folder ({root}), which is sent to the workers") from None
            folders.append(p)
            relative.append(rel.as_posix() + sep + selector)
        found: dict[str, bytes] = {}
        if config.path is not None and config.path.is_file():
            found[config.path.name] = config.path.read_bytes()
        size = 0
        for folder in folders:
            folder = folder.resolve()
            candidates = [folder] if folder.is_file() else sorted(folder.rglob("*")) if folder.is_dir() else []
            for f in candidates:
                if not f.is_file() or any(part in _SKIP for part in f.relative_to(root).parts if f.is_relative_to(root)):
                    continue
                if not f.is_relative_to(root):
                    raise UsageError(f"{f}: with --cluster, every file the project uses must be inside the project folder ({root}); move it there")
                rel = f.relative_to(root).as_posix()
                if rel not in found:
                    found[rel] = f.read_bytes()
                    size += len(found[rel])
        if size > MAX_BUNDLE:
            raise UsageError(f"the project's files add up to {size // 2**20} MiB, more than the {MAX_BUNDLE // 2**20} MiB sent to a cluster's workers")
        files = tuple(sorted(found.items()))
        h = hashlib.sha256()
        for name, data in files:
            h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        return cls(config, files, tuple(relative), keyword, modules, h.hexdigest()[:20])

    def materialize(self, base: Path | None = None) -> Path:
        """The folder holding the project's files on this machine, written on first use."""
        base = base or Path(tempfile.gettempdir()) / "evmstate-projects"
        target = base / self.digest
        if target.is_dir():
            return target
        base.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=base, prefix=f".{self.digest}-"))
        for name, data in self.files:
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        try:
            os.rename(staging, target)
        except OSError:  # another process got there first: its copy is the same
            shutil.rmtree(staging, ignore_errors=True)
        return target

    def open(self) -> Any:
        from .parallel import ProjectSource

        root = self.materialize()
        config = dataclasses.replace(self.config, root=root, path=root / self.config.path.name if self.config.path is not None else None)
        paths = tuple(str(root / p) for p in self.paths)
        return ProjectSource(config, paths, self.keyword, self.modules).open()


def run_bundle_shard(bundle: ProjectBundle, shard: Shard) -> ShardResult:
    """A shard as a cluster runs it: the project loaded from its bundle, once per process.

    It runs in the project's folder, so that failures name files as they would where the
    campaign was started (from the project's root), and get the same ids.
    """
    import warnings

    # a Dask worker's own threads use the random module while a strategy draws, which
    # Hypothesis would take for the strategy's doing
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
    with _shard_lock:
        state = bundle.open()
        previous = os.getcwd()
        os.chdir(state.config.root)
        try:
            return run_shard(state, shard)
        finally:
            os.chdir(previous)


# -- workers --------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What came back for a shard: done (with its result), refused (a definition error), interrupted or crashed."""

    kind: str
    shard: Shard
    result: ShardResult | None = None
    message: str = ""


class Workers(Protocol):
    """Where shards run: local processes or a Dask cluster."""

    description: str

    def free(self) -> int:
        """How many more shards it can start now."""

    def submit(self, shard: Shard) -> None: ...

    def collect(self, timeout: float) -> list[Outcome]:
        """The shards that ended within timeout."""

    def running(self) -> int: ...

    def interrupt(self) -> None:
        """Stop the shards running (Ctrl-C): each ends as Ctrl-C ends it in one process, where it can."""

    def retire(self, key: str) -> None:
        """Stop the running shards of a machine that failed, except those shrinking a failure of their own."""

    def close(self) -> None: ...


class LocalWorkers:
    """Spawned processes on this machine (evmstate.scale.parallel.Pool), loading the project in place."""

    def __init__(self, source: Any, workers: int) -> None:
        from .parallel import Pool

        self.pool = Pool(source, workers)
        self.description = f"{workers} local worker{'s' if workers != 1 else ''}"
        self.shrinking: set[int] = set()  # workers whose shard found a failure

    def free(self) -> int:
        return len(self.pool.idle())

    def submit(self, shard: Shard) -> None:
        self.pool.send(self.pool.idle()[0], shard)

    def collect(self, timeout: float) -> list[Outcome]:
        from .parallel import WorkerCrashed

        out = []
        for m, task in self.pool.receive(timeout):
            if m.kind == "crashed":
                where = f" while running {m.key}" if m.key else " while loading the project"
                raise WorkerCrashed(f"worker process {m.worker} failed{where}:\n{m.payload}")
            if m.kind == "event":
                self.shrinking.add(m.worker)
                continue
            self.shrinking.discard(m.worker)
            if task is None:
                continue
            out.append(Outcome(m.kind, task, m.payload if m.kind == "done" else None, m.payload if m.kind == "refused" else ""))
        return out

    def running(self) -> int:
        return len(self.pool.busy)

    def interrupt(self) -> None:
        self.pool.interrupt()

    def retire(self, key: str) -> None:
        self.pool.interrupt([w for w, task in self.pool.busy.items() if task.key == key and w not in self.shrinking])

    def close(self) -> None:
        self.pool.close()


# -- events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignStarted:
    """Emitted once the workers are set up: the budget (None: until Ctrl-C), where shards run, what is fuzzed."""

    budget: float | None
    workers: str
    items: tuple[str, ...]


@dataclass
class ItemTotals:
    """One machine or test over the campaign so far."""

    shards: int = 0
    examples: int = 0
    steps: int = 0
    status: str = "running"  # running, failed, error


@dataclass(frozen=True)
class CampaignProgress:
    """Emitted as shards end (and at least every second): the campaign's totals so far."""

    elapsed: float
    budget: float | None
    shards: int
    running: int
    examples: int
    steps: int
    failures: int
    branches: int | None  # distinct branches hit over all shards; None until the engine reports them

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.elapsed if self.elapsed > 0 else 0.0


@dataclass
class CampaignSummary:
    """How a campaign went: totals, the failures found (each saved), the errors."""

    seed: int | None = None
    elapsed: float = 0.0
    cpu: float = 0.0
    shards: int = 0
    examples: int = 0
    steps: int = 0
    items: dict[str, ItemTotals] = field(default_factory=dict)
    failures: list[MachineFinished] = field(default_factory=list)
    errors: list[MachineFinished] = field(default_factory=list)
    load_errors: list[LoadFailed] = field(default_factory=list)
    branches: frozenset | None = None
    interrupted: bool = False
    nothing: str | None = None
    workers: str = ""

    @property
    def exit_code(self) -> int:
        """1 a failure was found, 2 errors, 5 nothing to fuzz, 130 stopped by Ctrl-C, else 0."""
        if self.failures:
            return 1
        if self.errors or self.load_errors:
            return 2
        if self.nothing is not None:
            return 5
        return 130 if self.interrupted else 0


@dataclass(frozen=True)
class CampaignFinished:
    """Emitted once at the end."""

    summary: CampaignSummary


# -- the campaign -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignOptions:
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    overrides: Overrides = Overrides()  # max_examples: examples per shard
    budget: float | None = None  # seconds; None runs until Ctrl-C
    workers: int = 1  # local processes
    cluster: str | None = None  # a Dask scheduler's address


# a Ctrl-C'd shard that has not answered after this long is ended with its process
GRACE = 15.0


def fuzz(config: Config, options: CampaignOptions, emit: Callable[[Any], None], workers: Workers | None = None) -> CampaignSummary:
    """Run a campaign: discover, start the workers, hand them shards until the budget ends or Ctrl-C."""
    from ..engine import discovery, examples, shrink as minimize, replay
    from . import parallel
    from .. import reports  # noqa: F401  (see runner.run)
    from ..contracts.project import Project
    from ..engine.item import unavailable_contracts

    keep_hypothesis_storage(config)
    seed = run_seed(config.hypothesis, options.overrides)
    emit(RunStarted(seed))
    summary = CampaignSummary(seed=seed)
    found = discovery.discover(config, options.paths, options.keyword)
    for err in found.errors:
        summary.load_errors.append(err)
        emit(err)
    if not found.items:
        if not found.errors:
            summary.nothing = discovery.nothing_found(config, found, options.paths, options.keyword, None)
            emit(NothingFound(summary.nothing))
        return summary
    project = Project(config)  # compiles into the build cache the local workers load from
    for err in unavailable_contracts(config, project, found.items):
        summary.load_errors.append(err)
        emit(err)
    keys = [parallel.item_id(i) for i in found.items]
    started = time.monotonic()
    with parallel.sigint_count() as sigints:
        if workers is None:
            workers = open_workers(config, options)
        try:
            emit(CampaignStarted(options.budget, workers.description, tuple(keys)))
            _drive(config, options, keys, workers, summary, emit, started, seed, sigints)
        finally:
            workers.close()
    summary.elapsed = time.monotonic() - started
    summary.workers = workers.description
    emit(CampaignFinished(summary))
    return summary


def open_workers(config: Config, options: CampaignOptions) -> Workers:
    from . import parallel

    if options.cluster is not None:
        from .cluster import DaskWorkers

        return DaskWorkers(options.cluster, ProjectBundle.of(config, options.paths, options.keyword, parallel.loaded_modules()))
    source = parallel.ProjectSource(config, parallel.absolute_paths(options.paths), options.keyword, parallel.loaded_modules())
    return LocalWorkers(source, options.workers)


def _drive(
    config: Config, options: CampaignOptions, keys: list[str], workers: Workers, summary: CampaignSummary, emit: Callable[[Any], None], started: float, seed: int, sigints: list[int]
) -> None:
    store = FailureStore(config.state_dir / "failures")
    deadline = started + options.budget if options.budget is not None else None
    submitted = {k: 0 for k in keys}
    summary.items = {k: ItemTotals() for k in keys}
    live = list(keys)  # still fuzzed: not failed, not in error
    saved: set[str] = set()
    last_progress = 0.0
    interrupted_at: float | None = None

    def progress() -> None:
        emit(
            CampaignProgress(
                time.monotonic() - started,
                options.budget,
                summary.shards,
                workers.running(),
                summary.examples,
                summary.steps,
                len(summary.failures),
                len(summary.branches) if summary.branches is not None else None,
            )
        )

    while True:
        now = time.monotonic()
        if sigints[0] and interrupted_at is None:
            interrupted_at = now
            summary.interrupted = True
            workers.interrupt()
        if sigints[0] > 1 or (interrupted_at is not None and now - interrupted_at > GRACE):
            raise KeyboardInterrupt
        time_left = deadline - now if deadline is not None else None
        accepting = bool(live) and interrupted_at is None and (time_left is None or time_left > 0)
        if accepting:
            while live and workers.free() > 0:
                key = min(live, key=lambda k: (submitted[k], keys.index(k)))
                workers.submit(Shard(key, submitted[key], seed, options.overrides, time_left))
                submitted[key] += 1
                summary.items[key].shards += 1
                summary.shards += 1
        elif workers.running() == 0:
            break
        for outcome in workers.collect(0.2):
            _record(outcome, summary, live, store, saved, emit, workers.retire)
        if time.monotonic() - last_progress >= 1.0:
            last_progress = time.monotonic()
            progress()
    progress()


def _record(outcome: Outcome, summary: CampaignSummary, live: list[str], store: FailureStore, saved: set[str], emit: Callable[[Any], None], retire: Callable[[str], None]) -> None:
    key = outcome.shard.key
    totals = summary.items[key]
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
    summary.examples += result.examples
    summary.steps += result.steps
    summary.cpu += shard.cpu
    totals.examples += result.examples
    totals.steps += result.steps
    if shard.branches is not None:
        summary.branches = shard.branches if summary.branches is None else summary.branches | shard.branches
    if result.status == "error":
        if key in live:
            live.remove(key)
            totals.status = "error"
            summary.errors.append(result)
            emit(result)
    elif result.status == "failed" and shard.record is not None:
        # a machine that failed is not fuzzed further: every later shard would replay the
        # saved failure first and find it again
        if key in live:
            live.remove(key)
            retire(key)
        totals.status = "failed"
        if shard.record.id not in saved:
            saved.add(shard.record.id)
            store.save(shard.record)
            reported = dataclasses.replace(result, failure_id=shard.record.id)
            summary.failures.append(reported)
            emit(reported)
