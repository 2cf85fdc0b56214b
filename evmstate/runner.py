"""Runs state machines and property tests against a project and reports typed events; never prints.

The public facade of the engine: run(), RunOptions, RunSummary and Overrides.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

# Every module a run may need, loaded before anything runs (the fork server preloads this module,
# cli/launch.py). evmstate's own modules add nothing to the constants Hypothesis draws from
# (search/constants.py), so which of them are loaded changes no program.
from . import calls, reports  # noqa: F401
from .config import Config
from .contracts.project import Project
from .engine import discovery, examples, replay  # noqa: F401
from .engine.events import (
    Event,
    Interrupted,
    LoadFailed,
    RunStarted,
)
from .engine.item import RunRequest, prepare, run_item
from .engine.settings import Overrides, keep_hypothesis_storage, run_seed  # noqa: F401  (Overrides: part of the facade)
from .engine.summary import RunOptions, RunSummary
from .engine.trace import GasStats
from .errors import MachineDefinitionError, UsageError
from .evm.fork.start import resolve as resolve_fork
from .scale import campaign  # noqa: F401
from .scale.parallel import run_items, start_early
from .search.session import collector_of


def run(config: Config, options: RunOptions, emit: Callable[[Event], None]) -> RunSummary:
    """Compile the project, discover machines and tests, run each and emit events.

    Ctrl-C at any point ends the run with what finished: the summary says it was interrupted,
    and where (a failure found before is kept).
    """
    if options.only_stateful and options.no_stateful:
        raise UsageError("--only-stateful and --no-stateful exclude each other; give at most one")
    keep_hypothesis_storage(config)
    config = resolve_fork(config)  # the block pinned and the node checked before anything runs (no request when cached)
    if options.workers > 1:
        start_early()  # the workers' imports, while this process discovers and compiles
    seed = run_seed(config.hypothesis, options.overrides)
    summary = RunSummary(seed=seed)
    emit(RunStarted(seed, config.origin))
    summary.stopped_in = "discovery"
    if options.gas:
        summary.gas = GasStats()
    try:
        with calls.recording(summary.gas) if summary.gas is not None else contextlib.nullcontext():
            _run_items(config, options, emit, summary)
        summary.stopped_in = None
    except KeyboardInterrupt:
        summary.interrupted = True
    return summary


def _run_items(config: Config, options: RunOptions, emit: Callable[[Event], None], summary: RunSummary) -> None:
    kinds = frozenset({"machine"} if options.only_stateful else {"test"} if options.no_stateful else {"machine", "test"})
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
        if not project.backend.capabilities.coverage:
            raise UsageError("coverage is not recorded while --backend-check runs every call on both backends; run with --backend pyevm or --backend revm")
        collector = collector_of(project)
        collector.wanted = True
        project.fast_getters = False  # a getter read from storage runs no code: its line would look unreached
        try:
            _run_each(config, options, emit, summary, project, items)
        finally:  # after Ctrl-C too: the report holds what ran
            summary.coverage = collector.report(config.root)
        return
    _run_each(config, options, emit, summary, project, items)


def _run_each(config: Config, options: RunOptions, emit: Callable[[Event], None], summary: RunSummary, project: Project, items: list[Any]) -> None:
    seed = summary.seed
    if options.workers > 1 or options.shards > 1:
        summary.stopped_in = "the machines and tests running"
        return run_items(config, project, items, options, seed, summary, emit)
    for k, item in enumerate(items, 1):
        summary.stopped_in = f"{item.path}::{item.name}"
        try:
            request = RunRequest(overrides=options.overrides, save_failures=options.save_failures, seed=seed, capture=options.capture, position=(k, len(items)))
            result = run_item(config, project, item, request, emit)
        except MachineDefinitionError as exc:
            err = LoadFailed(f"{item.path}::{item.name}", str(exc))
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

