"""Runs state machines and property tests against a project and reports typed events; never prints.

The public facade of the library, one entry per command: run(), fuzz(), mutate(), replay(),
shrink(), export(), and what `evmstate failures`, `compile` and `init` ask for; with their options and
results. Each command's events end with a terminal one (RunFinished, CampaignFinished,
MutateFinished, ReplayFinished, ShrinkFinished), after Ctrl-C too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

# Each command imports what it runs when it runs (importing this module loads no Hypothesis, vyper,
# py-evm or eth-abi: `evmstate failures` and `evmstate init` need none of them). The fork server of
# `run -n`/`fuzz`/`mutate` preloads what their workers need (cli/launch.py, scale/pool.py).
from .config import Config, load as load_config, parse_mode, shown
from .engine.events import (
    Event,
    FailurePruned,
    Interrupted,
    LoadFailed,
    ReplayFinished,
    ReplayResult,
    ReplayStarted,
    ReplayStep,
    RunFinished,
    RunStarted,
    RunSummary,
    SavedFailure,
    ShrinkFinished,
    ShrinkReport,
    ShrinkStarted,
    StoreWarning,
)
from .errors import FailureRecordError, MachineDefinitionError, ResourceError, UsageError
from .failures import FailureRecord, FailureStore
from .hooks import ctrl_c_held

if TYPE_CHECKING:
    from .compiler.build import Build
    from .contracts.project import Project
    from .engine.item import RunOptions, RunRequest
    from .mutate.mutation import MutateOptions
    from .mutate.report import MutateEvent, MutationReport
    from .scale.campaign import CampaignOptions
    from .scale.events import CampaignEvent, CampaignSummary

# the rest of the facade, imported when first asked for (PEP 562): name -> the module it comes from
_FACADE = {
    "Overrides": "engine.settings",
    "RunOptions": "engine.item",
    "CampaignOptions": "scale.campaign",
    "parse_duration": "scale.campaign",
    "parse_workers": "config_checks",
    "MutateOptions": "mutate.mutation",
    "is_forked": "evm.fork.start",
    "with_fork": "evm.fork.start",
    "resolve_fork": "evm.fork.start",
    "differential_lines": "reports",
    "failure_text": "reports",
    "numbered": "reports",
}
_RENAMED = {"resolve_fork": "resolve"}


def __getattr__(name: str) -> Any:
    """A name of the facade defined elsewhere (the options of each command, and the texts every report shows)."""
    if name not in _FACADE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"evmstate.{_FACADE[name]}"), _RENAMED.get(name, name))
    globals()[name] = value
    return value


@dataclass(frozen=True)
class Reports:
    """The files a run writes when it ends, after Ctrl-C too (they hold what finished)."""

    junit_xml: Path | None = None
    json: Path | None = None
    coverage: tuple[tuple[str, Path], ...] = ()  # (lcov, html or json, where)


def with_differential(config: Config, mode: str | None) -> Config:
    """config with --differential MODE over [differential] mode; a ConfigError for a mode that is not one."""
    if mode is None:
        return config
    parse_mode(mode, "--differential")
    return config.replace(differential=dataclasses.replace(config.differential, mode=mode))


def run(config: Config, options: RunOptions, emit: Callable[[Event], None], outputs: Reports = Reports()) -> RunSummary:
    """Compile the project, discover machines and tests, run each and emit events; write the reports; RunFinished ends
    the events.

    Ctrl-C at any point ends the run with what finished: the summary says it was interrupted,
    and where (a failure found before is kept).
    """
    from .contracts import calls
    from .engine.database import check_database, replayed_first
    from .engine.discovery import machine_files
    from .engine.item import told_once
    from .engine.settings import keep_hypothesis_storage, run_seed
    from .engine.trace import GasStats
    from .evm.fork.start import resolve as resolve_fork

    if options.workers > 1 or options.shards > 1:
        from .scale import parallel  # noqa: F401  (loaded before the fork server starts, which preloads what is loaded)
    if options.only_stateful and options.no_stateful:
        raise UsageError("--only-stateful and --no-stateful exclude each other; give at most one")
    if options.keep_going and (options.workers > 1 or options.shards > 1):
        raise UsageError(
            "--keep-going searches each machine in this process: leave out -n and --shards, or run `evmstate fuzz`, "
            "whose campaigns keep going on every worker"
        )
    check_database(config)  # a Redis server that does not answer is an error before anything runs
    keep_hypothesis_storage(config)
    config = resolve_fork(config)  # the block pinned and the node checked before anything runs (no request when cached)
    if options.workers > 1:
        from .scale.pool import start_early

        start_early(config.environment)  # the workers' imports, while this process discovers and compiles
    machine_files(config, tuple(options.paths))  # a path that is not there is an error before the run's seed is told
    seed = run_seed(config.hypothesis, options.overrides)
    summary = RunSummary(seed=seed)
    emit = told_once(summary.store_warnings, emit)  # each store that failed, told once whichever worker met it
    fresh = options.overrides.fresh
    emit(RunStarted(seed, config.origin, fresh, None if fresh else replayed_first(config)))
    summary.stopped_in = "discovery"
    if options.gas:
        summary.gas = GasStats()
    try:
        with calls.recording(summary.gas) if summary.gas is not None else contextlib.nullcontext():
            _run_items(config, options, emit, summary)
        summary.stopped_in = None
    except KeyboardInterrupt:
        summary.interrupted = True
    emit(RunFinished(summary, _write(summary, outputs, emit)))
    return summary


def _write(summary: RunSummary, outputs: Reports, emit: Callable[[Event], None]) -> tuple[str, ...]:
    from .reports import write_json, write_junit

    todo: list[tuple[Path, Callable[[Path], None]]] = []
    if outputs.junit_xml is not None:
        todo.append((outputs.junit_xml, lambda p: write_junit(summary, p)))
    if outputs.json is not None:
        todo.append((outputs.json, lambda p: write_json(summary, p)))
    if summary.coverage is not None:
        coverage = summary.coverage
        todo += [(path, functools.partial(_coverage_to, coverage, kind)) for kind, path in outputs.coverage]
    return tuple(str(path) for path, write in todo if _written(path, write, emit))


def _coverage_to(coverage: Any, kind: str, path: Path) -> None:
    coverage.write(kind, path)


def _written(path: Path, write: Callable[[Path], None], emit: Callable[[Any], None]) -> bool:
    """Write a report: a disk that is full or read-only is a warning naming the file (the results were shown; the exit
    code stands)."""
    try:
        write(path)
    except OSError as exc:
        then = "the results shown above are all there is of this run"
        error = ResourceError.unwritable(f"the report {shown(path)}", shown(path.parent) + "/", exc, then)
        emit(StoreWarning(str(error)))
        return False
    return True


def fuzz(
    config: Config, options: CampaignOptions, emit: Callable[[CampaignEvent], None], *, json: Path | None = None
) -> CampaignSummary:
    """Fuzz for a time budget over workers (scale/campaign.py); write the JSON report (json: where); CampaignFinished
    ends the events."""
    from .reports import write_campaign_json
    from .scale import campaign
    from .scale.events import CampaignFinished

    summary = campaign.fuzz(config, options, emit)
    written: tuple[str, ...] = ()
    if json is not None and summary.nothing is None and _written(json, lambda p: write_campaign_json(summary, p), emit):
        written = (str(json),)
    emit(CampaignFinished(summary, written))
    return summary


def mutate(
    config: Config, options: MutateOptions, emit: Callable[[MutateEvent], None], *, json: Path | None = None,
    html: Path | None = None, min_score: float | None = None,
) -> MutationReport:
    """Judge the contracts' mutants (mutate/); write the report's files; MutateFinished ends the events, with the exit
    code (min_score: percent)."""
    from .mutate import mutation
    from .mutate.report import MutateFinished

    report = mutation.mutate(config, options, emit)
    written = []
    if report.nothing is None:
        for path, write in ((json, report.write_json), (html, lambda p: report.write_html(p, config.root))):
            if path is not None and _written(path, write, emit):
                written.append(str(path))
    emit(MutateFinished(report, tuple(written), report.exit_code(min_score), min_score))
    return report


# -- saved failures: replay, shrink, list, prune ------------------------------------------------


def replay(
    config: Config, failure_id: str | None, emit: Callable[[ReplayStarted | ReplayStep | ReplayFinished], None], *,
    fork_block: int | str | None = None,
) -> ReplayResult:
    """Replay a saved failure (None: the newest) step by step, without Hypothesis; ReplayFinished ends the events.

    fork_block: a forked failure replayed at this block instead of the one it was recorded at.
    """
    record = _record(config, failure_id)  # first: a failure that is not saved is said before the engine is imported
    from .engine.database import check_database
    from .engine.replay import replay as replay_record

    check_database(config)  # evmstate.toml's database is checked as by every command that runs machines
    if fork_block is not None and not record.settings.get("fork"):
        raise UsageError(
            f"--fork-block {fork_block}: failure {record.id} was found on a fresh chain, not on a fork, and replays on "
            "one: leave out --fork-block"
        )
    if fork_block is not None:
        record.settings["fork"] = {**record.settings["fork"], "block": fork_block}
    emit(ReplayStarted(record.id, record.path, record.name, record.interrupted, record.stopped))
    result = replay_record(config, record, emit)
    emit(ReplayFinished(record.id, result, _recorded(record)))
    return result


def shrink(
    config: Config, failure_id: str | None, emit: Callable[[ShrinkStarted | ShrinkFinished], None], *,
    seconds: float | None = None,
) -> ShrinkFinished:
    """Go on shrinking a saved failure (None: the newest) for at most seconds; a shorter program replaces the record."""
    store = FailureStore.of(config)
    record = store.last() if failure_id is None else store.load(failure_id)  # first, as replay() does
    from .engine.database import check_database
    from .engine.replay import shrink_record

    check_database(config)
    if record.optimum is not None:
        raise UsageError(
            f"{record.id} holds the best value of {record.name}.{record.optimum[0]}, not a failure: its program "
            "was made as short as it could be when it was found. Run `evmstate run` or `evmstate fuzz` again to "
            "look for a higher value"
        )
    emit(ShrinkStarted(record.id, record.path, record.name, len(record.steps)))
    result = shrink_record(config, record, seconds=seconds)
    if result.verdict in ("fixed", "fails differently"):
        finished = ShrinkFinished(
            verdict=result.verdict, id=record.id, new_id=record.id, message=result.message, recorded=_recorded(record)
        )
    else:
        new, unsaved = result.record, None
        try:
            with ctrl_c_held():  # the shorter program in place of the old one, both or neither
                new = store.keep(dataclasses.replace(result.record, id=result.record.identity.id), shrunk=True)
                if new.id != record.id:
                    store.path_of(record.id).unlink(missing_ok=True)  # keep() may have merged it already
        except ResourceError as exc:  # the program is shown all the same; the saved record stays as it was
            unsaved = str(exc)
        outcome = result.outcome
        passes = {k: (v.runs, v.seconds) for k, v in outcome.passes.items() if v.runs}
        gains = {k: (v.work, v.steps, v.bits) for k, v in outcome.passes.items() if v.runs}
        report = ShrinkReport(
            first_steps=len(record.steps),
            hypothesis_steps=len(record.steps),
            steps=len(new.steps),
            seconds=result.seconds,
            runs=0,
            replays=outcome.replays,
            passes=passes,
            gains=gains,
            tried=outcome.tried,
            replayed_on=outcome.replayed_on or "",
            minimality=outcome.minimality,
        )
        finished = ShrinkFinished(
            verdict=result.verdict,
            id=record.id,
            new_id=new.id if unsaved is None else record.id,
            program=tuple(new.program),
            steps=len(new.steps),
            report=report,
            stopped=new.stopped,
            unsaved=unsaved,
            interrupted=new.interrupted,
        )
    emit(finished)
    return finished


def saved_failures(config: Config, check: bool = False) -> list[SavedFailure]:
    """The saved failures, newest last, as `evmstate failures` lists them; check: replay each quietly and say whether it
    still fails."""
    store = FailureStore.of(config)
    ids = store.ids()
    if not ids:
        return []
    from .engine.replay import changed_sources, check as check_record, current_inputs

    inputs = current_inputs(config)
    found = []
    for rid in ids:
        try:
            rec = store.load(rid)
        except FailureRecordError as e:
            found.append(SavedFailure(rid, f"unreadable: {e}", verdict="unreadable"))
            continue
        message = (rec.error.get("message") or "").splitlines()[0] if rec.error.get("message") else ""
        cut = (
            " (interrupted while shrinking)" if rec.interrupted else " (shrinking stopped early)" if rec.stopped else ""
        )
        checked = check_record(config, store, rid) if check else None
        found.append(
            SavedFailure(
                rec.id,
                f"{rec.error.get('type')}: {message}",
                f"{rec.path}::{rec.name}{cut}",
                rec.created,
                "changed" if changed_sources(config, rec, inputs) else "same",
                checked.shown if checked is not None else "-",
                checked.verdict if checked is not None else "",
            )
        )
    return found


def remove_failure(config: Config, failure_id: str | None) -> str:
    """Remove a saved failure by its id or a unique prefix of it (None: every one): what `evmstate failures rm` says."""
    store = FailureStore.of(config)
    return f"removed {store.remove_all()} failures" if failure_id is None else f"removed {store.remove(failure_id)}"


def prune_failures(
    config: Config, emit: Callable[[FailurePruned], None], *, unreplayable: bool = False, dry_run: bool = False
) -> None:
    """Remove the records of a failure another record holds a shorter program of, then replay every saved failure and
    remove those that no longer fail (unreplayable: those that cannot be replayed too)."""
    from .engine.replay import check as check_record

    store = FailureStore.of(config)
    merged = set()
    for rid, kept in store.duplicates():
        steps = "1 step" if len(kept.steps) == 1 else f"{len(kept.steps)} steps"
        if not dry_run:
            store.path_of(rid).unlink(missing_ok=True)
        merged.add(rid)
        emit(FailurePruned(rid, True, f"the same failure as {kept.id}, which holds a shorter program: {steps}"))
    for rid in (r for r in store.ids() if r not in merged):
        result = check_record(config, store, rid)
        # unreadable records are never pruned: `evmstate failures rm` removes them on purpose
        remove = result.verdict == "fixed" or (unreplayable and result.verdict == "cannot replay")
        if remove and not dry_run:
            store.remove(rid)
        emit(FailurePruned(rid, remove, result.shown))


def export(config: Config, failure_id: str | None, target: str, *, compile_with: str = "forge") -> Exported:
    """A saved failure (None: the newest) as a test of another framework: target "pytest" or "foundry".

    compile_with: how a Foundry test gets the deploy code of the Vyper sources (solidity.foundry_test).
    """
    from .export.python import pytest_test, test_name
    from .export.solidity import forge_note, foundry_test, solidity_name

    record = _record(config, failure_id)
    if record.optimum is not None:
        raise UsageError(
            f"{record.id} holds the best value of {record.name}.{record.optimum[0]}, not a failure: there is no "
            "failure to export as a test. `evmstate replay` replays it and prints the value it reaches"
        )
    if target == "pytest":
        return Exported(record.id, pytest_test(record), f"{test_name(record)}.py")
    if target == "foundry":
        note = forge_note(config) if compile_with == "forge" else ""
        return Exported(record.id, foundry_test(config, record, compile_with), f"{solidity_name(record)}.t.sol", note)
    raise UsageError(f"cannot export to {target!r}: give pytest or foundry")


@dataclass(frozen=True)
class Exported:
    """A failure written as a test: the record's id, the test's text, and the file name it would have on its own."""

    id: str
    text: str
    file_name: str
    note: str = ""  # what to tell the user beside it (solidity.forge_note)


def _record(config: Config, failure_id: str | None) -> FailureRecord:
    store = FailureStore.of(config)
    return store.last() if failure_id is None else store.load(failure_id)


def _recorded(record: FailureRecord) -> str:
    return f"{record.error.get('type')}: {record.error.get('message')}"


# -- compile, init ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    """What `evmstate compile` shows: the build, the names it can compile, vyper's own release, and what precompiled
    contracts cannot show."""

    build: Build
    known: frozenset[str]
    vyper: str
    note: str | None


def compile_project(config: Config, names: tuple[str, ...] = ()) -> Compiled:
    """Compile the project's contracts (through the build cache), and the library modules named too."""
    from .compiler.build import build as build_project, precompiled_note
    from .compiler.sources import VYPER_VERSION

    config.check_sources()
    build = build_project(config, include=names)
    return Compiled(
        build, frozenset(build.sources) | {m.name for m in build.modules if m.in_project}, VYPER_VERSION,
        precompiled_note(build),
    )


def init(target: Path, force: bool = False, machine: str | None = None) -> tuple[list[Path], list[str]]:
    """Write a new project's files into target (or, given machine, a first machine for that contract).

    Returns the files written, and what to do next.
    """
    if machine is not None:
        from .properties.scaffold import write_machine

        config = load_config(target)
        path = write_machine(config, machine, force=force)
        relative = path.relative_to(config.root).as_posix()
        return [path], [f"the machine runs as it is: evmstate run {relative}; then decide what it marks DECIDE"]
    from .scaffold.project import init as scaffold, next_steps

    return scaffold(target, force=force), next_steps(target)


def _run_items(config: Config, options: RunOptions, emit: Callable[[Event], None], summary: RunSummary) -> None:
    from .engine.item import prepare

    kinds = frozenset(
        {"machine"} if options.only_stateful else {"test"} if options.no_stateful else {"machine", "test"}
    )
    flag = "--only-stateful" if options.only_stateful else "--no-stateful" if options.no_stateful else None

    def stage(name: str) -> None:
        summary.stopped_in = name

    prepared = prepare(config, options.paths, options.keyword, emit, kinds=kinds, flag=flag, stage=stage)
    summary.load_errors.extend(prepared.load_errors)
    items, project = prepared.items, prepared.project
    summary.total = len(items)
    if project is None:
        summary.nothing = prepared.nothing
        return
    summary.warnings = list(project.build.warnings)
    if options.coverage:
        from .search.session import collector_of

        if not project.backend.capabilities.coverage:
            raise UsageError(
                "coverage is not recorded while --backend-check runs every call on both backends; run with --backend "
                "pyevm or --backend revm"
            )
        collector = collector_of(project)
        collector.wanted = True
        project.fast_getters = False  # a getter read from storage runs no code: its line would look unreached
        try:
            _run_each(config, options, emit, summary, project, items)
        finally:  # after Ctrl-C too: the report holds what ran
            summary.coverage = collector.report(config.root)
        return
    _run_each(config, options, emit, summary, project, items)


def _run_each(
    config: Config, options: RunOptions, emit: Callable[[Event], None], summary: RunSummary, project: Project,
    items: list[Any],
) -> None:
    from .engine.item import RunRequest, run_item
    from .engine.native import own_loop

    seed = summary.seed
    assert seed is not None  # run() chose it before anything ran
    if options.workers > 1 or options.shards > 1:
        from .scale.parallel import run_items

        summary.stopped_in = "the machines and tests running"
        run_items(config, project, items, options, seed, summary, emit)
        return
    for k, item in enumerate(items, 1):
        summary.stopped_in = item.id
        try:
            request = RunRequest(
                overrides=options.overrides, save_failures=options.save_failures, seed=seed, capture=options.capture,
                position=(k, len(items)), native=own_loop(config),
            )
            if options.keep_going:
                _keep_going(config, project, item, request, emit, summary)
                continue
            result = run_item(config, project, item, request, emit)
        except MachineDefinitionError as exc:
            err = LoadFailed(item.id, str(exc))
            summary.load_errors.append(err)
            emit(err)
            continue
        except Interrupted as stop:
            emit(stop.result)
            summary.results.append(stop.result)
            raise
        emit(result)
        summary.results.append(result)
        if result.failure is not None and result.failure.interrupted:
            raise KeyboardInterrupt


def _keep_going(
    config: Config, project: Project, item: Any, request: RunRequest, emit: Callable[[Event], None], summary: RunSummary
) -> None:
    """One machine under --keep-going: each new failure reported as its search ends, in the summary with its hits."""
    from .engine.item import KeptGoing

    kept, start = KeptGoing(), len(summary.results)
    try:
        for result in kept.searches(config, project, item, request, emit):
            emit(result)
            summary.results.append(result)
            if result.failure is not None and result.failure.interrupted:
                raise KeyboardInterrupt
    finally:  # after Ctrl-C too: what was found is counted
        summary.results[start:] = [kept.counted(r) for r in summary.results[start:]]
