"""What a failing program did, call by call, and how much gas each contract function used.

trace_machine() and trace_test() replay the reported program once, without Hypothesis, while
the contract layer tells them every call (evmstate.contracts.calls): each step's calls with their
arguments, return values, events, gas and reverts, the invariant that failed with the calls it
made, and what the program printed. GasStats gathers gas per contract function over a run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..contracts import calls
from ..contracts.calls import CallRecord
from ..contracts.abi import entry_of
from ..contracts.address import checksum
from ..contracts.revert import describe_revert, raise_on_failure
from ..errors import TransactionReverted
from ..evm.base import ExecResult, InnerFailure
from ..spec.markers import Route, multiple
from ..values import format_value
from .delays import delay_lines
from .tracebacks import FailureSignature, describe_call, describe_error, failed_invariant
from .program import run_program
from .recorded import RecordedStep, example_line

# -- showing values ----------------------------------------------------------------


class Names:
    """Shows values as a program would write them: funded accounts as accounts[i], deployed contracts by name."""

    def __init__(self, project: Any) -> None:
        self.project = project
        self.by_address = {a.address.lower(): repr(a) for a in (*project.accounts, *project.accounts.actors.values())}

    def show(self, value: Any) -> str:
        """The value as traces show it: bytes as 0x..., accounts and contracts named, inside containers too."""
        return format_value(value, name=self.name)

    def name(self, value: Any) -> str | None:
        """accounts[i] for a funded account's address, <Name 0x...> for a deployed contract's; None for any other value.
        """
        if not isinstance(value, str):
            return None
        if value.lower() in self.by_address:
            return self.by_address[value.lower()]
        if len(value) == 42 and value[:2] == "0x":
            try:
                name = self.project.name_at(bytes.fromhex(value[2:]))
            except ValueError:  # a string that only looks like an address
                name = None
            if name is not None:
                return f"<{name} {value}>"
        return None


    def emitter(self, raw_address: bytes) -> str:
        """Who emitted a log: its deployment's label or contract's name, with its address when another deployment shares
        the name.
        """
        name = self.project.name_at(raw_address)
        address = checksum(raw_address)
        if name is None:
            return address
        if sum(1 for shown in self.project.deployments().values() if shown == name) > 1:
            return f"<{name} {address}>"
        return name


def event_text(project: Any, log: Any, names: Names) -> str:
    """A log decoded by its emitter's ABI, as Emitter.Event(field=value, ...) with accounts named: weth.Transfer(...),
    Token.Approval(...).
    """
    event = project.event_decoder.decode(log)
    text = f"{names.emitter(log.address)}.{event.name}({', '.join(f'{k}={names.show(v)}' for k, v in event.items())})"
    called = reentered(project, log.address, event)
    return f"{text}  # {called}" if called else text


def reentered(project: Any, emitter: bytes, event: Any) -> str | None:
    """The function an actor's Reentered event says it called back, as Contract.function (its selector named by the
    target's ABI); None for any other event, or a selector the target's ABI does not have."""
    if event.name != "Reentered" or not any(a.raw_address == emitter for a in project.accounts.actors.values()):
        return None
    target, wanted = str(event.get("target", "")), bytes(event.get("selector") or b"")
    try:
        raw = bytes.fromhex(target[2:])
    except ValueError:
        return None
    artifact = project.artifact_at(raw)
    if artifact is None:
        return None
    entry = entry_of(artifact.abi, wanted)
    return f"{project.name_at(raw) or artifact.name}.{entry['name']}" if entry is not None else None


def inner_text(project: Any, failure: InnerFailure) -> str:
    """A call inside a call that failed, as a reader knows it: what was called, from where, and why it failed, to the
    source line.
    """
    to = None if failure.is_create else failure.to
    call = describe_call(project, failure.sender, to, failure.data, failure.value)
    result = ExecResult(False, failure.output, 0, error=failure.error, frames=failure.frames)
    artifact = project.artifact_at(failure.to) if to is not None else None
    try:
        raise_on_failure(
            result, None, artifact, None, project=project,
            contract=project.name_at(failure.to) if to is not None else None,
        )
    except TransactionReverted as exc:
        why = (
            describe_revert(exc)
            if failure.error == "revert"
            else f"{failure.error}" + (f" at {exc.source_line}" if exc.source_line else "")
        )
    else:  # pragma: no cover - a failure always raises
        why = failure.error
    return f"{call}: {'reverted ' if failure.error == 'revert' else ''}{why}"


def when_text(line: str, waits: int, at: tuple[int, int]) -> str:
    """A step's line with its last wait line saying when the step ran: chain.mine(3) # now block 5, time 1700086405
    (2023-11-15 22:13:25 UTC).
    """
    lines = line.split("\n")
    if waits <= 0 or len(lines) <= waits:
        return line
    block, timestamp = at
    try:
        date = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc).strftime(" (%Y-%m-%d %H:%M:%S UTC)")
    except (OverflowError, OSError, ValueError):  # a time past what a date holds
        date = ""
    lines[waits - 1] += f"  # now block {block}, time {timestamp}{date}"
    return "\n".join(lines)


@dataclass(frozen=True)
class TracedCall:
    """One call a step made: what was called, by whom, and what came of it."""

    call: str  # Token.transfer(accounts[1], 5)
    kind: str  # "call", "transaction", "deploy", or "chain" for a write no transaction made (chain.set_storage(...))
    sender: str
    value: int
    gas_used: int
    returned: str | None = None  # the return value (a transaction's receipt.return_value)
    events: tuple[str, ...] = ()  # Emitter.Event(field=value, ...)
    reverted: str | None = None  # the revert (or timeout) explained, with its source line
    inner: tuple[str, ...] = ()  # the calls inside it that failed, each explained (inner_text)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"events": list(self.events), "inner": list(self.inner)}


@dataclass(frozen=True)
class TracedStep:
    """One part of a traced run: setup, a step, an invariant that failed, teardown, or a test's one example."""

    kind: str  # "setup", "step", "invariant", "teardown" or "test"
    index: int  # the step's number (0 for setup)
    line: str
    calls: tuple[TracedCall, ...] = ()
    returned: str | None = None  # what a rule returned, when not None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "calls": [c.to_dict() for c in self.calls]}


@dataclass(frozen=True)
class Trace:
    """The reported program replayed once: its steps, what it printed, and whether it failed as reported."""

    steps: tuple[TracedStep, ...]
    output: str = ""  # what the program printed (empty when output was not captured)
    reproduced: bool = True
    note: str | None = None  # why the trace is missing or differs

    @property
    def gas_used(self) -> int:
        return sum(c.gas_used for s in self.steps for c in s.calls if c.kind != "call")

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": [s.to_dict() for s in self.steps], "output": self.output, "reproduced": self.reproduced,
            "note": self.note,
        }


def chain_text(record: CallRecord, names: Names) -> str:
    """A write to the chain as the line that makes it again: chain.set_storage(<Token 0x...>, 0, 7)."""
    return f"{record.function}({', '.join(names.show(a) for a in record.args)})"


def _traced(record: CallRecord, project: Any, names: Names) -> TracedCall:
    if record.kind == "chain":
        return TracedCall(chain_text(record, names), "chain", "", 0, 0)
    args = ", ".join(names.show(a) for a in record.args)
    call = f"{record.label}({args})"
    returned = None
    value = record.return_value
    if record.error is None:
        if record.kind == "transaction" and value is not None:
            value = value.return_value  # the receipt's
        elif record.kind == "deploy":
            value = None
        if value is not None:
            returned = names.show(value)
    events = [event_text(project, log, names) for log in record.logs]
    reverted = None
    if isinstance(record.error, TransactionReverted):
        reverted = describe_revert(record.error)
    elif record.error is not None:
        reverted = str(record.error).splitlines()[0]
    inner = tuple(inner_text(project, failure) for failure in record.result.inner_failures)
    return TracedCall(
        call, record.kind, names.show(record.sender), record.value, record.gas_used, returned, tuple(events), reverted,
        inner,
    )


class _Recorder:
    """Collects the calls made into sections: setup, each step, each invariant check."""

    def __init__(self, project: Any) -> None:
        self.project = project
        self.names = Names(project)
        self.sections: list[dict[str, Any]] = []
        self.open("setup", 0, "setup()")

    def open(self, kind: str, index: int, line: str) -> dict[str, Any]:
        section = {"kind": kind, "index": index, "line": line, "calls": [], "returned": None, "error": None}
        self.sections.append(section)
        return section

    def __call__(self, record: CallRecord) -> None:
        self.sections[-1]["calls"].append(_traced(record, self.project, self.names))


def _returned(result: Any) -> Any:
    """What a rule returned, without the wrapping that routes it to bundles."""
    if isinstance(result, Route):
        return result.value
    if isinstance(result, tuple) and result and all(isinstance(r, Route) for r in result):
        return tuple(r.value for r in result)
    if isinstance(result, multiple):
        return result.values
    return result


def _error_text(exc: BaseException) -> str:
    error_type, message, _, _ = describe_error(exc)
    return f"{error_type}: {message}"


@contextlib.contextmanager
def _inner_failures(backend: Any) -> Any:
    """While a program is traced, results carry the calls inside them that failed."""
    backend.set_inner_failures(True)
    try:
        yield
    finally:
        backend.set_inner_failures(False)


@contextlib.contextmanager
def _captured(capture: bool) -> Any:
    buffer = io.StringIO()
    if not capture:
        yield buffer
        return
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        yield buffer


def trace_machine(
    spec: Any, project: Any, base: Any, steps: Sequence[RecordedStep], expected: BaseException, *, capture: bool = True
) -> Trace:
    """Replay a machine's recorded program from base (the chain after __init__) and trace it.

    expected is the error the program was reported with: the trace says whether the replay
    failed the same way. Passing invariant checks are left out; the one that failed is kept
    with the calls it made.
    """
    recorder = _Recorder(project)
    name = spec.name

    def watched(inv: Any) -> Any:
        def check(machine: Any) -> Any:
            recorder.open("invariant", recorder.sections[-1]["index"], f"invariant {name}.{inv.name}")
            return inv.function(machine)

        return dataclasses.replace(inv, function=check)

    traced_spec = dataclasses.replace(spec, invariants=[watched(inv) for inv in spec.invariants])

    backend = project.backend

    def before(index: int) -> None:
        section = recorder.open("step", index, "")
        seconds, blocks = steps[index - 1].delay
        # where the step's wait (run right after this) leaves the chain: the block and time its call runs at
        section["at"] = (backend.block_number + blocks, backend.timestamp + seconds)

    def after(index: int, line: str, result: Any, exc: BaseException | None) -> None:
        if index > len(steps):
            section = recorder.open("teardown", index, "teardown()")
        elif exc is not None and failed_invariant(exc) is not None:
            section = recorder.sections[-1]  # the invariant that raised
        else:
            section = next(s for s in reversed(recorder.sections) if s["kind"] in ("step", "setup"))
        if index and index <= len(steps):
            step_section = next(s for s in reversed(recorder.sections) if s["kind"] == "step")
            step_section["line"] = when_text(line, len(delay_lines(steps[index - 1].delay)), step_section["at"])
            if result is not None and exc is None:
                step_section["returned"] = recorder.names.show(_returned(result))
        if exc is not None:
            section["error"] = _error_text(exc)

    backend.revert(base)
    with _captured(capture) as out, calls.recording(recorder), _inner_failures(backend):
        try:
            ran = run_program(traced_spec, project, steps, before=before, after=after)
        except Exception as exc:  # setup() raising, or a value that cannot be rebuilt
            return Trace((), out.getvalue(), False, f"the program could not be replayed: {_error_text(exc)}")
    kept = []
    for s in recorder.sections:
        if s["kind"] == "invariant" and s["error"] is None:
            continue  # a check that passed
        if s["kind"] == "setup" and not s["calls"] and s["error"] is None:
            continue
        kept.append(TracedStep(s["kind"], s["index"], s["line"], tuple(s["calls"]), s["returned"], s["error"]))
    reproduced = ran.error is not None and FailureSignature.of(ran.error) == FailureSignature.of(expected)
    note = None
    if not reproduced:
        note = "replayed without Hypothesis, the program " + (
            f"failed differently: {_error_text(ran.error)}" if ran.error is not None else "passed"
        )
    return Trace(tuple(kept), out.getvalue(), reproduced, note)


def trace_test(
    name: str, inner: Callable[..., Any], project: Any, injected: dict[str, Any], drawn: dict[str, Any],
    expected: BaseException, *, capture: bool = True,
) -> Trace:
    """Run a property test's failing example once more, from the chain as it is, and trace it."""
    recorder = _Recorder(project)
    section = recorder.open("test", 1, example_line(name, drawn))
    error: BaseException | None = None
    with (
        _captured(capture) as out, calls.recording(recorder), project.backend.anchor(),
        _inner_failures(project.backend),
    ):
        try:
            inner(**injected, **drawn)
        except Exception as exc:
            error = exc
            section["error"] = _error_text(exc)
    steps = tuple(
        TracedStep(s["kind"], s["index"], s["line"], tuple(s["calls"]), s["returned"], s["error"])
        for s in recorder.sections
        if s["kind"] == "test" or s["calls"]
    )
    reproduced = error is not None and type(error) is type(expected)
    note = (
        None
        if reproduced
        else "run once more, the example "
        + (f"failed differently: {_error_text(error)}" if error is not None else "passed")
    )
    return Trace(steps, out.getvalue(), reproduced, note)


# -- gas ---------------------------------------------------------------------------


@dataclass
class GasFigures:
    """Gas used by one contract function over a run: successful calls, and how many reverted."""

    calls: int = 0
    reverted: int = 0
    used: Counter = field(default_factory=Counter)  # gas_used -> how many calls used exactly that

    @property
    def min(self) -> int:
        return min(self.used) if self.used else 0

    @property
    def max(self) -> int:
        return max(self.used) if self.used else 0

    @property
    def mean(self) -> float:
        return sum(g * n for g, n in self.used.items()) / self.calls if self.calls else 0.0

    @property
    def median(self) -> float:
        if not self.calls:
            return 0.0
        ordered = sorted(self.used.items())

        def nth(k: int) -> int:  # the k-th smallest figure, from 0
            for gas, n in ordered:
                if k < n:
                    return gas
                k -= n
            raise IndexError(k)

        middle = self.calls // 2
        return float(nth(middle)) if self.calls % 2 else (nth(middle - 1) + nth(middle)) / 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls, "reverted": self.reverted, "min": self.min, "mean": round(self.mean, 1),
            "median": self.median, "max": self.max,
        }


class GasStats:
    """Listens to every call of a run (calls.recording(stats)) and keeps gas per Contract.function.

    Figures cover calls that succeeded, as receipts report gas_used; reverted calls are counted
    apart. Ether transfers between accounts are left out. Calls a contract makes to another
    contract are part of the outer call's gas: only calls made from Python are listed.
    """

    def __init__(self) -> None:
        self.functions: dict[str, GasFigures] = {}

    def __call__(self, record: CallRecord) -> None:
        if record.contract is None:
            return
        figures = self.functions.get(record.label)
        if figures is None:
            figures = self.functions[record.label] = GasFigures()
        if record.error is None:
            figures.calls += 1
            figures.used[record.gas_used] += 1
        else:
            figures.reverted += 1

    def merge(self, other: "GasStats") -> None:
        """Add another run's figures (a worker's) to these."""
        for label, theirs in other.functions.items():
            ours = self.functions.setdefault(label, GasFigures())
            ours.calls += theirs.calls
            ours.reverted += theirs.reverted
            ours.used.update(theirs.used)

    def to_dict(self) -> dict[str, Any]:
        return {label: self.functions[label].to_dict() for label in sorted(self.functions)}

