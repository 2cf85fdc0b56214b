"""Revert reasons: decoding revert data, explaining a failure to the source line, raising TransactionReverted, and
reverts()."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence, TypedDict

from ..errors import (
    CallTimeout,
    ContractError,
    TransactionReverted,
    VirtualMachineError,
)
from ..hooks import Current, Listeners
from ..values import format_value
from .abi import abi_type, decode, entry_of, from_abi_value, selector
from .api import ProjectLike, current_project
from . import venom
from .hints import hint, timeout_message

if TYPE_CHECKING:
    from ..compiler.artifacts import Artifact, SourcePosition
    from ..evm.base import ExecResult, Frame

ERROR_SELECTOR = bytes.fromhex("08c379a0")
PANIC_SELECTOR = bytes.fromhex("4e487b71")
PANIC_CODES = {
    0x00: "generic compiler panic",
    0x01: "assertion failed",
    0x11: "arithmetic overflow or underflow",
    0x12: "division or modulo by zero",
    0x21: "invalid enum value",
    0x22: "invalid storage byte array",
    0x31: "pop on empty array",
    0x32: "index out of bounds",
    0x41: "out of memory",
    0x51: "call to an uninitialised function",
}


def format_call(contract: str | None, function: str | None, args: Sequence[Any]) -> str:
    shown = ", ".join(format_value(a) for a in args)
    return f"{contract}.{function}({shown})" if contract else f"{function}({shown})"


# -- revert reasons --------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _error_string(data: bytes) -> str:
    """The reason of Error(string) revert data (the same few reasons recur in a run: decoded once each)."""
    try:
        return decode(["string"], data[4:])[0]
    except Exception:
        return f"0x{data.hex()}"


def decode_revert(data: bytes, abi: Sequence[Mapping[str, Any]] = (), signatures: Iterable[str] = ()) -> str | None:
    """The human reason carried by revert data: Error(string), Panic(uint256) or a custom error.

    Custom errors are named from the ABI's "error" entries and from signatures such as
    "Unauthorized(address)" (vyper's ABI lists none: they are found in the sources).
    """
    if not data:
        return None
    if data[:4] == ERROR_SELECTOR:
        return _error_string(bytes(data))
    if data[:4] == PANIC_SELECTOR and len(data) == 36:
        code = int.from_bytes(data[4:], "big")
        return f"Panic(0x{code:02x}): {PANIC_CODES.get(code, 'unknown panic code')}"
    entry = entry_of(abi, data, "error")
    if entry is not None:
        types = [abi_type(p) for p in entry.get("inputs", [])]
        try:
            values = decode(types, data[4:])
        except Exception:
            values = None
        if values is not None:
            shown = ", ".join(format_value(from_abi_value(t, v)) for t, v in zip(types, values))
            return f"{entry['name']}({shown})"
    for signature in signatures:
        if selector(signature) != data[:4]:
            continue
        types_tuple = signature[signature.index("(") :]
        try:
            values = from_abi_value(types_tuple, decode([types_tuple], data[4:])[0])
        except Exception:
            continue
        return f"{signature[: signature.index('(')]}({', '.join(format_value(v) for v in values)})"
    return f"0x{data.hex()}"


# the last call made (contract, function, args), so that reverts() can say which call failed to revert
last_call = Current()  # (contract, function, args)


def _last_call_text() -> str | None:
    last = last_call.get()
    return format_call(*last) if last else None


# -- why a call failed ------------------------------------------------------------

# vyper's name for a compiler-inserted check -> what it means to a user
_CHECKS = {
    "user assert": "assert failed",
    "user raise": "raise",
    "assert unreachable": "assert UNREACHABLE failed",
    "safeadd": "overflow (safeadd)",
    "safemul": "overflow (safemul)",
    "safepow": "overflow (safepow)",
    "safesub": "underflow (safesub)",
    "safediv": "division by zero or overflow (safediv)",
    "safemod": "modulo by zero (safemod)",
    "clamp gt 0": "division by zero",
    "nonreentrant lock": "reentrancy: the nonreentrant lock is held",
    "bad calldatasize or callvalue": "bad calldata, or value sent to a non-payable function",
    "calldatasize check": "calldata too short",
    "nonpayable check": "value sent to a non-payable function",
    "fallback function": "no such function, and no __default__ to take the call",
    "send failed": "send failed",
    "extcodesize is zero": "call to an address without code",
    "range() bounds check": "range() ran past its bound (range() bounds check)",
    "returndatasize too small": "the called contract returned too little data",
    "external call failed": "an external call failed",
    "create failed": "contract creation failed",
}
# checks that only pass on a failure from the frame they called
_PASSED_ON = ("external call failed", "create failed")
# checks at a function's entry, before its body: no statement of the source makes them, its def line asks for them
_AT_ENTRY = ("bad calldatasize or callvalue", "nonpayable check", "calldatasize check")
_TLOAD, _SLOAD = 0x5C, 0x54
_DEV_COMMENT = re.compile(r"#\s*(dev:.*?)\s*$")
# how far back from a check's jump to look for its source position
_WALK_BACK = 64
# how far back from a REVERT with a reason to look: the code before it encodes the reason
_WALK_BACK_REASON = 256


def describe_check(check: str | None) -> str | None:
    """What vyper's check label means: "safesub" -> "underflow (safesub)"."""
    if check is None:
        return None
    if check in _CHECKS:
        return _CHECKS[check]
    if check.endswith(" bounds check"):
        what = check.removesuffix(" bounds check")
        if re.fullmatch(r"u?int\d+|bytes\d+|bool|address|decimal", what):
            return f"value out of range for {what} ({check})"
        return f"index out of bounds ({check})"
    if check.startswith("clamp "):
        return f"value out of range ({check})"
    return check


@dataclass(frozen=True)
class Explanation:
    """Why a call failed, as far as the compiled sources tell."""

    source: "SourcePosition | None" = None
    check: str | None = None  # vyper's label of the failing compiler check
    dev_revert_msg: str | None = None  # the "# dev: ..." comment on the failing line
    contract: str | None = None  # the contract whose code failed
    via: tuple[str, ...] = ()  # the calls that passed the failure up, innermost first
    # why no source line is named where one would be (a Venom build: VENOM_NO_LINES), as the report says it
    unplaced: str | None = None

    @property
    def kind(self) -> str | None:
        return describe_check(self.check)

    @property
    def source_line(self) -> str | None:
        return str(self.source) if self.source else None


def _artifact_for(frame: "Frame", project: ProjectLike | None, deployed: "Artifact | None") -> "Artifact | None":
    """The artifact whose code ran in frame: by address, else by its code."""
    if deployed is not None and frame.is_create and frame.code.startswith(deployed.bytecode):
        return deployed
    if project is None:
        return None
    found = None
    if not frame.is_create and frame.address is not None:
        found = project.artifact_at(frame.address)
        # an interface attached to another contract's code (Impl.at(proxy)): the code that ran is not its own
        if found is not None and (not found.bytecode_runtime or frame.code.startswith(found.bytecode_runtime)):
            return found
    for artifact in project.artifacts.values():
        code = artifact.bytecode if frame.is_create else artifact.bytecode_runtime
        if code and frame.code.startswith(code):
            return artifact
    return found  # code no artifact matches as it is (immutables inside it): the address's, as attached


def _dev_comment(position: "SourcePosition") -> str | None:
    """Brownie's dev revert string: the "# dev: ..." comment on the failing statement's line."""
    lines = [position.text]
    if position.end_line != position.line and position.end_line - position.line < 4:
        try:
            lines.append(Path(position.path).read_text(encoding="utf-8").splitlines()[position.end_line - 1])
        except (OSError, IndexError):
            pass
    for line in lines:
        m = _DEV_COMMENT.search(line)
        if m:
            return m.group(1)
    return None


def _is_lock_check(code: bytes, jump_pc: int, position: "SourcePosition | None") -> bool:
    # vyper's nonreentrant check reads the lock (TLOAD, or SLOAD before Cancun) at the
    # function's entry, maps it to the def line, and names it nowhere in its error map;
    # the read is within a dozen bytes of the jump at every optimization level
    window = code[max(jump_pc - 12, 0) : jump_pc]
    return position is not None and position.text.startswith("def ") and (_TLOAD in window or _SLOAD in window)


def _checks_a_value(check: str) -> bool:
    """Whether vyper's check guards a value the statement goes on to use: arithmetic, clamps, bounds."""
    return check.startswith(("safe", "clamp")) or check.endswith("bounds check")


def _nearest(artifact: Artifact, deploy: bool, pcs: Sequence[int]) -> SourcePosition | None:
    """The position of the first of pcs that has one on a statement's line (not a def line, which maps a whole
    function)."""
    for pc in pcs:
        if pc < 0:
            continue
        position = artifact.position(pc, deploy=deploy)
        if position is not None and not position.text.startswith("def "):
            return position
    return None


_UNEXPLAINED = Explanation()  # a failure without frames (revm's): nothing to tell yet (frozen, so shared)


def explain(
    result: "ExecResult", project: ProjectLike | None = None, deployed: "Artifact | None" = None
) -> Explanation:
    """Find the failing frame's contract, the source line of the failing check, its kind and dev comment.

    deployed is the artifact being deployed, when the call is its constructor.
    """
    if result.success or not result.frames:
        return _UNEXPLAINED
    frames = list(result.frames)
    via: list[str] = []
    chosen, artifact = frames[-1], _artifact_for(frames[-1], project, deployed)
    for frame in frames[:-1]:
        found = _artifact_for(frame, project, deployed)
        if found is None:
            continue  # unknown code: follow the failure down, as it carried the same data
        emap = found.deploy_error_map if frame.is_create else found.error_map
        if emap.get(frame.pc) not in _PASSED_ON:
            chosen, artifact = frame, found
            break
        call_site = found.position(frame.pc, deploy=frame.is_create, walk_back=_WALK_BACK)
        if call_site is not None:
            via.insert(0, str(call_site))
    if artifact is None:
        return Explanation(via=tuple(via))
    if artifact.venom:
        check = venom.failed_check(result, chosen, artifact)
        return Explanation(None, check, None, artifact.name, tuple(via), unplaced=venom.unplaced(artifact))
    deploy = chosen.is_create
    emap = artifact.deploy_error_map if deploy else artifact.error_map
    pc_pos = artifact.deploy_pc_pos if deploy else artifact.pc_pos
    check = None
    position = None
    if result.error == "revert" and result.output:
        # a reason or a custom error: its own REVERT is in place, after the code that encodes
        # the reason; the instruction right after it may belong to the function's entry
        position = _nearest(
            artifact, deploy,
            [chosen.pc, *range(chosen.pc - 1, chosen.pc - _WALK_BACK_REASON, -1), *range(chosen.pc + 1, chosen.pc + 8)],
        )
    elif result.error == "revert":
        if emap.get(chosen.pc) is not None or chosen.pc in pc_pos:
            # a revert of its own, such as the fallback's or a bare raise
            check = emap.get(chosen.pc)
            position = artifact.position(chosen.pc, deploy=deploy, walk_back=8)
        elif chosen.jump_pc is not None:
            # the shared REVERT: the jump that led to it names the check
            jump = chosen.jump_pc
            check = emap.get(jump)
            if check in _AT_ENTRY:
                # vyper maps no line to these; the nearest line before the jump is another function's (a getter's,
                # in 0.3): the function whose body follows, else no line at all
                return Explanation(artifact.function_at(jump, deploy=deploy), check, None, artifact.name, tuple(via))
            if check is not None and _checks_a_value(check):
                # the checked value is used right after the check, by the check's own statement;
                # what comes before may be shared with later lines by the optimizer
                position = _nearest(
                    artifact, deploy,
                    [*range(jump + 1, jump + _WALK_BACK), jump, *range(jump - 1, jump - _WALK_BACK, -1)],
                )
            else:
                position = artifact.position(jump, deploy=deploy, walk_back=_WALK_BACK)
            if check is None and _is_lock_check(chosen.code, jump, position):
                check = "nonreentrant lock"
        if position is None:
            position = artifact.position(chosen.pc + 1, deploy=deploy)
    else:
        position = artifact.position(chosen.pc, deploy=deploy, walk_back=_WALK_BACK)
    dev = _dev_comment(position) if position is not None else None
    return Explanation(position, check, dev, artifact.name, tuple(via))


class _Details(TypedDict):
    """What a failed call's error says beyond its reason: where it failed and which check."""

    source_line: str | None
    gas_used: int
    dev_revert_msg: str | None
    check: str | None
    kind: str | None
    via: tuple[str, ...]


def raise_on_failure(
    result: ExecResult,
    function: str | None,
    artifact: Artifact | None,
    call: tuple[Any, ...] | None = None,
    project: ProjectLike | None = None,
    contract: str | None = None,
) -> None:
    """Raise what a failed call means to a user (TransactionReverted, VirtualMachineError, CallTimeout), explained.

    function: the function called ("deploy", "transfer"...); artifact: the called or deployed
    contract's; call: (contract name, function, args) as the caller shows it; project: the
    project the contract belongs to (the one in force when None); contract: the name of the
    deployed contract called, None for a deployment or a transfer.
    """
    last_call.set(call)
    if result.success:
        return
    if project is None:
        project = current_project.get()
    name = contract if contract is not None else (call[0] if call and function == "deploy" else None)
    # the artifact being deployed, when this is its constructor
    being_deployed = artifact if function == "deploy" and contract is None else None
    why = explain(result, project, being_deployed)
    if result.error == "timeout":
        description = format_call(*call) if call else None
        where = description or (f"{name}.{function}" if name and function else function or "the call")
        raise CallTimeout(
            timeout_message(result, where, why.source_line),
            call=where,
            limit=result.timeout.limit if result.timeout else 0.0,
            configured=result.timeout.configured if result.timeout else 0.0,
            source_line=why.source_line,
        )
    details = _Details(
        source_line=why.source_line, gas_used=result.gas_used, dev_revert_msg=why.dev_revert_msg, check=why.check,
        kind=why.kind, via=why.via,
    )
    told = hint(result)
    if why.unplaced is not None:
        told = f"  {why.unplaced}" + (f"\n{told}" if told else "")
    if result.error == "revert":
        abi = artifact.abi if artifact else ()
        signatures = _Signatures(project, artifact)
        reason = decode_revert(result.output, abi, signatures)
        refused = _actor_refused(result, project, reason)
        if refused:
            told = f"{told}\n{refused}" if told else refused
        err: TransactionReverted = TransactionReverted(
            reason, contract=name, function=function, revert_data=result.output, hint=told, **details
        )
    else:
        block_gas_limit = project.backend.gas_limit if project is not None else None
        vm_hint = hint(result, block_gas_limit)
        if why.unplaced is not None:
            vm_hint = f"  {why.unplaced}" + (f"\n{vm_hint}" if vm_hint else "")
        err = VirtualMachineError(result.error, contract=name, function=function, hint=vm_hint, **details)
    if call:
        err.show_call(format_call, *call)
    else:
        err.call = None
    if not result.frames and result.explainer is not None:
        # no frames (revm): complete() can run the call again where they are kept, when asked
        err._evmstate_pending = (result.explainer, (function, artifact, call, project, contract))  # type: ignore[attr-defined]
    raise err


def _actor_refused(result: ExecResult, project: ProjectLike | None, reason: Any) -> str | None:
    """What to do, where the revert is one of evmstate's actors refusing ether or a token (docs/actors.md)."""
    if project is None or not (isinstance(reason, str) and reason.startswith("actor refuses ")):
        return None
    actors = getattr(getattr(project, "accounts", None), "actors", None) or {}
    who = next((a for a in actors.values() if a.raw_address == result.error_address), None)
    if who is None:
        return None
    return (
        f"  {who!r} is evmstate's actor that {reason[len('actor '):]} (docs/actors.md): a payment or token pushed to "
        "it reverts. Where one receiver's refusal should not stop the others, this is the bug; where the contract may "
        f"refuse such a receiver, expect the revert in the rule (with reverts({reason!r})) or leave {who.kind!r} out "
        "of the machine's actors."
    )


def complete(exc: TransactionReverted) -> TransactionReverted:
    """Fill in the source line, failed check and dev comment of a revert that came without them.

    A backend without per-opcode hooks reports a revert by its data alone; this runs the
    same call on py-evm, which names the line. It works right after the call, while the
    state is as the call left it (as inside reverts()); later it leaves exc as it is.
    """
    pending = exc.__dict__.pop("_evmstate_pending", None)
    if pending is None:
        return exc
    explainer, args = pending
    try:
        full = explainer()
    except Exception:
        return exc  # explaining is a courtesy: it never turns a revert into another error
    if full is None or full.success or not full.frames or full.error == "timeout":
        return exc
    last = last_call.get()
    try:
        raise_on_failure(full, *args)
    except TransactionReverted as better:
        if type(better) is type(exc) and better.reason == exc.reason:
            call = getattr(exc, "call", None)
            exc.__dict__.update(better.__dict__)
            exc.call = call  # type: ignore[attr-defined]
            exc.args = better.args
    finally:
        last_call.set(last)
    return exc


def failure_details(exc: BaseException) -> dict[str, Any] | None:
    """Why a call failed, for JSON reports and failure records: the revert or timeout behind exc, if any."""
    for err in (exc, exc.__cause__, exc.__context__):
        if isinstance(err, CallTimeout):
            return {
                "timeout": err.limit, "call_timeout": err.configured, "call": err.call, "source_line": err.source_line,
            }
        if isinstance(err, TransactionReverted):
            return {
                "contract": err.contract,
                "function": err.function,
                "reason": err.reason,
                "dev_revert_msg": err.dev_revert_msg,
                "check": err.check,
                "kind": err.kind,
                "source_line": err.source_line,
                "via": list(err.via),
            }
    return None


class _Signatures:
    """Custom error signatures to try: the called contract's first, then the project's.

    Listed only when iterated: a revert with a reason (most of them) never needs them.
    """

    __slots__ = ("project", "artifact")

    def __init__(self, project: ProjectLike | None, artifact: "Artifact | None") -> None:
        self.project, self.artifact = project, artifact

    def __iter__(self) -> Iterator[str]:
        found: list[str] = list(self.artifact.error_signatures) if self.artifact else []
        if self.project is not None:
            for other in self.project.artifacts.values():
                found.extend(s for s in other.error_signatures if s not in found)
        return iter(found)


# -- reverts() ---------------------------------------------------------------


class reverts:
    """Context manager: passes only when the block reverts, and as expected when an expectation is given.

    As Brownie's: revert_msg is compared with the revert reason, or with the line's
    "# dev: ..." comment when the revert carried no reason; dev_revert_msg with that comment
    alone; the *_pattern forms are regular expressions that must match in full. revert_msg
    also matches vyper's label of a failed compiler check (e.g. "safesub").
    """

    # told about the caught error each time a reverts() block passes (for run statistics)
    listeners = Listeners()  # of TransactionReverted

    def __init__(
        self,
        revert_msg: str | None = None,
        dev_revert_msg: str | None = None,
        revert_pattern: str | None = None,
        dev_revert_pattern: str | None = None,
    ) -> None:
        if revert_msg is not None and revert_pattern is not None:
            raise ContractError("reverts(): give revert_msg or revert_pattern, not both")
        if dev_revert_msg is not None and dev_revert_pattern is not None:
            raise ContractError("reverts(): give dev_revert_msg or dev_revert_pattern, not both")
        for pattern in (revert_pattern, dev_revert_pattern):
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as e:
                    raise ContractError(f"reverts(): {pattern!r} is not a regular expression: {e}") from None
        self.revert_msg = revert_msg
        self.dev_revert_msg = dev_revert_msg
        self.revert_pattern = revert_pattern
        self.dev_revert_pattern = dev_revert_pattern
        self.error: TransactionReverted | None = None

    @property
    def reason(self) -> str | None:
        return self.revert_msg

    def _expected(self) -> str:
        parts = [repr(self.revert_msg)] if self.revert_msg is not None else []
        for name in ("dev_revert_msg", "revert_pattern", "dev_revert_pattern"):
            if getattr(self, name) is not None:
                parts.append(f"{name}={getattr(self, name)!r}")
        return f"reverts({', '.join(parts)})"

    def _needs_explanation(self, exc: TransactionReverted) -> bool:
        """Whether the expectation needs the dev comment or check, not only the revert data."""
        if self.dev_revert_msg is not None or self.dev_revert_pattern is not None:
            return True
        if self.revert_msg is not None:
            return self.revert_msg != exc.reason
        return self.revert_pattern is not None and (
            exc.reason is None or re.fullmatch(self.revert_pattern, exc.reason) is None
        )

    def __enter__(self) -> "reverts":
        last_call.set(None)
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        if exc is None:
            last = _last_call_text()
            what = f"{last} succeeded" if last else "no transaction was made in the block, so nothing reverted"
            raise AssertionError(f"{what} where {self._expected()} expected a revert")
        if not isinstance(exc, TransactionReverted):
            return False
        if self._needs_explanation(exc):
            complete(exc)
        dev = exc.dev_revert_msg
        if self.dev_revert_msg is not None or self.dev_revert_pattern is not None:
            if dev is None or (self.dev_revert_msg is not None and dev != self.dev_revert_msg) or (
                self.dev_revert_pattern is not None and not re.fullmatch(self.dev_revert_pattern, dev)
            ):
                want = (
                    self.dev_revert_msg
                    if self.dev_revert_msg is not None
                    else f"a match of {self.dev_revert_pattern!r}"
                )
                raise AssertionError(self._unexpected(exc, want)) from exc
        if self.revert_msg is not None or self.revert_pattern is not None:
            # Brownie's revert_msg falls back to the dev comment when the revert carried no reason
            actual = exc.revert_msg
            if self.revert_msg is not None:
                ok = self.revert_msg in (actual, exc.check)
            else:
                ok = actual is not None and re.fullmatch(self.revert_pattern or "", actual) is not None
            if not ok:
                want = self.revert_msg if self.revert_msg is not None else f"a match of {self.revert_pattern!r}"
                raise AssertionError(self._unexpected(exc, want)) from exc
        self.error = exc
        self.listeners.notify(exc)
        return True

    def _unexpected(self, exc: TransactionReverted, want: str) -> str:
        """What a revert other than the one expected says (made only when it fails: the call's text is formatted
        then)."""
        call = getattr(exc, "call", None) or "the call"
        return f"{call} reverted with {_got(exc)}, but {self._expected()} expected {want!r}{_where(exc)}"


def describe_revert(exc: TransactionReverted) -> str:
    """A caught revert in one line: its reason (or check and dev comment) and where it happened."""
    complete(exc)
    where = f" at {exc.source_line}" if exc.source_line else ""
    return _got(exc) + where


def _got(exc: TransactionReverted) -> str:
    if exc.reason is not None:
        return repr(exc.reason)
    if exc.dev_revert_msg:
        return repr(exc.dev_revert_msg) + (f" ({exc.kind})" if exc.kind else "")
    return f"no reason ({exc.kind})" if exc.kind else "no reason"


def _where(exc: TransactionReverted) -> str:
    return f"\n  {exc.source_line}" if exc.source_line else ""
