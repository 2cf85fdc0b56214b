"""One discovered machine or property test, run and its failure saved: the same under pytest, workers and campaigns."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
import time
import traceback
from typing import Any, Callable, Iterator

from hypothesis import settings as Settings

from ..compiler.build import differential_note, precompiled_note
from ..config import Config
from ..contracts.project import Project
from ..evm.factory import check_backend
from ..errors import MachineDefinitionError, ResourceError, from_ctrl_c
from ..failures import FailureIdentity, FailureRecord
from . import discovery
from .deployments import contracts_behind, names_behind
from .tracebacks import shown_path
from .discovery import Item
from .events import (
    CompileFinished, CompileStarted, Event, LoadFailed, MachineFinished, NothingFound, PrologueEvent, StoreWarning,
)
from .fork import at_block
from .database import Fallible, ShrunkExamples, corpus_store, open_database
from .lifecycle import with_note
from .machine_run import MachineRun
from .native import NativeMachineRun
from .property_run import PropertyRun
from . import recorded
from .records import failure_record, save_failure, save_optima, with_id
from .settings import Overrides, RunSetup, build_settings, run_seed, shard_examples, shard_seed


# what a machine's __init__ or a property test may ask for besides contracts
BUILT_IN = frozenset({"accounts", "chain", "cls", "self"})


def asks_for_contracts(items: list[Item]) -> bool:
    """Whether any of the items asks for something only contracts can give (a machine or a test of
    plain Python asks for nothing, and runs without a contracts folder)."""
    for item in items:
        try:
            params = item.asks
        except (MachineDefinitionError, AttributeError, TypeError, ValueError):
            return True  # cannot tell: as if it did
        if set(params) - BUILT_IN:
            return True
    return False


def names_asked(config: Config, items: list[Item]) -> list[str]:
    """The names the items ask for, and those the deployments they ask for ask for: the library modules among them are
    compiled on their own.
    """
    names: list[str] = []
    for item in items:
        try:
            params = item.asks
        except (MachineDefinitionError, AttributeError, TypeError, ValueError):
            continue  # reported when the item runs
        names += [n for n in params if n not in BUILT_IN]
    return names_behind(names, config)


def unavailable_contracts(config: Config, project: Project, items: list[Item]) -> list[LoadFailed]:
    """One error per contract that does not compile, naming the machines and tests that ask for it."""
    asks: list[tuple[str, set[str]]] = []
    for item in items if project.build.errors else ():
        try:
            params = item.parameters
        except (MachineDefinitionError, AttributeError, TypeError, ValueError):
            continue  # reported when the item runs
        asks.append((item.name, set(params) | set(contracts_behind(params, project))))
    errors = []
    for name, error in project.build.errors.items():
        path = project.build.sources[name]
        try:
            shown = str(path.relative_to(config.root))
        except ValueError:
            shown = str(path)
        needed = [n for n, params in asks if name in params]
        if needed:
            message = (
                f"contract {name!r} does not compile; needed by {', '.join(needed)} (they end "
                "as errors, the others run)"
            )
        else:
            message = f"contract {name!r} does not compile (no machine or test here asks for it):\n{error}"
        errors.append(LoadFailed(shown, message, counted=not needed))
    return errors


@dataclass
class Prepared:
    """What a run or a campaign starts from: the items to run, the project they run on, and why nothing may run."""

    items: list[Item]
    project: Project | None = None  # None when nothing was found
    load_errors: list[LoadFailed] = field(default_factory=list)  # emitted already
    nothing: str | None = None  # why nothing was found (NothingFound emitted already)


def prepare(
    config: Config,
    paths: tuple[str, ...],
    keyword: str | None,
    emit: Callable[[PrologueEvent], None],
    *,
    kinds: frozenset[str] = frozenset({"machine", "test"}),
    flag: str | None = None,
    stage: Callable[[str], None] = lambda name: None,
) -> Prepared:
    """The prologue of `evmstate run` and `evmstate fuzz`: discovery, its errors, the project compiled, the contracts
    that do not compile.

    kinds: the kinds of items kept (flag: the option that chose them, for the nothing-found
    message). stage("compiling") is called before the contracts are compiled (a Ctrl-C there is
    reported as such). With errors and no items the project is still compiled, as a run shows it.
    """
    found = discovery.discover(config, paths, keyword)
    prepared = Prepared([], load_errors=list(found.errors))
    for err in found.errors:
        emit(err)
    for item in found.items:
        if item.kind not in kinds:
            continue
        try:
            item.settings  # the machine read, and its settings checked: a definition error now, before anything runs
        except MachineDefinitionError as exc:
            err = LoadFailed(item.id, str(exc))
            prepared.load_errors.append(err)
            emit(err)
            continue
        prepared.items.append(item)
    if not prepared.items and not prepared.load_errors:
        prepared.nothing = discovery.nothing_found(config, found, paths, keyword, flag)
        emit(NothingFound(prepared.nothing))
        return prepared
    if asks_for_contracts(prepared.items):
        config.check_sources()
    check_backend(config)  # a backend that cannot run this chain is refused before the compile, not after it
    stage("compiling")
    emit(CompileStarted(shown_path(str(config.contracts_dir))))
    compiling = time.perf_counter()
    project = prepared.project = Project(config, want=names_asked(config, prepared.items))
    build = project.build
    seconds = time.perf_counter() - compiling
    note = "\n".join(n for n in (precompiled_note(build), differential_note(build)) if n) or None
    emit(
        CompileFinished(
            len(build.artifacts),
            len(set(build.cached) & set(build.artifacts)),
            seconds,
            len(build.errors),
            tuple(build.warnings),
            note,
        )
    )
    if build.cache_error is not None:
        emit(StoreWarning(build.cache_error))
    for err in unavailable_contracts(config, project, prepared.items):
        prepared.load_errors.append(err)
        emit(err)
    return prepared


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """How one machine or property test is to run: everything run_item() needs besides the project, the item and where
    its events go.
    """

    overrides: Overrides = Overrides()  # the command line's settings
    # the run's seed (one is chosen when None); the item runs
    # under one derived from it and its id, unless it pins its own
    seed: int | None = None
    position: tuple[int, int] = (0, 0)  # (k, total): the k-th machine or test of a run
    capture: bool = True  # keep what the machine prints, shown only for the reported program
    stop: Callable[[], bool] | None = None  # asked before every run until one fails: True ends the item early
    shard: int | None = None  # numbers one of several runs of the item, each under a seed of its own (shard_seed)
    shards: int = 1  # with shards > 1, a shard runs its part of the item's examples (shard_examples)
    # gets the failure record instead of the failure store (a worker's)
    keep: Callable[[FailureRecord], Any] | None = None
    # True: a machine starts from its saved guidance runs and adds those it keeps (campaigns); or the
    # search.corpus.Corpus to use (evmstate mutate's, read only)
    corpus: bool | Any = False
    deadline: float | None = None  # a time.monotonic() by which a machine's shrinking ends, whatever its shrink_time
    examples: bool = True  # with the example database (False: nothing is replayed from it or saved to it)
    save_failures: bool = True
    # a machine's runs drawn by evmstate's own loop where it can draw them (engine.native; campaigns)
    native: bool = False
    known: dict[Any, str] = field(default_factory=dict)  # failures found before, counted and gone past (RunSetup.known)
    # with native: Hypothesis's loop all the same, all of run's examples (RunSetup.as_run: a campaign's first shard)
    as_run: bool = False
    trace: bool = True  # the failure with its trace (False: mutate, which reads only who killed a mutant)


def run_item(
    config: Config, project: Project, item: Item, request: RunRequest, emit: Callable[[Event], None]
) -> MachineFinished:
    """Run one discovered machine or property test as request says, and save its failure; the same under pytest.

    Raises MachineDefinitionError, before running anything, when the item cannot be run as
    written, and Interrupted on Ctrl-C before anything failed.
    """
    where = item.id
    with at_block(project, item.spec.settings if item.spec is not None else None, where), project.watching() as used:
        forked = config if project.config.fork == config.fork else config.replace(fork=project.config.fork)
        return _run_item(forked, project, item, request, emit, used)


def _run_item(
    config: Config, project: Project, item: Item, request: RunRequest, emit: Callable[[Event], None], used: set[str]
) -> MachineFinished:
    overrides, shard, shards, seed, corpus = (
        request.overrides, request.shard, request.shards, request.seed, request.corpus,
    )
    capture, position, stop, deadline = request.capture, request.position, request.stop, request.deadline
    where = item.id
    if seed is None:
        seed = run_seed(config.hypothesis, overrides)
    spec = item.spec
    settings, pinned = build_settings(
        config.hypothesis, item.settings.hypothesis, overrides, spec.name if spec is not None else item.name
    )
    if shard is not None and shards > 1:
        settings = Settings(settings, max_examples=max(1, shard_examples(settings.max_examples, shard, shards)))
    own = shard_seed(pinned if pinned is not None else seed, where, shard)
    started = time.perf_counter()

    def warn(message: str) -> None:
        emit(StoreWarning(message))

    database = database_for(config, where, warn) if request.examples and not overrides.fresh else None
    try:
        if spec is not None:
            saved = None
            if corpus is True and not overrides.fresh:
                from ..search.corpus import Corpus  # loaded only where a corpus is kept (see corpus_store)

                saved = Corpus.of(corpus_store(config, warn), project, where)
            elif corpus is not False and corpus is not True:
                saved = corpus
            setup = RunSetup(
                item.path, database, capture, stop, trace=request.trace, corpus=saved, deadline=deadline,
                machine_settings=item.settings,
                known=request.known, as_run=request.as_run,
            )
            runner = NativeMachineRun if request.native else MachineRun
            result = runner(spec, project, settings, own, emit, setup).run(position)
        else:
            setup = RunSetup(item.path, database, capture, stop, trace=request.trace, known=request.known)
            result = PropertyRun(item.obj, project, settings, own, emit, setup).run(position)
    except (MachineDefinitionError, KeyboardInterrupt):
        raise
    except Exception as exc:
        if from_ctrl_c(exc):
            raise KeyboardInterrupt from exc  # raised on the way out of what a Ctrl-C stopped: the interruption's
        # evmstate itself failed: this item ends as an internal error, the others still run
        # on a fresh chain (the old one may be left anywhere), and the run exits 3
        project.renew_chain()
        return MachineFinished(
            name=item.name, kind=item.kind, path=item.path, status="error", examples=0, steps=0,
            elapsed=time.perf_counter() - started,
            error=f"internal error in evmstate while running {where}:\n{traceback.format_exc().rstrip()}", seed=own,
            max_examples=settings.max_examples, internal=True,
        )
    if result.optima and request.save_failures:
        try:
            result = save_optima(config, project, item, result, settings, seed, used, here=request.keep is None)
        except ResourceError as exc:  # a full or read-only disk: the best values are reported all the same
            warn(str(exc))
    # a difference between backends is a finding about evmstate's backends, not a program to replay
    replayable = result.failure is not None and result.failure.error_type != "BackendDivergence"
    if replayable and request.keep is not None:
        record = failure_record(config, project, item, result, settings, seed, used)
        request.keep(record)
        return with_id(result, record.id)
    if replayable and request.save_failures:
        try:
            result = save_failure(config, project, item, result, settings, seed, used)
        except ResourceError as exc:  # a full or read-only disk: the failure is reported all the same, then the warning
            warn(str(exc))
        except Exception as exc:  # the failure is still reported: only its record is missing
            assert result.failure is not None
            failure = with_note(
                result.failure, f"not saved, so `evmstate replay` cannot replay it: {type(exc).__name__}: {exc}"
            )
            result = dataclasses.replace(result, failure=failure)
    return result


class KeptGoing:
    """`evmstate run --keep-going` on one machine: run_item() again after each new failure, until a search finds none.

    Each search knows the failures found before (RunRequest.known: their identities as a run raised them and once
    shrunk), so a run that fails as one of them is counted under it and the search goes past it. Each search runs
    under the same seed: it makes the runs the one before made, and goes on where that one stopped. A failure whose
    shrunk identity is a known one's is merged into it (FailureStore.keep keeps one record of it).
    """

    def __init__(self) -> None:
        self.known: dict[FailureIdentity, str] = {}
        self.hits: dict[str, int] = {}  # by failure id: the runs that failed so, over every search

    def searches(
        self, config: Config, project: Project, item: Item, request: RunRequest, emit: Callable[[Event], None]
    ) -> Iterator[MachineFinished]:
        """The result of each search that found a new failure; and the last search's when none did."""
        found = False
        while True:
            result = run_item(config, project, item, dataclasses.replace(request, known=dict(self.known)), emit)
            for rid, n in result.hits.items():
                self.hits[rid] = self.hits.get(rid, 0) + n
            found_id, failure = result.failure_id, result.failure
            if failure is None or found_id is None or failure.interrupted:
                if not found or result.status != "passed":
                    yield result
                return
            error, steps = failure.error.to_data(), recorded.to_data(failure.recorded)
            identity = FailureIdentity.of(item.path, item.name, item.kind, error, steps)
            new = [i for i in (identity, result.found_as) if i is not None and i not in self.known]
            self.hits[found_id] = self.hits.get(found_id, 0) + 1
            for i in new:
                self.known[i] = found_id
            if self.hits[found_id] == 1:  # not merged into one reported before
                found = True
                yield result
            if not new:  # the search could not go past it: nothing more to learn
                return

    def counted(self, result: MachineFinished) -> MachineFinished:
        """The result with the runs that hit its failure over every search (MachineFinished.hits)."""
        rid = result.failure_id
        if rid is None or result.failure is None:
            return result
        return dataclasses.replace(result, hits={rid: self.hits.get(rid, 1)})


def database_for(config: Config, key: str, warn: Callable[[str], None] | None = None) -> Any:
    """The example database ([database] url: .evmstate/examples by default), one namespace per machine or test.

    warn is told, once, when the database fails (a server that died, a full disk): the run goes on without it.
    """
    return ShrunkExamples(open_database(config), key.encode(), Fallible.examples(config, warn))


# -- what a whole run was asked to do ---------------------------------------------------------------


def told_once(told: list[str], emit: Callable[[Any], None]) -> Callable[[Any], None]:
    """emit, passing each StoreWarning on once (workers each tell a store that failed them) and adding its message to
    told.
    """

    def emit_once(event: Any) -> None:
        if isinstance(event, StoreWarning):
            if event.message in told:
                return
            told.append(event.message)
        emit(event)

    return emit_once


@dataclass(frozen=True)
class RunOptions:
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    only_stateful: bool = False
    no_stateful: bool = False
    overrides: Overrides = Overrides()
    save_failures: bool = True
    capture: bool = True  # keep what machines print, and show it only for the reported program
    gas: bool = False  # gather gas per contract function (RunSummary.gas)
    workers: int = 1  # processes running machines and tests at once (evmstate.scale.pool)
    shards: int = 1  # seeds each machine's examples are split over
    coverage: bool = False  # record coverage everywhere, guidance on or off (RunSummary.coverage)
    keep_going: bool = False  # a machine that failed searches on for other failures (KeptGoing)
