"""Failure records made from results: what is saved, with the versions and source hashes it was found with."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from importlib.metadata import version
from pathlib import Path
from typing import Any, Iterable

import hypothesis
from hypothesis import settings as Settings

from .. import __version__
from ..compiler.build import inputs as input_hashes
from ..compiler.sources import VYPER_VERSION, find_sources
from ..config import Config, DifferentialConfig
from ..contracts.project import Project
from ..evm.fork.start import record_fields
from ..failures import FailureRecord, FailureStore, record_id
from ..errors import ResourceError
from ..hooks import ctrl_c_held
from . import recorded
from .deployments import contracts_behind, deployments_used
from .discovery import Item
from .events import MachineFinished, Optimum
from .lifecycle import with_note


def with_id(result: MachineFinished, rid: str) -> MachineFinished:
    return dataclasses.replace(result, failure_id=rid)


def save_failure(
    config: Config, project: Project, item: Item, result: MachineFinished, settings: Settings, seed: int | None,
    used: Iterable[str] = (),
) -> MachineFinished:
    """Save the failure as a record (one per failure: see FailureStore.keep) and return the result carrying its id; seed
    is the run's. Ctrl-C waits until it is saved.

    used: the contracts deployed or attached while it ran.
    """
    with ctrl_c_held():
        record = failure_record(config, project, item, result, settings, seed, used)
        return kept(result, record, FailureStore.of(config).keep(record))


def save_optima(
    config: Config, project: Project, item: Item, result: MachineFinished, settings: Settings, seed: int | None,
    used: Iterable[str], here: bool,
) -> MachineFinished:
    """The result with a record of each optimize method's best value: saved (here), else carried for the campaign to
    keep. Ctrl-C waits until they are saved."""
    optima = []
    with ctrl_c_held():
        for optimum in result.optima:
            record = optimum_record(config, project, item, result, optimum, settings, seed, used)
            if here:
                optimum = dataclasses.replace(optimum, record_id=FailureStore.of(config).keep(record).id)
            else:
                optimum = dataclasses.replace(optimum, record_id=record.id, record=record)
            optima.append(optimum)
    return dataclasses.replace(result, optima=tuple(optima))


def best_of(optima: Iterable[Optimum]) -> tuple[Optimum, ...]:
    """The best of each optimize method among several shards' (the higher value, then the shorter program)."""
    best: dict[str, Optimum] = {}
    for o in optima:
        known = best.get(o.name)
        if known is None or (o.value, -len(o.recorded)) > (known.value, -len(known.recorded)):
            best[o.name] = o
    return tuple(best.values())


def keep_optima(store: FailureStore, optima: Iterable[Optimum]) -> tuple[tuple[Optimum, ...], list[str]]:
    """The records a worker built for its best values, kept in store (FailureStore.keep): the optima with their
    ids, and what could not be written."""
    found: list[Optimum] = []
    problems: list[str] = []
    for o in optima:
        if o.record is not None:
            try:
                o = dataclasses.replace(o, record_id=store.keep(o.record).id, record=None)
            except ResourceError as exc:  # a full or read-only disk: the value is reported all the same
                o, problems = dataclasses.replace(o, record_id=None, record=None), [*problems, str(exc)]
        found.append(o)
    return tuple(found), problems


def kept(result: MachineFinished, record: FailureRecord, saved: FailureRecord) -> MachineFinished:
    """The result with its record's id, and a note when the store kept a shorter program saved before for the same
    failure, or one as short with smaller numbers.
    """
    result = with_id(result, saved.id)
    if result.failure is None or saved.steps == record.steps:
        return result
    if len(saved.steps) < len(record.steps):
        steps = "1 step" if len(saved.steps) == 1 else f"{len(saved.steps)} steps"
        note = (
            f"a shorter program for this failure ({steps}) was saved before: "
            f"`evmstate replay {saved.id}` replays that one"
        )
    elif len(saved.steps) == len(record.steps) and saved.rank() < record.rank():
        note = (
            "a program for this failure as short as this one, with smaller numbers, was saved before: "
            f"`evmstate replay {saved.id}` replays that one"
        )
    else:
        return result
    return dataclasses.replace(result, failure=with_note(result.failure, note))


def failure_record(
    config: Config, project: Project, item: Item, result: MachineFinished, settings: Settings, seed: int | None,
    used: Iterable[str] = (),
) -> FailureRecord:
    """The record saving the result's failure would write; seed is the run's, used the contracts deployed or attached
    while it ran.
    """
    failure = result.failure
    assert failure is not None
    error, steps = failure.error.to_data(), recorded.to_data(failure.recorded)
    record = _record(config, project, item, result, settings, seed, used, error, steps, failure.program)
    return dataclasses.replace(record, interrupted=failure.interrupted, stopped=failure.stopped)


def optimum_record(
    config: Config, project: Project, item: Item, result: MachineFinished, optimum: Optimum, settings: Settings,
    seed: int | None, used: Iterable[str] = (),
) -> FailureRecord:
    """The record of an optimize method's best value (one per method: FailureStore.keep keeps the highest value, then
    the shortest program), beside the failures."""
    message = f"{optimum.name} reached {optimum.value}"
    error = {"type": "Optimum", "message": message, "optimize": optimum.name, "value": optimum.value}
    steps = recorded.to_data(optimum.recorded)
    record = _record(config, project, item, result, settings, seed, used, error, steps, optimum.program)
    return dataclasses.replace(record, stopped=optimum.stopped)


def _record(
    config: Config, project: Project, item: Item, result: MachineFinished, settings: Settings, seed: int | None,
    used: Iterable[str], error: dict[str, Any], steps: list[dict[str, Any]], program: list[str],
) -> FailureRecord:
    return FailureRecord(
        id=record_id(item.kind, item.path, item.name, error, steps),
        kind=item.kind,
        path=item.path,
        name=item.name,
        error=error,
        steps=steps,
        program=program,
        versions=versions(),
        hashes=source_hashes(
            config,
            project,
            item.path,
            uses=[*contracts_used(item, project), *used],
            deployments=deployments_used(item_names(item), config),
        ),
        settings={
            "max_examples": settings.max_examples,
            "stateful_step_count": settings.stateful_step_count,
            "hypothesis_seed": result.seed,
            **record_fields(project.config),
            **differential_fields(project.config),
        },
        seed=seed,
    )


def differential_fields(config: Config) -> dict[str, Any]:
    """What a failure record keeps of a differential run: its settings, which its replay runs with again."""
    d = config.differential
    if not d.on:
        return {}
    return {
        "differential": {
            "mode": d.mode,
            "storage": d.storage,
            "gas": d.gas,
            "revert_reasons": d.revert_reasons,
            "expected": [list(e) for e in d.expected],
        }
    }


def for_differential(config: Config, recorded: dict[str, Any] | None) -> Config:
    """The config a failure record replays with: the differential run it was found in, or none (whatever [differential]
    says now).
    """
    if not recorded:
        return config.replace(differential=DifferentialConfig())
    expected = tuple((str(f), str(a)) for f, a in recorded.get("expected", ()))
    return config.replace(
        differential=DifferentialConfig(
            str(recorded["mode"]),
            bool(recorded.get("storage")),
            bool(recorded.get("gas")),
            bool(recorded.get("revert_reasons")),
            expected,
        )
    )


def versions() -> dict[str, str]:
    """The versions of evmstate, vyper, py-evm and Hypothesis, as records and reports carry them."""
    return {
        "evmstate": __version__, "vyper": VYPER_VERSION, "py-evm": version("py-evm"),
        "hypothesis": hypothesis.__version__,
    }


def source_hashes(
    config: Config, project: Project | None, path: str, inputs: dict[str, str] | None = None, uses: Iterable[str] = (),
    deployments: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Hashes of every contract source, of every file they import and of the machine module, to tell when they changed.

    uses: the contracts the machine or test asked for, those its deployments ask for, and those
    deployed or attached while it ran; with a project, "uses" holds the files each of them
    compiles from, so that a record is stale only when one of those changed. deployments: the
    deployments file's hash when the machine or test asked for a deployment (deployments_used).
    """
    contracts = {p.stem: hashlib.sha256(p.read_bytes()).hexdigest() for p in find_sources(config.contracts_dir)}
    if project is not None:
        inputs = project.build.inputs
    elif inputs is None:
        inputs = input_hashes(config)
    module = config.root / path
    hashes: dict[str, Any] = {
        "contracts": contracts, "inputs": inputs,
        "module": hashlib.sha256(module.read_bytes()).hexdigest() if module.is_file() else None,
        # the project's own Python files the machine module imports (a shared model, a base machine): a change there
        # changes the machine as much as one in its own file
        "imports": {
            shown: hashlib.sha256((config.root / shown).read_bytes()).hexdigest()
            for shown in local_imports(module, config.root)
        } if module.is_file() else {},
    }
    if project is not None:
        hashes["uses"] = {
            name: project.build.inputs_of.get(name, {}) for name in sorted(set(uses)) if name in project.build.sources
        }
        hashes["deployments"] = deployments or {}
    return hashes


def local_imports(module: Path, root: Path, limit: int = 64) -> list[str]:
    """The project's own Python files (under root) that module imports, and those they import, as paths relative to
    root: read from their import statements and resolved as the machine loader puts them in reach (the importing
    file's folder; a package's __init__.py there), not installed packages (evmstate itself, in a project inside its
    repository). At most limit of them; files that do not parse are read as importing nothing."""
    root = root.resolve()
    start = module.resolve()
    found: list[str] = []
    seen = {start}
    queue = [start]
    while queue and len(found) < limit:
        path = queue.pop(0)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError):
            continue
        names: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.append(node.module)
                names.extend(f"{node.module}.{alias.name}" for alias in node.names)
        for name in names:
            target = path.parent.joinpath(*name.split("."))
            candidates = (target.with_name(target.name + ".py"), target / "__init__.py")
            hit = next((c for c in candidates if c.is_file()), None)
            if hit is None:
                continue
            hit = hit.resolve()
            if hit not in seen and hit.is_relative_to(root):
                seen.add(hit)
                queue.append(hit)
                found.append(hit.relative_to(root).as_posix())
    return sorted(found[:limit])


def item_names(item: Item) -> list[str]:
    """The names a machine's __init__ or a property test asks for (contracts and deployments among them)."""
    try:
        return list(item.parameters)
    except Exception:
        return []


def contracts_used(item: Item, project: Project) -> list[str]:
    """The contracts a machine's __init__ or a property test asks for, and those the deployments it asks for ask for."""
    return contracts_behind(item_names(item), project)
