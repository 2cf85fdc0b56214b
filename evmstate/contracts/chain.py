"""The chain as tests control it: its clock and snapshots, and writes no transaction makes.

Foundry's cheat codes and titanoboa's env have their counterparts here: chain.set_balance (vm.deal
of ether), chain.get_storage / chain.set_storage (vm.load / vm.store), chain.set_code (vm.etch),
chain.deal (forge's deal for ERC20 tokens, which finds the balance's slot by probing), and
chain.warp / chain.roll. Each write is told to whoever records calls (a trace, a replay), and the
call cache sees it as it sees any change: by value, so only the answers that read what changed
run again.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Iterator

from . import calls
from ..errors import UsageError
from ..evm.base import ExecResult
from ..units import to_wei
from .abi import selector
from .address import checksum, to_raw_address
from .api import Handle, current_project

if TYPE_CHECKING:
    from ..evm.base import Backend

WORD = 2**256
_DONE = ExecResult(success=True, output=b"", gas_used=0)
_BALANCE_OF = selector("balanceOf(address)")
_TOTAL_SUPPLY = selector("totalSupply()")
# what a probe writes to tell the slot a getter returns: a value no real balance holds
_PROBES = (0x1337_C0DE_1337_C0DE_1337_C0DE_1337_C0DE, 0xDEAD_BEEF_DEAD_BEEF_DEAD_BEEF)


def _word(value: Any, what: str) -> int:
    """A storage word from an int (negative ones in two's complement), a bool or exactly 32 bytes."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if not -(2**255) <= value < WORD:
            raise UsageError(f"{what}: {value} does not fit in a 256-bit storage word")
        return value % WORD
    if isinstance(value, (bytes, bytearray)) and len(value) == 32:
        return int.from_bytes(value, "big")
    if isinstance(value, str) and value[:2] in ("0x", "0X") and 0 < len(value) - 2 <= 64:
        try:
            return int(value, 16)
        except ValueError:
            pass
    raise UsageError(f"{what}: expected an int, a bool, 32 bytes or a 0x-prefixed hex word, got {value!r}")


def _code(value: Any, backend: "Backend") -> bytes:
    """Runtime code from bytes, a hex string, a deployed contract (the code at its address) or a container (its runtime
    code)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        text = value[2:] if value[:2] in ("0x", "0X") else value
        try:
            return bytes.fromhex(text)
        except ValueError:
            pass
    raw = getattr(value, "raw_address", None)
    if isinstance(raw, bytes):
        return backend.get_code(raw)
    artifact = getattr(value, "_artifact", None)
    if artifact is not None:
        return artifact.bytecode_runtime
    raise UsageError(
        f"chain.set_code: expected the code as bytes or hex, a deployed contract or a contract container, got {value!r}"
    )


class _Code:
    """Code as a trace shows it: its size and hash, not its bytes."""

    def __init__(self, code: bytes) -> None:
        self.code = code

    def __repr__(self) -> str:
        from eth_utils import keccak

        return f"<{len(self.code)} bytes of code, keccak 0x{keccak(self.code).hex()[:8]}>"


def _told(function: str, *args: Any) -> None:
    """Tell whoever records calls (a trace, a replay) about a write to the chain."""
    if calls.listeners:
        calls.notify(calls.CallRecord(None, f"chain.{function}", args, "chain", None, 0, _DONE))


class Chain(Handle):
    """The chain's clock and snapshots: time(), sleep(), mine(), height, and scopes that undo what happens in them.

    The clock and block number move forward, except inside a scope that will undo the move
    (chain.anchor(), or from chain.snapshot() until that snapshot is dropped): there they may
    also be set earlier, as Foundry's vm.warp and vm.roll do.
    """

    def __init__(self, backend: "Backend") -> None:
        self._backend = backend
        self._scopes: list[int] = []  # the user's snapshots: the clock may go back while one can still be reverted to

    def time(self) -> int:
        """The timestamp the next transaction will see."""
        return self._backend.timestamp

    def sleep(self, seconds: int) -> None:
        """Move the clock forward (or back, by a negative number, inside a scope that undoes it)."""
        seconds = int(seconds)
        self._sleep(seconds)
        _told("sleep", seconds)

    def _sleep(self, seconds: int) -> None:
        if seconds < 0 and self._scoped():
            self._backend.set_block(self._backend.timestamp + seconds, self._backend.block_number)
            return
        self._backend.sleep(seconds)

    def mine(self, blocks: int = 1, timestamp: int | None = None) -> None:
        """Advance the block number (and optionally set the time); back, inside a scope that undoes it."""
        blocks = int(blocks)
        timestamp = None if timestamp is None else int(timestamp)
        self._mine(blocks, timestamp)
        _told("mine", blocks, *(() if timestamp is None else (timestamp,)))

    def _mine(self, blocks: int, timestamp: int | None) -> None:
        backend = self._backend
        if (blocks < 0 or (timestamp is not None and timestamp < backend.timestamp)) and self._scoped():
            backend.set_block(backend.timestamp if timestamp is None else timestamp, backend.block_number + blocks)
            return
        backend.mine(blocks, timestamp)

    def warp(self, timestamp: int) -> None:
        """Set the clock to timestamp (Foundry's vm.warp): earlier only inside a scope that undoes it."""
        timestamp = int(timestamp)
        self._mine(0, timestamp) if timestamp >= self.time() else self._sleep(timestamp - self.time())
        _told("warp", timestamp)

    def roll(self, number: int) -> None:
        """Set the block number (Foundry's vm.roll): lower only inside a scope that undoes it."""
        self._mine(int(number) - self.height, None)
        _told("roll", int(number))

    @property
    def height(self) -> int:
        """The number of the block the next transaction goes into."""
        return self._backend.block_number

    @property
    def id(self) -> int:
        return self._backend.chain_id

    def snapshot(self) -> int:
        """Record the chain; revert(id) goes back to it. Until it is dropped, the clock may be set earlier."""
        sid = self._backend.snapshot()
        self._scopes.append(sid)
        return sid

    def revert(self, snapshot_id: int) -> None:
        self._backend.revert(snapshot_id)

    @contextlib.contextmanager
    def anchor(self) -> Iterator[None]:
        """A block after which the chain is as it was before it; inside, the clock may be set earlier."""
        backend = self._backend
        sid = self.snapshot()
        try:
            yield
        finally:
            backend.revert(sid)
            backend.release(sid)

    def _scoped(self) -> bool:
        """Whether a snapshot of the user's can still undo what happens now."""
        self._scopes = [sid for sid in self._scopes if self._backend.has_snapshot(sid)]
        return bool(self._scopes)

    # -- writes no transaction makes (Foundry's cheat codes) ------------------

    def set_balance(self, address: object, amount: object) -> None:
        """Give an address this much ether (an int of wei, or "1 ether"), as vm.deal does."""
        raw = to_raw_address(address, what="chain.set_balance")
        wei = to_wei(amount, what="chain.set_balance amount")
        self._backend.set_balance(raw, wei)
        _told("set_balance", checksum(raw), wei)

    def get_storage(self, address: object, slot: object) -> int:
        """The storage word at slot of an address, as an int (vm.load)."""
        return self._backend.get_storage(
            to_raw_address(address, what="chain.get_storage"), _word(slot, "chain.get_storage slot")
        )

    def set_storage(self, address: object, slot: object, value: object) -> None:
        """Write a storage word of an address (vm.store): an int (a negative one in two's complement), a bool or 32
        bytes."""
        raw = to_raw_address(address, what="chain.set_storage")
        key, word = _word(slot, "chain.set_storage slot"), _word(value, "chain.set_storage value")
        self._backend.set_storage(raw, key, word)
        _told("set_storage", checksum(raw), key, word)

    def set_code(self, address: object, code: object) -> None:
        """Put runtime code at an address (vm.etch): bytes, hex, a deployed contract's code or a container's runtime
        code."""
        raw = to_raw_address(address, what="chain.set_code")
        found = _code(code, self._backend)
        self._backend.set_code(raw, found)
        _told("set_code", checksum(raw), _Code(found))

    def deal(self, token: object, to: object, amount: object, adjust_total_supply: bool = False) -> None:
        """Set an ERC20-like token's balance of an address, as forge's deal does; adjust_total_supply moves
        totalSupply() by the difference.

        The slot is found by probing: balanceOf(to) runs, and each slot it read is written in turn
        until balanceOf answers what was written. A token whose balanceOf computes its answer
        (rebasing tokens, shares times a rate) has no such slot, and is refused.
        """
        raw_token = to_raw_address(token, what="deal token")
        raw_to = to_raw_address(to, what="deal to")
        wei = to_wei(amount, what="deal amount")
        if wei >= WORD:
            raise UsageError(f"deal: {wei} does not fit in a 256-bit word")
        where, slot = self._slot_of(raw_token, _BALANCE_OF + bytes(12) + raw_to, f"balanceOf({checksum(raw_to)})")
        before = self._backend.get_storage(where, slot)
        self._backend.set_storage(where, slot, wei)
        if adjust_total_supply:
            at, supply_slot = self._slot_of(raw_token, _TOTAL_SUPPLY, "totalSupply()")
            supply = self._backend.get_storage(at, supply_slot) - before + wei
            if not 0 <= supply < WORD:
                self._backend.set_storage(where, slot, before)
                raise UsageError(
                    f"deal: the total supply would become {supply}, outside a uint256; give adjust_total_supply=False "
                    "to leave it"
                )
            self._backend.set_storage(at, supply_slot, supply)
        _told("deal", checksum(raw_token), checksum(raw_to), wei, *((True,) if adjust_total_supply else ()))

    def _slot_of(self, token: bytes, data: bytes, what: str) -> tuple[bytes, int]:
        """The (address, slot) whose word the view call data returns as it is: found by writing each slot it reads."""
        backend = self._backend
        sender = bytes(20)
        result, reads = backend.storage_reads(sender, token, data)
        if not result.success or len(result.output) < 32:
            has_code = bool(backend.get_code(token))
            why = (
                "it reverted"
                if not result.success
                else "it returned no uint256"
                if has_code
                else "there is no code at that address"
            )
            raise UsageError(
                f"deal: {what} on 0x{token.hex()} failed ({why}): deal needs an ERC20-like token, whose "
                "balanceOf(address) and totalSupply() return a uint256"
            )
        for address, slot in reversed(reads):
            old = backend.get_storage(address, slot)
            probe = next(p for p in _PROBES if p != old)
            backend.set_storage(address, slot, probe)
            try:
                again, _ = backend.storage_reads(sender, token, data)
            finally:
                backend.set_storage(address, slot, old)
            if again.success and len(again.output) >= 32 and int.from_bytes(again.output[:32], "big") == probe:
                return address, slot
        raise UsageError(
            f"deal: {what} on 0x{token.hex()} does not return a word held in one storage slot (it read {len(reads)} "
            "slot(s), and writing each"
            " did not change its answer to what was written): a token that computes balances (rebasing, shares times a "
            "rate). Set its state with chain.set_storage(token, slot, value), or transfer from a holder with {'from': "
            "holder}."
        )

    def __repr__(self) -> str:
        return f"<Chain height={self.height} time={self.time()}>"


def deal(token: object, to: object, amount: object, adjust_total_supply: bool = False) -> None:
    """forge's deal: set an ERC20-like token's balance of an address on the token's chain (chain.deal)."""
    project = getattr(token, "_project", None) or current_project.get()
    if project is None:
        raise UsageError(
            "deal: no project is loaded; call chain.deal(token, to, amount) on the chain a machine is given"
        )
    getattr(project, "chain").deal(token, to, amount, adjust_total_supply)
