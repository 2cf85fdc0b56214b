"""Shards: one machine or test run under a campaign's seed and shard number, where it runs and what comes back.

What local workers and a Dask cluster share: the shard, its result, the project bundle shipped
to machines that do not have the project, and the Workers protocol.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import socket
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from ..config import Config
from ..engine.events import Event, ExampleFinished, FailureFound, MachineFinished, StoreWarning
from ..engine.item import RunRequest, run_item
from ..engine.settings import Overrides
from ..errors import UsageError
from ..failures import FailureRecord
from ..search.session import collector_of
from . import shrinking
from .pool import ProjectSource, retired

# -- shards ------------------------------------------------------------------------------


# seconds past a campaign's budget that shrinking a failure found near its end may take: with the
# trace, the record and the workers' exit, the campaign ends within 5 s of its budget
SHRINK_GRACE = 2.5


@dataclass(frozen=True)
class Shard:
    """One machine or test (key: path::name) run under the campaign's seed and its shard number."""

    key: str
    index: int
    seed: int  # the campaign's seed; the shard's own is shard_seed(seed, key, index)
    overrides: Overrides  # max_examples is the shard's examples
    budget: float | None  # seconds it may start runs for, from when it starts; None for no limit
    # the machine's failures found before (failures.FailureIdentity, the id each is counted under): a run that fails so
    # is counted and the shard goes on (RunSetup.known)
    known: tuple[tuple[Any, str], ...] = ()

    def run(self, state: Any, emit: Callable[[Event], None]) -> "ShardResult":
        return run_shard(state, self, emit)


@dataclass(frozen=True, kw_only=True)
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
    warnings: tuple[str, ...] = ()  # the StoreWarnings the shard met (what a cluster's worker could not tell as it ran)
    # when the shard first saw its failure (time.time(), comparable across processes), and the
    # runs it made before the failing one; None when it found none
    found: tuple[float, int] | None = None


_shard_lock = threading.RLock()  # one shard at a time per process: they share its project


# how often a running shard tells how far it got
PROGRESS_EVERY = 0.25


def _forwarded(emit: Callable[[Event], None] | None, found: list[tuple[float, int]]) -> Callable[[Event], None]:
    """What a shard tells the campaign: FailureFound at once, ExampleFinished every PROGRESS_EVERY seconds.

    found gets (when, runs before it) of the first FailureFound.
    """
    last = [0.0]

    def forward(event: Event) -> None:
        if isinstance(event, FailureFound) and not found:
            found.append((time.time(), max(0, event.examples - 1)))
        if emit is None:
            return
        if isinstance(event, (FailureFound, StoreWarning)):
            emit(event)
        elif isinstance(event, ExampleFinished) and time.monotonic() - last[0] >= PROGRESS_EVERY:
            last[0] = time.monotonic()
            emit(event)

    return forward


def run_task(
    state: Any, key: str, request: RunRequest, emit: Callable[[Event], None]
) -> tuple[MachineFinished, FailureRecord | None]:
    """The body of every worker's task: a shard of a campaign (run_shard) or of `run -n` (parallel.ItemTask).

    Runs the item as request says on the worker's loaded project (a pool.WorkerState) and returns
    its result, its shrink report saying what helper processes did, and the failure's record,
    which the parent keeps (a worker saves nothing).
    """
    records: list[FailureRecord] = []
    request = dataclasses.replace(request, keep=records.append)
    result = run_item(state.config, state.project, state.items[key], request, emit)
    return shrinking.told(result), (records[0] if records else None)


def run_shard(state: Any, shard: Shard, emit: Callable[[Event], None] | None = None) -> ShardResult:
    """Run one shard on a loaded project (a pool.WorkerState); emit gets FailureFound when a failure is found, and
    ExampleFinished now and then.
    """
    with _shard_lock:
        state.project.activate()
        cpu = time.process_time()
        stop: Callable[[], bool] = retired  # the machine failed in another shard
        shrink_by = None
        if shard.budget is not None:
            deadline = time.monotonic() + shard.budget
            stop = lambda: retired() or time.monotonic() >= deadline  # noqa: E731
            # a failure found near the end is shrunk for at most SHRINK_GRACE more seconds, so that
            # the campaign, its report included, ends within 5 s of its budget
            shrink_by = deadline + SHRINK_GRACE
        warnings: list[str] = []

        def told(event: Event) -> None:
            if isinstance(event, StoreWarning):
                warnings.append(event.message)
            forward(event)

        # the machine's saved guidance runs: every shard starts from them and adds to them
        # a machine's first shard is the search `evmstate run --seed` makes (the machine's seed, Hypothesis's loop, all
        # of its examples): what run finds, a campaign finds at the same run; the others draw in evmstate's own loop,
        # each under a seed of its own
        first = shard.index == 0 and state.items[shard.key].spec is not None  # a machine (a property test: as before)
        request = RunRequest(
            overrides=shard.overrides, seed=shard.seed, shard=None if first else shard.index, stop=stop, corpus=True,
            deadline=shrink_by, native=True, as_run=first, known=dict(shard.known),
        )
        found: list[tuple[float, int]] = []
        forward = _forwarded(emit, found)
        result, record = run_task(state, shard.key, request, told)
        # every branch this process reached so far: the campaign's union makes repeats harmless
        collector = collector_of(state.project)
        branches = collector.branch_ids() if collector.hits else None
        return ShardResult(
            shard=shard, result=result, record=record, cpu=time.process_time() - cpu,
            worker=f"{socket.gethostname()}:{os.getpid()}", branches=branches, warnings=tuple(warnings),
            found=found[0] if found and result.failure is not None else None,
        )


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
    def of(
        cls, config: Config, paths: tuple[str, ...], keyword: str | None, modules: tuple[str, ...] = ()
    ) -> "ProjectBundle":
        root = config.root.resolve()
        # the root itself (first on moccasin's search path) is not sent
        # whole: what it holds beyond these folders is not the project's
        folders = [config.contracts_dir, config.machines_dir, *(p for p in config.search_paths if p.resolve() != root)]
        relative = []
        for raw in paths:
            text, sep, selector = raw.partition("::")
            p = (Path.cwd() / text).resolve()
            try:
                rel = p.relative_to(root)
            except ValueError:
                raise UsageError(
                    f"{raw}: with --cluster, machine files must be inside the project folder ({root}), "
                    "which is sent to the workers"
                ) from None
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
                if not f.is_file() or any(
                    part in _SKIP for part in f.relative_to(root).parts if f.is_relative_to(root)
                ):
                    continue
                if not f.is_relative_to(root):
                    raise UsageError(
                        f"{f}: with --cluster, every file the project uses must be inside the project "
                        f"folder ({root}); move it there"
                    )
                name = f.relative_to(root).as_posix()
                if name not in found:
                    found[name] = f.read_bytes()
                    size += len(found[name])
        if size > MAX_BUNDLE:
            raise UsageError(
                f"the project's files add up to {size // 2**20} MiB, "
                f"more than the {MAX_BUNDLE // 2**20} MiB sent to a cluster's workers"
            )
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
        root = self.materialize()
        config = dataclasses.replace(
            self.config, root=root, path=root / self.config.path.name if self.config.path is not None else None
        )
        paths = tuple(str(root / p) for p in self.paths)
        return ProjectSource(config, paths, self.keyword, self.modules).open()


def run_bundle_shard(bundle: ProjectBundle, shard: Any) -> Any:
    """A shard (or any task with run(state, emit)) as a cluster runs it: the project loaded from its bundle, once per
    process.

    It runs in the project's folder, so that failures name files as they would where the
    campaign was started (from the project's root), and get the same ids.
    """
    # a Dask worker's own threads use the random module while a strategy draws, which
    # Hypothesis would take for the strategy's doing
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
    with _shard_lock:
        state = bundle.open()
        previous = os.getcwd()
        os.chdir(state.config.root)
        try:
            return shard.run(state, None)
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
    failing: set[str]  # machines a running shard found a failure in (as far as the workers tell)

    def free(self) -> int:
        """How many more shards it can start now."""

    def submit(self, shard: Shard) -> None: ...

    def collect(self, timeout: float) -> list[Outcome]:
        """The shards that ended within timeout."""

    def running(self) -> int: ...

    def live(self) -> tuple[int, int]:
        """(runs, steps) of the shards still running, as far as they told; (0, 0) where they cannot tell."""

    def shrinking_now(self) -> int:
        """How many running shards are shrinking a failure they found."""

    def interrupt(self) -> None:
        """Stop the shards running (Ctrl-C): each ends as Ctrl-C ends it in one process, where it can."""

    def retire(self, key: str) -> None:
        """Stop the running shards of a machine that failed, except those shrinking a failure of their own."""

    def lend(self) -> None:
        """No shard is left to start: idle workers may help those shrinking a failure (scale/shrinking.py)."""

    def close(self) -> None: ...
