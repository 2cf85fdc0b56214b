"""Differential checking: revm and py-evm run every call side by side and must agree.

CheckedBackend drives both with the same calls and compares, call by call, what each did:
success, return data, logs, gas, the storage slots either wrote, and the balances and nonces
of the sender and the target. The first difference is kept (divergence) for the runner to
report with its step; results come from py-evm, so failures are explained to the source line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..values import format_value
from .base import Capabilities, ExecResult, Log, Snapshots

from .pyevm.backend import PyEVMBackend


@dataclass(frozen=True)
class Divergence:
    """The first call on which the backends disagreed."""

    index: int  # calls made through the checked backend, counting from 1
    kind: str  # "transact" or "call"
    sender: bytes
    to: bytes | None
    data: bytes
    value: int
    what: str  # which outcome differs and how


def _logs(logs: tuple[Log, ...]) -> str:
    return (
        "; ".join(
            f"0x{log.address.hex()} topics={[hex(t) for t in log.topics]} data=0x{log.data.hex()}" for log in logs
        )
        or "none"
    )


def compare(fast: ExecResult, reference: ExecResult) -> str | None:
    """How two results of the same call differ (revm's first), or None when they agree."""
    if fast.success != reference.success:
        return f"success: {fast.success} on revm, {reference.success} on py-evm ({reference.error or 'no error'})"
    if fast.output != reference.output:
        return f"return data: 0x{fast.output.hex()} on revm, 0x{reference.output.hex()} on py-evm"
    if fast.gas_used != reference.gas_used:
        return f"gas used: {fast.gas_used} on revm, {reference.gas_used} on py-evm"
    if fast.logs != reference.logs:
        return f"logs: {_logs(fast.logs)} on revm, {_logs(reference.logs)} on py-evm"
    if fast.contract_address != reference.contract_address:
        shown = [f"0x{a.hex()}" if a else None for a in (fast.contract_address, reference.contract_address)]
        return f"contract address: {shown[0]} on revm, {shown[1]} on py-evm"
    return None


class CheckedBackend(Snapshots):
    """revm and py-evm in lockstep, behind the Backend interface; answers with py-evm's results."""

    capabilities = Capabilities(frames=True, coverage=False, observer=False, time_limit=True, divergence=True)
    call_cache = None  # each of the two backends has its own

    def __init__(self, fast: Any, reference: PyEVMBackend) -> None:
        self.fast = fast
        self.reference = reference
        self.spec = reference.spec
        self.chain_id = reference.chain_id
        self.gas_limit = reference.gas_limit
        self.call_gas_limit = reference.call_gas_limit
        self.call_timeout = reference.call_timeout
        self.gas_price = reference.gas_price
        self.account_keys = reference.account_keys
        self.divergence: Divergence | None = None
        self.calls = 0
        self._fast_ids: dict[int, int] = {}  # reference snapshot id -> fast snapshot id
        reference.watch_storage()

    def _differ(self, kind: str, sender: bytes, to: bytes | None, data: bytes, value: int, what: str) -> None:
        if self.divergence is None:
            self.divergence = Divergence(self.calls, kind, sender, to, data, value, what)

    # -- execution --------------------------------------------------------

    def transact(
        self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None
    ) -> ExecResult:
        self.calls += 1
        self.reference.written()
        result = self.reference.transact(sender, to, data, value, gas)
        sid = self.fast.snapshot()
        try:
            fast = self.fast.transact(sender, to, data, value, gas)
        finally:
            if result.error == "timeout":
                # py-evm ran out of time and kept nothing; revm has no time limit: undo its run
                self.fast.revert(sid)
            self.fast.release(sid)
        if result.error == "timeout":
            return result
        what = compare(fast, result)
        if what is None:
            what = self._compare_state(
                sender, to, result.contract_address, self.reference.written(), self.fast.last_writes
            )
        if what is not None:
            self._differ("transact", sender, to, data, value, what)
        return result

    def call(
        self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False
    ) -> ExecResult:
        self.calls += 1
        result = self.reference.call(sender, to, data, value, gas, static)
        if result.error == "timeout":
            return result
        what = compare(self.fast.call(sender, to, data, value, gas, static), result)
        if what is not None:
            self._differ("call", sender, to, data, value, what)
        return result

    def _compare_state(
        self, sender: bytes, to: bytes | None, created: bytes | None, written: list[tuple[bytes, int]],
        fast_written: Any,
    ) -> str | None:
        slots = dict.fromkeys([*written, *((a, s) for a, s, _ in fast_written)])
        for address, slot in slots:
            ours, theirs = self.fast.get_storage(address, slot), self.reference.get_storage(address, slot)
            if ours != theirs:
                return f"storage of 0x{address.hex()} slot {slot}: {ours} on revm, {theirs} on py-evm"
        for address in dict.fromkeys(a for a in (sender, to, created) if a is not None):
            for what, get in (("balance", "get_balance"), ("nonce", "get_nonce"), ("code", "get_code")):
                ours, theirs = getattr(self.fast, get)(address), getattr(self.reference, get)(address)
                if ours != theirs:
                    return (
                        f"{what} of 0x{address.hex()}: {format_value(ours)} on revm, {format_value(theirs)} on py-evm"
                    )
        return None

    # -- state access -----------------------------------------------------

    def _read(self, name: str, *args: Any) -> Any:
        ours, theirs = getattr(self.fast, name)(*args), getattr(self.reference, name)(*args)
        if ours != theirs:
            self._differ(
                name, args[0], None, b"", 0,
                f"{name}({', '.join(format_value(a) for a in args)}): {format_value(ours)} on revm, "
                f"{format_value(theirs)} on py-evm",
            )
        return theirs

    def get_balance(self, address: bytes) -> int:
        return self._read("get_balance", address)

    def get_nonce(self, address: bytes) -> int:
        return self._read("get_nonce", address)

    def get_code(self, address: bytes) -> bytes:
        return self._read("get_code", address)

    def get_storage(self, address: bytes, slot: int) -> int:
        return self._read("get_storage", address, slot)

    def set_balance(self, address: bytes, value: int) -> None:
        self.reference.set_balance(address, value)
        self.fast.set_balance(address, value)

    def set_storage(self, address: bytes, slot: int, value: int) -> None:
        self.reference.set_storage(address, slot, value)
        self.fast.set_storage(address, slot, value)

    def set_code(self, address: bytes, code: bytes) -> None:
        self.reference.set_code(address, code)
        self.fast.set_code(address, code)

    def storage_reads(self, sender: bytes, to: bytes, data: bytes) -> tuple[ExecResult, list[tuple[bytes, int]]]:
        return self.reference.storage_reads(sender, to, data)

    @property
    def logs(self) -> list[Log]:
        return self.reference.logs

    # -- snapshots and time -------------------------------------------------

    def snapshot(self) -> int:
        sid = self.reference.snapshot()
        self._fast_ids[sid] = self.fast.snapshot()
        return sid

    def revert(self, snapshot_id: int) -> None:
        self.reference.revert(snapshot_id)
        self.fast.revert(self._fast_ids[snapshot_id])
        for sid in [s for s in self._fast_ids if s > snapshot_id]:
            del self._fast_ids[sid]

    def has_snapshot(self, snapshot_id: int) -> bool:
        return self.reference.has_snapshot(snapshot_id)

    def release(self, snapshot_id: int) -> None:
        self.reference.release(snapshot_id)
        fast = self._fast_ids.get(snapshot_id)
        if fast is not None:
            self.fast.release(fast)
        for sid in [s for s in self._fast_ids if s >= snapshot_id]:
            del self._fast_ids[sid]


    @property
    def timestamp(self) -> int:
        return self.reference.timestamp

    @property
    def block_number(self) -> int:
        return self.reference.block_number

    def sleep(self, seconds: int) -> None:
        self.reference.sleep(seconds)
        self.fast.sleep(seconds)

    def mine(self, blocks: int = 1, timestamp: int | None = None) -> None:
        self.reference.mine(blocks, timestamp)
        self.fast.mine(blocks, timestamp)

    def set_block(self, timestamp: int, number: int) -> None:
        self.reference.set_block(timestamp, number)
        self.fast.set_block(timestamp, number)

    def reset_time_limit(self) -> None:
        self.reference.reset_time_limit()

    def set_jump_recorder(self, recorder: Any) -> None:
        self.reference.set_jump_recorder(recorder)

    def set_inner_failures(self, on: bool) -> None:
        self.reference.set_inner_failures(on)  # the results are py-evm's
