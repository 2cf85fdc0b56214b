"""One discovered machine or property test, run and its failure saved: the same under pytest, workers and campaigns."""

from __future__ import annotations

import dataclasses
import inspect
import time
import traceback
from typing import Any, Callable

from hypothesis import settings as Settings

from ..config import Config
from ..contracts.project import Project
from ..errors import MachineDefinitionError
from ..failures import FailureRecord
from ..machine import collect
from .deployments import contracts_behind, names_behind
from .events import Event, LoadFailed, MachineFinished
from .fork import at_block
from .examples import ShrunkExamples, corpus_store, open_database
from .lifecycle import with_note
from .machines import run_machine
from .native import run_native
from .properties import run_test
from .records import failure_record, save_failure, with_id
from .settings import Overrides, build_settings, run_seed, shard_examples, shard_seed


# what a machine's __init__ or a property test may ask for besides contracts
BUILT_IN = frozenset({"accounts", "chain", "cls", "self"})


def asks_for_contracts(items: list[Any]) -> bool:
    """Whether any of the items asks for something only contracts can give (a machine or a test of
    plain Python asks for nothing, and runs without a contracts folder)."""
    for item in items:
        try:
            params = collect(item.obj).init_params if item.kind == "machine" else inspect.signature(item.obj).parameters
        except (MachineDefinitionError, AttributeError, TypeError, ValueError):
            return True  # cannot tell: as if it did
        if set(params) - BUILT_IN:
            return True
    return False


def names_asked(config: Config, items: list[Any]) -> list[str]:
    """The names the items ask for, and those the deployments they ask for ask for: the library modules among them are compiled on their own."""
    names: list[str] = []
    for item in items:
        try:
            params = collect(item.obj).init_params if item.kind == "machine" else inspect.signature(item.obj).parameters
        except (MachineDefinitionError, AttributeError, TypeError, ValueError):
            continue  # reported when the item runs
        names += [n for n in params if n not in BUILT_IN]
    return names_behind(names, config)


def unavailable_contracts(config: Config, project: Project, items: list[Any]) -> list[LoadFailed]:
    """One error per contract that does not compile, naming the machines and tests that ask for it."""
    asks: list[tuple[str, set[str]]] = []
    for item in items if project.build.errors else ():
        try:
            if item.kind == "machine":
                params = collect(item.obj).init_params
            else:
                params = inspect.signature(item.obj.hypothesis.inner_test).parameters
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
            message = f"contract {name!r} does not compile; needed by {', '.join(needed)} (they end as errors, the others run)"
        else:
            message = f"contract {name!r} does not compile (no machine or test here asks for it):\n{error}"
        errors.append(LoadFailed(shown, message, counted=not needed))
    return errors


def run_item(
    config: Config,
    project: Project,
    item: Any,
    overrides: Overrides,
    emit: Callable[[Event], None],
    *,
    save_failures: bool = True,
    seed: int | None = None,
    capture: bool = True,
    position: tuple[int, int] = (0, 0),
    shard: int | None = None,
    shards: int = 1,
    stop: Callable[[], bool] | None = None,
    keep: Callable[[FailureRecord], Any] | None = None,
    corpus: bool | Any = False,
    deadline: float | None = None,
    examples: bool = True,
    native: bool = False,
) -> MachineFinished:
    """Run one discovered machine or property test and save its failure; the same under pytest.

    seed is the run's seed (one is chosen when None); the item runs with its own seed derived
    from it and its id, unless the item pins one. Raises MachineDefinitionError, before running
    anything, when the item cannot be run as written, and Interrupted on Ctrl-C before anything
    failed. capture and position as for run_machine().

    shard, when given, numbers one of several runs of the item, each under a seed of its own
    (shard_seed); with shards > 1 it runs its part of the item's examples (shard_examples).
    stop() ends the item early (see run_machine). keep(record), when given, gets the failure
    record instead of the failure store (a worker hands it to the process that saves it).
    corpus: a machine starts from its saved guidance runs and adds the runs it keeps (campaigns);
    or the search.corpus.Corpus to use (evmstate mutate's, read only).
    deadline: a time.monotonic() by which a machine's shrinking ends, whatever its shrink_time.
    examples: with the example database (False: none, so nothing is replayed from it or saved to it).
    native: a machine's runs are drawn by evmstate's own loop where it can draw them (engine.native; campaigns).
    """
    where = f"{item.path}::{item.name}"
    given = collect(item.obj).settings if item.kind == "machine" else None
    with at_block(project, given, where):
        forked = config if project.config.fork == config.fork else config.replace(fork=project.config.fork)
        return _run_item(
            forked, project, item, overrides, emit, save_failures=save_failures, seed=seed, capture=capture, position=position,
            shard=shard, shards=shards, stop=stop, keep=keep, corpus=corpus, deadline=deadline, examples=examples, native=native,
        )


def _run_item(
    config: Config, project: Project, item: Any, overrides: Overrides, emit: Callable[[Event], None], *, save_failures: bool, seed: int | None,
    capture: bool, position: tuple[int, int], shard: int | None, shards: int, stop: Callable[[], bool] | None,
    keep: Callable[[FailureRecord], Any] | None, corpus: bool | Any, deadline: float | None, examples: bool, native: bool = False,
) -> MachineFinished:
    where = f"{item.path}::{item.name}"
    if seed is None:
        seed = run_seed(config.hypothesis, overrides)
    given = spec = None
    if item.kind == "machine":
        spec = collect(item.obj)
        given = spec.settings
    settings, pinned = build_settings(config.hypothesis, given or {}, overrides, spec.name if spec is not None else item.name)
    if shard is not None and shards > 1:
        settings = Settings(settings, max_examples=max(1, shard_examples(settings.max_examples, shard, shards)))
    own = shard_seed(pinned if pinned is not None else seed, where, shard)
    started = time.perf_counter()
    database = database_for(config, where) if examples else None
    try:
        if spec is not None:
            saved = None
            if corpus is True:
                from ..search.corpus import Corpus  # loaded only where a corpus is kept (see corpus_store)

                saved = Corpus.of(corpus_store(config), project, where)
            elif corpus is not False:
                saved = corpus
            run = run_native if native else run_machine
            result = run(spec, project, settings, own, emit, item.path, database=database, capture=capture, position=position, stop=stop, corpus=saved, deadline=deadline)
        else:
            result = run_test(item.obj, project, settings, own, emit, item.path, database=database, capture=capture, position=position, stop=stop)
    except (MachineDefinitionError, KeyboardInterrupt):
        raise
    except Exception:
        # evmstate itself failed: this item ends as an internal error, the others still run
        # on a fresh chain (the old one may be left anywhere), and the run exits 3
        project.renew_chain()
        return MachineFinished(
            name=item.name, kind=item.kind, path=item.path, status="error", examples=0, steps=0, elapsed=time.perf_counter() - started,
            error=f"internal error in evmstate while running {where}:\n{traceback.format_exc().rstrip()}",
            seed=own, max_examples=settings.max_examples, internal=True,
        )
    # a difference between backends is a finding about evmstate's backends, not a program to replay
    replayable = result.failure is not None and result.failure.error_type != "BackendDivergence"
    if replayable and keep is not None:
        record = failure_record(config, project, item, result, settings, seed)
        keep(record)
        return with_id(result, record.id)
    if replayable and save_failures:
        try:
            result = save_failure(config, project, item, result, settings, seed)
        except Exception as exc:  # the failure is still reported: only its record is missing
            assert result.failure is not None
            failure = with_note(result.failure, f"not saved, so `evmstate replay` cannot replay it: {type(exc).__name__}: {exc}")
            result = dataclasses.replace(result, failure=failure)
    return result


def database_for(config: Config, key: str) -> Any:
    """The example database ([database] url: .evmstate/examples by default), one namespace per machine or test."""
    return ShrunkExamples(open_database(config), key.encode())
