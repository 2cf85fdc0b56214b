"""The py-evm backend's state as the harness reads and writes it: balances, nonces, code, storage, whole worlds; its
snapshots (py-evm's journal checkpoints) and kept states.

A mixin of PyEVMBackend (backend.py), over its long-lived VM state (_state) and account database.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..cache import Reads
from ..base import Snapshot


class StateAccess:
    """Reading and writing the chain's accounts outside any call; every write marks the state dirty (a snapshot then
    persists first)."""

    _state: Any
    _account_db: Any
    _dirty: bool
    _reading: Reads | None
    account_keys: Any
    _set_block: Any  # (timestamp, number): the backend's
    _order: list[int]  # the live snapshots (snapshots.Snapshots)

    def get_balance(self, address: bytes) -> int:
        return self._state.get_balance(address)

    def set_balance(self, address: bytes, value: int) -> None:
        self._dirty = True
        self._state.set_balance(address, value)

    def get_nonce(self, address: bytes) -> int:
        return self._state.get_nonce(address)

    def get_code(self, address: bytes) -> bytes:
        return self._state.get_code(address)

    def get_storage(self, address: bytes, slot: int) -> int:
        return self._account_db.get_storage(address, slot)

    def set_storage(self, address: bytes, slot: int, value: int) -> None:
        """Write one storage word, as if the contract had (chain.set_storage); a snapshot revert takes it back."""
        self._dirty = True
        self._state.set_storage(address, slot, value)

    def set_code(self, address: bytes, code: bytes) -> None:
        """Replace the code at an address (chain.set_code), its storage, balance and nonce kept."""
        self._dirty = True
        self._state.set_code(address, code)

    def watch_storage(self, on: bool = True) -> None:
        """Record the address and slot of every storage write from now on (see written()); on=False stops."""
        self._state._writes = [] if on else None

    def written(self) -> list[tuple[bytes, int]]:
        """The (address, slot) pairs written since the last written(), while watch_storage() is on."""
        writes = self._state._writes
        if writes is None:
            return []
        self._state._writes = []
        return writes

    def load_state(
        self, accounts: dict[bytes, tuple[int, int, bytes, dict[int, int]]], *, timestamp: int, block_number: int
    ) -> None:
        """Make the chain hold exactly these accounts (balance, nonce, code, storage) at this block.

        Accounts other than the funded ones must not exist yet: run it on a fresh chain, inside anchor().
        """
        self._dirty = True
        state = self._state
        for _, address in self.account_keys:
            if address not in accounts:
                state.delete_account(address)
        for address, (balance, nonce, code, storage) in accounts.items():
            state.set_balance(address, balance)
            state.set_nonce(address, nonce)
            state.set_code(address, code)
            for slot, value in storage.items():
                state.set_storage(address, slot, value)
        self._set_block(timestamp, block_number)

    def world(self) -> dict[bytes, tuple[int, int, bytes, dict[int, int]]]:
        """Every account holding anything: address -> (balance, nonce, code, nonzero storage), as load_state() takes
        it."""
        db = self._account_db
        world = {}
        for address in dict.fromkeys([*(a for _, a in self.account_keys), *db.written]):
            storage = {slot: value for slot in db.written.get(address, ()) if (value := db.get_storage(address, slot))}
            account = (db.get_balance(address), db.get_nonce(address), db.get_code(address), storage)
            if any(account):
                world[address] = account
        return world

    # -- snapshots ----------------------------------------------------------

    def _mark(self) -> Any:
        if not self._order and self._dirty:
            # Persisting first keeps the journal empty under the outermost snapshot,
            # so snapshot and revert cost nothing per account already in the state.
            self._state.persist()
            self._dirty = False
        return self._state.snapshot()

    def _go_back(self, snap: Snapshot) -> None:
        self._state.revert(snap.mark)
        snap.mark = self._state.snapshot()
        del self._account_db.changed[snap.changed :]

    def _released(self, snap: Snapshot) -> None:
        self._state.commit(snap.mark)
        if not self._order:
            self._account_db.changed.clear()

    # -- kept states (snapshots.Snapshots.keep): the account database's log of changed keys -------------

    def _changed_mark(self) -> int:
        return len(self._account_db.changed)

    def _changed_since(self, mark: int) -> Any:
        return dict.fromkeys(self._account_db.changed[mark:])

    def _values(self, keys: Any) -> dict[Any, Any]:
        db = self._account_db
        values: dict[Any, Any] = {}
        for key in keys:
            if key[0] == "s":
                values[key] = db.get_storage(key[1], key[2])
            elif key[0] == "a":
                address = key[1]
                exists = db.account_exists(address)
                values[key] = (db.get_balance(address), db.get_nonce(address), db.get_code(address)) if exists else None
            else:
                values[key] = True
        return values

    def _write_values(self, values: dict[Any, Any]) -> None:
        self._dirty = True
        state, db = self._state, self._account_db
        # storage wiped since the snapshot first, then the accounts (made, changed or deleted), then the slots
        for key in values:
            if key[0] == "w":
                state.delete_account(key[1])
        for key, value in values.items():
            if key[0] != "a":
                continue
            address = key[1]
            if value is None:
                if db.account_exists(address):
                    state.delete_account(address)
                continue
            balance, nonce, code = value
            if not db.account_exists(address) or db.get_balance(address) != balance:
                state.set_balance(address, balance)
            if db.get_nonce(address) != nonce:
                state.set_nonce(address, nonce)
            if db.get_code(address) != code:
                state.set_code(address, code)
        for key, value in values.items():
            if key[0] == "s" and db.get_storage(key[1], key[2]) != value:
                state.set_storage(key[1], key[2], value)

    @contextlib.contextmanager
    def reading(self) -> Iterator[Reads]:
        """Record what the messages of calls and transactions made inside the block read (the call cache stays out of
        it)."""
        reads = self._reading = Reads()
        try:
            yield reads
        finally:
            self._reading = None

    def write_state(
        self, accounts: dict[bytes, tuple[int, int, bytes] | None], slots: dict[tuple[bytes, int], int], *,
        block: tuple[int, int] | None = None,
    ) -> None:
        """Set these accounts (balance, nonce, code; None: no account, its storage wiped) and then these slots; block:
        (timestamp, number)."""
        self._dirty = True
        state = self._state
        for address, info in accounts.items():
            if info is None:
                state.delete_account(address)
            else:
                state.set_balance(address, info[0])
                state.set_nonce(address, info[1])
                state.set_code(address, info[2])
        for (address, slot), value in slots.items():
            state.set_storage(address, slot, value)
        if block is not None:
            self._set_block(*block)
