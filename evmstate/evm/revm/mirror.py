"""The revm backend's mirror of the world state in Python, and its writes into revm's database.

Account state is read here, never from revm (a read at journal depth 0 would leave the account
warm for good: backend.py). Every write goes to both and, while a snapshot is open, to the undo
log that takes it back; a transaction's changes, read from revm's journal, are written the same way.
"""

from __future__ import annotations

from typing import Any

from eth_utils import keccak

from ..base import Log, Snapshot
from .journal import EMPTY_CODE_HASH


class Mirror:
    """The state of a RevmBackend as Python data (a mixin of RevmBackend, which writes account info and blocks)."""

    account_keys: list[tuple[bytes, bytes]]
    last_writes: tuple[tuple[bytes, int, int], ...]
    _evm: Any
    _info: dict[bytes, list[Any]]
    _code: dict[bytes, bytes]
    _storage: dict[bytes, dict[int, int]]
    _undo: list[tuple[Any, ...]]
    _order: list[int]
    _logs: list[Log]
    _version: int
    _shadow_dirty: set[tuple[bytes, int | None]] | None

    def _h(self, address: bytes) -> str:
        raise NotImplementedError

    def _write_info(self, address: bytes, info: list[Any] | None, code: bytes | None = None) -> None:
        raise NotImplementedError

    def _set_block(self, timestamp: int, number: int) -> None:
        raise NotImplementedError

    # -- state access ---------------------------------------------------------

    def get_balance(self, address: bytes) -> int:
        info = self._info.get(address)
        return info[0] if info else 0

    def set_balance(self, address: bytes, value: int) -> None:
        info = self._info.get(address)
        new = [value, 0, EMPTY_CODE_HASH] if info is None else [value, info[1], info[2]]
        self._version += 1
        self._write_info(address, None if new == [0, 0, EMPTY_CODE_HASH] and not self._storage.get(address) else new)

    def set_storage(self, address: bytes, slot: int, value: int) -> None:
        """Write one storage word, as if the contract had (chain.set_storage); a snapshot revert takes it back."""
        self._version += 1
        self._write_slot(address, slot, value)

    def set_code(self, address: bytes, code: bytes) -> None:
        """Replace the code at an address (chain.set_code), its storage, balance and nonce kept."""
        info = self._info.get(address)
        code_hash = keccak(code) if code else EMPTY_CODE_HASH
        new = [0, 0, code_hash] if info is None else [info[0], info[1], code_hash]
        self._version += 1
        self._write_info(
            address, None if new == [0, 0, EMPTY_CODE_HASH] and not self._storage.get(address) else new, code
        )

    def get_nonce(self, address: bytes) -> int:
        info = self._info.get(address)
        return info[1] if info else 0

    def get_code(self, address: bytes) -> bytes:
        return self._code.get(address, b"")

    def get_storage(self, address: bytes, slot: int) -> int:
        storage = self._storage.get(address)
        return storage.get(slot, 0) if storage else 0

    @property
    def logs(self) -> list[Log]:
        return self._logs

    def _write_slot(self, address: bytes, slot: int, value: int) -> None:
        storage = self._storage.setdefault(address, {})
        if self._order:
            self._undo.append(("s", address, slot, storage.get(slot, 0)))
        if self._shadow_dirty is not None:
            self._shadow_dirty.add((address, slot))
        if value:
            storage[slot] = value
        else:
            storage.pop(slot, None)
        # pyrevm writes a slot to the database only while the account is not loaded, and loads
        # it as it writes: loaded at depth 0 it would stay warm for good, so the load is reverted
        evm = self._evm
        checkpoint = evm.snapshot()
        evm.insert_account_storage(self._h(address), slot, value)
        evm.revert(checkpoint)

    # -- snapshots ------------------------------------------------------------

    def _mark(self) -> Any:
        return len(self._undo)

    def _go_back(self, snap: Snapshot) -> None:
        undo = self._undo
        # an account or slot goes back to its oldest entry's value: the newer entries of it are not written
        oldest: dict[Any, int] = {}
        for i in range(len(undo) - 1, snap.mark - 1, -1):
            oldest[undo[i][1:3] if undo[i][0] == "s" else undo[i][1]] = i
        order, self._order = self._order, []  # writes below are not logged
        try:
            while len(undo) > snap.mark:
                entry = undo.pop()
                if entry[0] == "s":
                    if oldest[entry[1:3]] == len(undo):
                        self._write_slot(entry[1], entry[2], entry[3])
                elif oldest[entry[1]] == len(undo):
                    self._write_info(entry[1], entry[2], entry[3])
        finally:
            self._order = order
        self._version += 1

    def _released(self, snap: Snapshot) -> None:
        if not self._order:
            self._undo.clear()

    # -- kept states (base.Snapshots.keep): the undo log is the log of changed keys -------

    def _changed_mark(self) -> int:
        return len(self._undo)

    def _changed_since(self, mark: int) -> Any:
        return dict.fromkeys(entry[:3] if entry[0] == "s" else entry[:2] for entry in self._undo[mark:])

    def _values(self, keys: Any) -> dict[Any, Any]:
        values: dict[Any, Any] = {}
        for key in keys:
            if key[0] == "s":
                slots = self._storage.get(key[1])
                values[key] = slots.get(key[2], 0) if slots else 0
            else:
                info = self._info.get(key[1])
                values[key] = (None if info is None else list(info), self._code.get(key[1]))
        return values

    def _write_values(self, values: dict[Any, Any]) -> None:
        # accounts first: an account written as none keeps its storage, which its slots' values then set
        for key, (info, code) in ((k, v) for k, v in values.items() if k[0] == "a"):
            now = self._info.get(key[1])
            if now != info or (info is not None and self._code.get(key[1]) != code):
                self._write_info(key[1], None if info is None else list(info), code)
        storage = self._storage
        for key, value in values.items():
            if key[0] == "s":
                slots = storage.get(key[1])
                if (slots.get(key[2], 0) if slots else 0) != value:
                    self._write_slot(key[1], key[2], value)
        self._version += 1

    # -- a transaction's changes, the whole state -----------------------------

    def _apply(self, changes: dict[bytes, Any], adjust: dict[bytes, list[int]]) -> list[tuple[Any, ...]]:
        """Write a transaction's changes into the mirror and revm's database; returns how to undo them.

        adjust: address -> [balance delta, nonce delta] applied on top of the changes.
        """
        order, self._order = self._order, [0]  # log every write, to return this transaction's undo list
        mark = len(self._undo)
        writes = []
        for address in adjust:
            changes.setdefault(address, (None, None, {}, False))
        try:
            for address, (info, code, slots, destroyed) in changes.items():
                if destroyed:
                    for slot in list(self._storage.get(address, {})):
                        self._write_slot(address, slot, 0)
                    if address in self._info:
                        self._write_info(address, None)
                    continue
                delta = adjust.get(address)
                if delta is not None:
                    if info is None:
                        old = self._info.get(address)
                        info = list(old) if old is not None else [0, 0, EMPTY_CODE_HASH]
                    info[0] += delta[0]
                    info[1] += delta[1]
                if info is not None:
                    # EIP-161: an account the transaction left empty is deleted
                    empty = info[0] == 0 and info[1] == 0 and info[2] == EMPTY_CODE_HASH
                    self._write_info(address, None if empty else info, code)
                for slot, value in slots.items():
                    self._write_slot(address, slot, value)
                    writes.append((address, slot, value))
        finally:
            self._order = order
        undo = self._undo[mark:]
        if not order:
            del self._undo[mark:]
        self.last_writes = tuple(writes)
        return undo

    def state(self) -> dict[bytes, tuple[int, int, bytes, dict[int, int]]]:
        """The whole world state: address -> (balance, nonce, code, storage)."""
        return {
            address: (info[0], info[1], self._code.get(address, b""), dict(self._storage.get(address, {})))
            for address, info in self._info.items()
        } | {
            address: (0, 0, b"", dict(slots))
            for address, slots in self._storage.items()
            if slots and address not in self._info
        }

    def load_state(
        self, accounts: dict[bytes, tuple[int, int, bytes, dict[int, int]]], *, timestamp: int, block_number: int
    ) -> None:
        """Make the chain hold exactly these accounts (balance, nonce, code, storage) at this block, as
        PyEVMBackend.load_state().

        Accounts other than the funded ones must not exist yet: run it on a fresh chain, inside anchor().
        """
        for _, address in self.account_keys:
            if address not in accounts:
                self._write_info(address, None)
        for address, (balance, nonce, code, storage) in accounts.items():
            self._write_info(address, [balance, nonce, keccak(code) if code else EMPTY_CODE_HASH], code)
            for slot, value in storage.items():
                self._write_slot(address, slot, value)
        self._version += 1
        self._set_block(timestamp, block_number)
