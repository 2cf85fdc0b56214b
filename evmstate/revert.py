"""Revert reasons: decoding revert data, raising TransactionReverted, and the reverts() context manager."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .abi import _signature, abi_type, decode, from_abi_value, selector
from .errors import TransactionReverted, VirtualMachineError

if TYPE_CHECKING:
    from .backend import ExecResult
    from .compiler import Artifact
    from .contract import Contract

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
    shown = ", ".join(repr(a) for a in args)
    return f"{contract}.{function}({shown})" if contract else f"{function}({shown})"


# -- revert reasons --------------------------------------------------------


def decode_revert(data: bytes, abi: Sequence[Mapping[str, Any]] = ()) -> str | None:
    """The human reason carried by revert data: Error(string), Panic(uint256) or a custom error."""
    if not data:
        return None
    if data[:4] == ERROR_SELECTOR:
        try:
            return decode(["string"], data[4:])[0]
        except Exception:
            return f"0x{data.hex()}"
    if data[:4] == PANIC_SELECTOR and len(data) == 36:
        code = int.from_bytes(data[4:], "big")
        return f"Panic(0x{code:02x}): {PANIC_CODES.get(code, 'unknown panic code')}"
    for entry in abi:
        if entry.get("type") == "error" and selector(_signature(entry)) == data[:4]:
            types = [abi_type(p) for p in entry.get("inputs", [])]
            try:
                values = decode(types, data[4:])
            except Exception:
                break
            shown = ", ".join(repr(from_abi_value(t, v)) for t, v in zip(types, values))
            return f"{entry['name']}({shown})"
    return f"0x{data.hex()}"


class _CallLog:
    """The last call made (contract, function, args), so that reverts() can say which call failed to revert."""

    last: tuple[Any, ...] | None = None

    @classmethod
    def describe(cls) -> str | None:
        return format_call(*cls.last) if cls.last else None


def _raise_on_failure(result: "ExecResult", deployed: "Contract | None", function: str | None, artifact: "Artifact | None", call: tuple[Any, ...] | None = None) -> None:
    _CallLog.last = call
    if result.success:
        return
    description = format_call(*call) if call else None
    project = deployed._project if deployed is not None else None
    reason = None
    dev = None
    source_line = None
    if project is not None and result.error_address is not None:
        failing = project.artifact_at(result.error_address)
        if failing is not None and result.error_pc is not None:
            # vyper names its own checks (e.g. "safesub"); a reason the user wrote says more
            dev = failing.error_map.get(result.error_pc) if not result.output else None
            line = failing.source_line(result.error_pc)
            if line is not None:
                source_line = f"{failing.path}:{line[0]}: {line[1]}"
    name = deployed._name if deployed is not None else None
    if result.error == "revert":
        reason = decode_revert(result.output, artifact.abi if artifact else ())
        err: TransactionReverted = TransactionReverted(reason, contract=name, function=function, revert_data=result.output, source_line=source_line, gas_used=result.gas_used)
    else:
        err = VirtualMachineError(result.error, contract=name, function=function, source_line=source_line, gas_used=result.gas_used)
    err.dev_reason = dev  # type: ignore[attr-defined]
    err.call = description  # type: ignore[attr-defined]
    raise err


# -- reverts() ---------------------------------------------------------------


class reverts:
    """Context manager: passes only when the block reverts, with that reason when one is given.

    reason matches the decoded revert reason, or vyper's description of a
    compiler-inserted check (e.g. "safesub") when the revert carried no reason.
    """

    # called with the caught error each time a reverts() block passes (for run statistics)
    listeners: list[Any] = []

    def __init__(self, reason: str | None = None) -> None:
        self.reason = reason
        self.error: TransactionReverted | None = None

    def __enter__(self) -> "reverts":
        _CallLog.last = None
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        expected = f"reverts({self.reason!r})" if self.reason is not None else "reverts()"
        if exc is None:
            last = _CallLog.describe()
            what = f"{last} succeeded" if last else "no transaction was made in the block, so nothing reverted"
            raise AssertionError(f"{what} where {expected} expected a revert")
        if not isinstance(exc, TransactionReverted):
            return False
        if self.reason is not None and exc.reason != self.reason and getattr(exc, "dev_reason", None) != self.reason:
            got = repr(exc.reason) if exc.reason is not None else "no reason"
            dev = getattr(exc, "dev_reason", None)
            if exc.reason is None and dev:
                got += f" (vyper check: {dev!r})"
            call = getattr(exc, "call", None) or "the call"
            raise AssertionError(f"{call} reverted with {got}, but {expected} expected {self.reason!r}") from exc
        self.error = exc
        for listener in self.listeners:
            listener(exc)
        return True
