"""Replays a saved failure step by step, without Hypothesis, and says whether it still fails."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import inspect
import io
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..contracts import calls
from ..compiler.build import inputs as input_hashes
from ..compiler.sources import find_sources
from ..config import Config
from ..contracts.contract import reverts
from ..contracts.project import Project
from ..contracts.revert import describe_revert
from ..errors import EvmStateError, FailureRecordError, MachineDefinitionError
from ..evm.factory import check_backend
from ..evm.fork.start import for_record
from ..failures import FailureRecord, FailureStore, decode_value, record_id
from ..spec.machine import MachineSpec, collect
from ..values import format_value
from . import recorded
from .tracebacks import ErrorInfo, FailureSignature, describe_error, failed_invariant, machine_error, user_error
from .verdicts import is_mistake, message_of, run_code, shown_type
from .events import CheckVerdict, ReplayResult, ReplayStep, ShrinkVerdict, Verdict  # noqa: F401  (ReplayResult, ReplayStep: importable from here too)
from .loader import load_module
from .program import (
    InitFailed,
    SetupFailed,
    init_class,
    provide,
    run_program,
)
from .recorded import RecordedStep, example_line, program_lines
from .lifecycle import search_session
from .optimize.best import read
from .records import for_differential, source_hashes
from .settings import MachineSettings
from .shrink.budget import Budget, StopReason, stopped_at
from .shrink.trials import shrink_program
from .delays import delay_lines
from .trace import Names, chain_text, event_text, when_text


def current_inputs(config: Config) -> dict[str, str]:
    """Every file the project's contracts compile from, as it is now: shown path -> sha256."""
    return input_hashes(config)


def changed_sources(config: Config, record: FailureRecord, inputs: dict[str, str] | None = None) -> list[str]:
    """Which contract sources, imported modules and machine module differ from when the record was made.

    inputs: the project's current_inputs(), when the caller checks many records (a differential run's record
    reads both its builds' own).
    """
    if record.settings.get("differential"):
        config, inputs = for_differential(config, record.settings["differential"]), None
    now = source_hashes(config, None, record.path, inputs=inputs)
    then = record.hashes or {}
    root = config.root.resolve()
    own = set()
    for p in find_sources(config.contracts_dir):
        with contextlib.suppress(ValueError):
            own.add(p.resolve().relative_to(root).as_posix())
    if then.get("uses") or "deployments" in then:
        # the record knows what its contracts were built from: only those files count
        changed = []
        for shown in sorted({shown for files in then["uses"].values() for shown in files}):
            was = next(files[shown] for files in then["uses"].values() if shown in files)
            if now["inputs"].get(shown) != was:
                changed.append(f"contracts: {Path(shown).stem}" if shown in own else f"imported: {shown}")
        for shown, was in (then.get("deployments") or {}).items():
            if _hash_of(config.root / shown) != was:
                changed.append(f"deployments: {shown}")
    else:
        # records made before: any contract or import counts (as it does for those that asked for
        # their contracts through deployments.py only, which named none of them)
        changed = _changed_anywhere(then, now, own)
    if then.get("module") != now["module"]:
        changed.append(f"machine module: {record.path}")
    for shown, was in (then.get("imports") or {}).items():
        if _hash_of(config.root / shown) != was:
            changed.append(f"imported by the machine: {shown}")
    return changed


def _hash_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _changed_anywhere(then: dict[str, Any], now: dict[str, Any], own: set[str]) -> list[str]:
    changed = []
    old_contracts, new_contracts = then.get("contracts", {}), now["contracts"]
    for name in sorted(set(old_contracts) | set(new_contracts)):
        if old_contracts.get(name) != new_contracts.get(name):
            changed.append(f"contracts: {name}")
    if "inputs" in then:  # records made before imports were hashed hold only the contracts
        old_inputs, new_inputs = then["inputs"], now["inputs"]
        for shown in sorted(set(old_inputs) | set(new_inputs)):
            if shown not in own and old_inputs.get(shown) != new_inputs.get(shown):
                changed.append(f"imported: {shown}")
    return changed


def replay(config: Config, record: FailureRecord, emit: Callable[[ReplayStep], None]) -> ReplayResult:
    """Rebuild the project, run the recorded steps one by one, and compare the outcome."""
    config = for_differential(config, record.settings.get("differential"))
    changed = changed_sources(config, record)
    project, target = _loaded(config, record)
    if record.kind == "test":
        return _replay_test(project, record, target, emit, changed)
    return _replay_machine(project, record, target, emit, changed)


def _loaded(config: Config, record: FailureRecord) -> tuple[Project, Any]:
    """The project rebuilt, and the machine class or test function the record names."""
    path = config.root / record.path
    if not path.is_file():
        raise FailureRecordError(f"failure {record.id}: {record.path} no longer exists; the machine cannot be replayed")
    try:
        module = load_module(path)
    except Exception as exc:
        raise FailureRecordError(
            f"failure {record.id}: cannot import {record.path}: {type(exc).__name__}: {exc}"
        ) from None
    target = getattr(module, record.name, None)
    if target is None:
        raise FailureRecordError(
            f"failure {record.id}: {record.path} has no {record.name} any more (renamed?); "
            "the record cannot be replayed"
        )
    config = for_differential(for_record(config, record.settings.get("fork")), record.settings.get("differential"))
    check_backend(config)  # refused before the project is compiled for a chain the backend cannot run
    return Project(config), target


def machine_of(config: Config, record: FailureRecord) -> tuple[Project, type]:
    """The project rebuilt and the machine class a record of a machine's failure names.

    FailureRecordError when either is gone.
    """
    return _loaded(config, record)


def ready_machine(project: Project, record: FailureRecord, cls: type) -> tuple[MachineSpec, tuple[RecordedStep, ...]]:
    """The machine's class-level __init__ run on the project, and the record's steps checked against its rules."""
    return _ready(project, record, cls)


def same_failure(record: FailureRecord, exc: BaseException, at: int) -> bool:
    """Whether exc, raised at step at of a replay, is the record's failure (as replay's verdict "still fails" says)."""
    return _outcome(record, exc, [], min(at, len(record.steps))).verdict == "still fails"


def _outcome(record: FailureRecord, exc: BaseException, changed: list[str], step: int) -> ReplayResult:
    """Same failure: the same signature, the line aside, at the same step.

    The message is not compared: it may quote values (ids, addresses) that the contract
    returned differently in this replay; nor is the line, which may have moved since.
    """
    error = ErrorInfo.of(exc)
    same = FailureSignature.of_error(error).same(
        FailureSignature.of_error(ErrorInfo.from_data(record.error)), where=False
    ) and step == len(record.steps)
    return ReplayResult("still fails" if same else "fails differently", error.type, error.message, changed)


def not_a_verdict(record: FailureRecord, exc: BaseException, at: int, lines: list[str]) -> None:
    """Raise FailureRecordError when the replay met a mistake of the machine (see verdicts): it says nothing of the
    contract, fixed or not."""
    if not is_mistake(exc):
        return
    if record.kind == "test":
        where, program = record.name, lines
    else:
        rule = record.steps[at - 1].get("rule") if 0 < at <= len(record.steps) else "setup"
        where, program = (
            f"{record.name}.{failed_invariant(exc) or rule}",
            program_lines(record.name, (line for step in lines for line in step.splitlines())),
        )
    raise FailureRecordError(f"failure {record.id} cannot be replayed: {machine_error(where, exc, program)}")


def recorded_steps(record: FailureRecord) -> tuple[RecordedStep, ...]:
    """The record's program as recorded steps; FailureRecordError when a step cannot be read."""
    try:
        return recorded.from_data(record.steps)
    except FailureRecordError as exc:
        raise FailureRecordError(f"failure {record.id}: {exc}") from None


def _ready(project: Project, record: FailureRecord, cls: type) -> tuple[MachineSpec, tuple[RecordedStep, ...]]:
    """The machine the record names, its class-level __init__ run, and the record's steps: ready to run."""
    try:
        spec = collect(cls)
    except MachineDefinitionError as exc:
        raise FailureRecordError(f"failure {record.id}: {exc}") from None
    by_name = {r.name: r for r in (*spec.initializers, *spec.rules)}
    steps = recorded_steps(record)
    for index, step in enumerate(steps, 1):
        if step.rule not in by_name:
            raise FailureRecordError(
                f"failure {record.id}: {record.name} has no rule {step.rule!r} any more (renamed?); "
                f"it has {', '.join(by_name)}"
            )
        takes = [p.name for p in by_name[step.rule].params]
        if set(step.arguments) != set(takes):
            # else the call raises a TypeError, which reads as a mistake in the machine's code
            raise FailureRecordError(
                f"failure {record.id}: step {index} calls {record.name}.{step.rule} with "
                f"{', '.join(step.arguments) or 'no arguments'}; the rule now takes {', '.join(takes) or 'none'}: "
                f"the machine changed since the failure was recorded, and its program cannot be replayed. Remove the "
                f"record with `evmstate failures rm {record.id}` (or every record that no longer replays with "
                "`evmstate failures prune --unreplayable`)"
            )
    try:
        init_class(spec, project)
    except MachineDefinitionError as exc:
        raise FailureRecordError(f"failure {record.id}: {exc}") from None
    except InitFailed as failed:
        raise FailureRecordError(
            f"failure {record.id} cannot be replayed: {user_error(f'{spec.name}.__init__', failed.error)}"
        ) from None
    return spec, steps


def _replay_machine(
    project: Project, record: FailureRecord, cls: type, emit: Callable[[ReplayStep], None], changed: list[str]
) -> ReplayResult:
    spec, steps = _ready(project, record, cls)
    backend = project.backend
    caught: list[str] = []
    logs_before = 0
    names = Names(project)

    written: list[str] = []

    def on_revert(exc: Any) -> None:
        caught.append(describe_revert(exc))

    def on_call(record: Any) -> None:
        if record.kind == "chain":
            written.append(chain_text(record, names))

    at = (0, 0)

    def before(index: int) -> None:
        nonlocal logs_before, at
        logs_before = len(backend.logs)
        caught.clear()
        written.clear()
        seconds, blocks = steps[index - 1].delay
        at = (backend.block_number + blocks, backend.timestamp + seconds)  # where the step's wait leaves the chain

    def after(index: int, line: str, result: Any, exc: BaseException | None) -> None:
        if index == 0:  # setup: told only when it failed
            if exc is not None:
                emit(
                    ReplayStep(
                        0, "setup", error=f"{shown_type(exc)}: {message_of(exc)}", invariant=failed_invariant(exc)
                    )
                )
            return
        if index > len(record.steps):  # teardown
            if exc is not None:
                emit(ReplayStep(index, line, error=f"{shown_type(exc)}: {describe_error(exc)[1]}"))
            return
        line = when_text(line, len(delay_lines(steps[index - 1].delay)), at)
        events = [event_text(project, log, names) for log in backend.logs[logs_before:]]
        if exc is not None:
            emit(
                ReplayStep(
                    index, line, None, events, list(caught), f"{shown_type(exc)}: {describe_error(exc)[1]}",
                    failed_invariant(exc), list(written),
                )
            )
        else:
            emit(
                ReplayStep(
                    index, line, None if result is None else format_value(result), events, list(caught),
                    chain=list(written),
                )
            )

    run_spec, values = watching_optimum(spec, record)
    try:
        with reverts.listeners.listening(on_revert), calls.recording(on_call):
            ran = run_program(run_spec, project, steps, before=before, after=after)
    except SetupFailed as exc:
        raise FailureRecordError(
            f"failure {record.id} cannot be replayed: {user_error(f'{spec.name}.setup', exc.error)}"
        ) from None
    if record.optimum is not None and ran.error is None:
        value, saved = max(values, default=None), record.optimum[1]
        verdict: Verdict = "reaches" if value is not None and value >= saved else "falls short"
        return ReplayResult(verdict, changed=changed, value=value, saved=saved)
    if ran.error is None:
        return ReplayResult("fixed", changed=changed)
    not_a_verdict(record, ran.error, ran.at, ran.lines)
    # a failure in teardown ran the whole program, as a failure at its last step did
    return _outcome(record, ran.error, changed, min(ran.at, len(record.steps)))


def watching_optimum(spec: MachineSpec, record: FailureRecord) -> tuple[MachineSpec, list[int]]:
    """For an optimum's record, the spec with its optimize method read after setup and every step (into the list
    returned), as a last invariant; the spec as it is for a failure's."""
    values: list[int] = []
    optimum = record.optimum
    method = next((m for m in spec.optimizers if optimum is not None and m.name == optimum[0]), None)
    if optimum is None:
        return spec, values
    if method is None:
        raise FailureRecordError(
            f"record {record.id}: {record.name} has no optimize method {optimum[0]!r} any more (renamed?)"
        )

    def read_value(machine: Any) -> None:
        value = read(dataclasses.replace(spec, optimizers=[method]), machine).get(method.name)
        if value is not None:
            values.append(value)

    watcher = dataclasses.replace(method, name=method.name, function=read_value, params=[])
    return dataclasses.replace(spec, invariants=[*spec.invariants, watcher]), values


def _replay_test(
    project: Project, record: FailureRecord, fn: Any, emit: Callable[[ReplayStep], None], changed: list[str]
) -> ReplayResult:
    line, exc = _run_test_record(project, record, fn)
    if exc is not None:
        not_a_verdict(record, exc, 1, [line])
        emit(ReplayStep(1, line, error=f"{shown_type(exc)}: {describe_error(exc)[1]}"))
        return _outcome(record, exc, changed, len(record.steps))
    emit(ReplayStep(1, line))
    return ReplayResult("fixed", changed=changed)


def _run_test_record(project: Project, record: FailureRecord, fn: Any) -> tuple[str, Exception | None]:
    """A property test's saved example run once, its chain put back: (the example as a line, what it raised)."""
    inner = getattr(getattr(fn, "hypothesis", None), "inner_test", None)
    if inner is None:
        raise FailureRecordError(f"failure {record.id}: {record.name} is no longer a @given property test")
    if not record.steps:
        raise FailureRecordError(f"failure {record.id}: the record holds no example to replay")
    step = recorded_steps(record)[0]
    args = {k: decode_value(v, accounts=project.accounts, refs={}) for k, v in step.arguments.items()}
    try:
        # @given hides the parameters it draws from fn's signature: the rest are injected
        kwargs = provide([n for n in inspect.signature(fn).parameters if n not in args], project, record.name)
    except MachineDefinitionError as exc:
        raise FailureRecordError(f"failure {record.id}: {exc}") from None
    line = example_line(record.name, args)
    try:
        with project.backend.anchor():
            run_code(inner, **kwargs, **args)
    except Exception as exc:
        return line, exc
    return line, None


def rerun(project: Project, record: FailureRecord, target: Any) -> BaseException | None:
    """A saved failure's program run quietly on project (its own chain put back after): the error it ends with, None
    when it passes.

    target is the machine class or test function the record names. Raises FailureRecordError when
    the program cannot be run there (a rule gone, the machine's __init__ failing).
    """
    backend = project.backend
    base = backend.snapshot()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            if record.kind == "test":
                line, error = _run_test_record(project, record, target)
                if error is not None:
                    not_a_verdict(record, error, 1, [line])
                return error
            spec, steps = _ready(project, record, target)
            try:
                ran = run_program(spec, project, steps)
            except SetupFailed as exc:
                raise FailureRecordError(
                    f"failure {record.id} cannot be replayed: {user_error(f'{spec.name}.setup', exc.error)}"
                ) from None
            if ran.error is not None:
                not_a_verdict(record, ran.error, ran.at, ran.lines)
            return ran.error
    finally:
        backend.revert(base)


@dataclass(frozen=True)
class Check:
    """A saved failure checked by replaying it: its verdict, or why it cannot be replayed."""

    id: str
    record: FailureRecord | None
    verdict: CheckVerdict
    reason: str = ""
    changed: list[str] = field(default_factory=list)

    @property
    def shown(self) -> str:
        return f"{self.verdict}: {self.reason}" if self.reason else self.verdict


def check(config: Config, store: FailureStore, record_id: str) -> Check:
    """Replay one saved failure quietly and say whether it still fails; never raises for a bad record."""
    try:
        record = store.load(record_id)
    except FailureRecordError as exc:
        return Check(record_id, None, "unreadable", str(exc))
    try:
        # quietly: what the machine prints is not part of a list of verdicts
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = replay(config, record, lambda _: None)
    except EvmStateError as exc:
        reason = (
            str(exc).removeprefix(f"failure {record.id}: ").removeprefix(f"failure {record.id} cannot be replayed: ")
        )
        return Check(record.id, record, "cannot replay", reason.splitlines()[0])
    return Check(record.id, record, result.verdict, "", result.changed)


@dataclass(frozen=True)
class ShrinkResult:
    """How `evmstate shrink` ended: "shrunk", "minimal" (nothing went), "stopped" (the budget again), "fixed" or "fails
    differently"."""

    verdict: ShrinkVerdict
    record: FailureRecord  # the record as it stands now (the new one when shrunk)
    outcome: Any = None  # shrink.Outcome
    seconds: float = 0.0
    message: str = ""


def shrink_record(
    config: Config, record: FailureRecord, *, seconds: float | None = None,
    progress: Callable[[int, int], None] = lambda steps, replays: None,
) -> ShrinkResult:
    """Continue shrinking a saved failure from its program: the same passes a run's shrinking makes, to their end
    (until a round of them changes nothing), or for the work seconds buy (shrink/budget.py).

    A shorter program replaces the record, under the id of its failure (an id an earlier evmstate gave it moves to that
    one).
    """
    if record.kind != "machine":
        raise FailureRecordError(
            f"failure {record.id} is a property test's example: Hypothesis shrinks those; "
            "there is nothing more to shrink"
        )
    project, cls = _loaded(config, record)
    spec, steps = _ready(project, record, cls)
    started = time.perf_counter()  # the shrinking's time, as a run reports it: loading the project is not part of it
    base = project.backend.snapshot()
    # what the machine prints while its programs are tried is not part of the result
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        ran = run_program(spec, project, steps)
        if ran.error is None:
            return ShrinkResult("fixed", record)
        not_a_verdict(record, ran.error, ran.at, ran.lines)
        if not FailureSignature.of(ran.error).same(
            FailureSignature.of_error(ErrorInfo.from_data(record.error)), where=False
        ):
            return ShrinkResult(
                "fails differently", record, message=f"{shown_type(ran.error)}: {describe_error(ran.error)[1]}"
            )
        # the contracts' numbers and the comparisons the replays meet, as a run's shrinking has them from its search
        search = search_session(
            project, MachineSettings.parse(spec.settings, spec.name).search, spec.name, None, spec.init_params
        )
        search.start()
        try:
            hints = tuple(v for v in search.dictionary.literals if v >= 0)
            outcome = shrink_program(
                spec, project, base, steps, ran.error, budget=Budget.of_seconds(seconds), progress=progress,
                hints=hints, feedback=search.feedback, constants=frozenset(search.dictionary.constants),
            )
        finally:
            search.stop()
    if outcome.found is None and outcome.stopped is StopReason.INTERRUPTED:
        raise KeyboardInterrupt  # the saved record stands as it is
    seconds = time.perf_counter() - started
    stopped = (
        stopped_at(outcome.stopped, seconds or 0.0, "`evmstate shrink --time`")
        if outcome.stopped is not None and outcome.stopped is not StopReason.INTERRUPTED
        else None
    )
    if outcome.found is None:
        return ShrinkResult(
            "stopped" if stopped else "minimal", dataclasses.replace(record, stopped=stopped), outcome, seconds
        )
    found = outcome.found
    error = ErrorInfo.of(found.error)
    program = program_lines(record.name, found.program_lines())
    data = recorded.to_data(found.steps)
    merged = {**record.error, **error.to_data()}
    new = dataclasses.replace(
        record,
        id=record_id(record.kind, record.path, record.name, merged, data),
        steps=data,
        program=program,
        error=merged,
        stopped=stopped,
        interrupted=outcome.stopped is StopReason.INTERRUPTED,
        created=time.time(),
    )
    return ShrinkResult("stopped" if stopped else "shrunk", new, outcome, seconds)
