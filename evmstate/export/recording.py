"""A saved failure's program replayed while every call it makes is kept.

Section by section: the machine's __init__, setup(), each step, each invariant's check.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..config import Config
from ..contracts import calls
from ..contracts.address import checksum
from ..contracts.calls import CallRecord
from ..errors import ExportError, FailureRecordError
from ..failures import FailureRecord
from ..spec.machine import MachineSpec
from ..engine.program import SetupFailed, run_program
from ..engine.replay import machine_of, not_a_verdict, ready_machine, same_failure
from ..engine.trace import Names, chain_text
from ..engine.tracebacks import describe_error


@dataclass(frozen=True)
class Sent:
    """One call the program made, as a test elsewhere makes it again: who, to where, what, and what came back."""

    # "deploy", "transaction", "call" (changes nothing) or "chain" (a write to the chain: chain.set_balance, ...)
    kind: str
    label: str  # the call as a trace shows it: Depositer.deposit_for(accounts[0])
    contract: str | None
    function: str
    args: tuple[Any, ...]
    sender: str | None
    to: str | None
    value: int
    data: bytes  # calldata; a deployment's constructor arguments
    ok: bool
    output: bytes  # what it returned, or its revert data
    timestamp: int  # the block's time and number it ran in
    number: int


@dataclass
class Section:
    """The calls of one part of the program: the machine's __init__, setup(), a step, an invariant's check."""

    kind: str  # "init", "setup", "step" or "invariant"
    label: str
    calls: list[Sent] = field(default_factory=list)


@dataclass
class Recording:
    """A program replayed: the chain it started from, its sections in order, the error it failed with (in the last)."""

    chain_id: int
    timestamp: int
    number: int
    balances: list[tuple[str, int]]  # the funded accounts' starting balances
    sections: list[Section] = field(default_factory=list)
    actors: dict[str, str] = field(default_factory=dict)  # the machine's actors: checksummed address -> kind
    error: BaseException | None = None

    def open(self, kind: str, label: str) -> Section:
        section = Section(kind, label)
        self.sections.append(section)
        return section

    @property
    def failing(self) -> Section:
        """The section the failure happened in: the last one."""
        return self.sections[-1]


def _sent(record: CallRecord, backend: Any, names: Names) -> Sent:
    if record.kind == "chain":
        label = chain_text(record, names)
    else:
        label = f"{record.label}({', '.join(names.show(a) for a in record.args)})"
    result = record.result
    return Sent(
        record.kind,
        label,
        record.contract,
        record.function,
        tuple(record.args),
        None if record.sender is None else checksum(record.sender.raw_address),
        None if record.to is None else checksum(record.to),
        record.value,
        bytes(record.data),
        record.error is None,
        bytes(getattr(result, "output", b"") or b""),
        backend.timestamp,
        backend.block_number,
    )


def _watched(spec: MachineSpec, recording: Recording) -> MachineSpec:
    """The machine with each invariant opening a section of its own before it checks."""

    def watched(inv: Any) -> Any:
        def check(machine: Any) -> Any:
            recording.open("invariant", inv.name)
            return inv.function(machine)

        return dataclasses.replace(inv, function=check)

    return dataclasses.replace(spec, invariants=[watched(inv) for inv in spec.invariants])


def record_program(config: Config, record: FailureRecord) -> Recording:
    """Replay a machine's saved failure on the sources as they are, keeping every call.

    ExportError when it does not fail the same way.
    """
    for setting in ("fork", "differential"):
        if record.settings.get(setting):
            raise ExportError(
                f"failure {record.id} was found on a {'forked chain' if setting == 'fork' else 'differential run'}: "
                "only failures on a fresh chain can be exported"
            )
    project, cls = machine_of(config, record)
    backend = project.backend
    recording = Recording(
        backend.chain_id, backend.timestamp, backend.block_number, [(a.address, a.balance()) for a in project.accounts]
    )
    names = Names(project)

    def on_call(c: CallRecord) -> None:
        recording.sections[-1].calls.append(_sent(c, backend, names))

    def before(index: int) -> None:
        recording.open("step", f"step {index}")

    def after(index: int, line: str, result: Any, exc: BaseException | None) -> None:
        if 0 < index <= len(record.steps):
            for section in reversed(recording.sections):
                if section.kind == "step":
                    section.label = line
                    break

    with backend.anchor(), calls.recording(on_call):
        recording.open("init", f"{record.name}.__init__")
        spec, steps = ready_machine(project, record, cls)
        recording.actors = {a.address: kind for kind, a in project.accounts.actors.items()}
        recording.open("setup", "setup()")
        try:
            ran = run_program(_watched(spec, recording), project, steps, before=before, after=after)
        except SetupFailed as exc:
            raise FailureRecordError(
                f"failure {record.id} cannot be replayed: {record.name}.setup() raised {describe_error(exc.error)[1]}"
            ) from None
    if ran.error is None:
        raise ExportError(
            f"failure {record.id} does not fail on the sources as they are now (fixed?): "
            "a test exported from them would pass. "
            f"Export it where it still fails (`evmstate replay {record.id}` says whether it does)"
        )
    not_a_verdict(record, ran.error, ran.at, ran.lines)
    if not same_failure(record, ran.error, ran.at):
        error_type, message, _, _ = describe_error(ran.error)
        raise ExportError(
            f"failure {record.id} fails differently on the sources as they are now "
            f"({error_type}: {message.splitlines()[0] if message else ''}); `evmstate replay {record.id}` shows how"
        )
    recording.error = ran.error
    return recording
