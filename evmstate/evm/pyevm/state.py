"""py-evm's State and AccountDB as the backend needs them: original values per call, observed and recorded reads,
storage wipes a revert may take back."""

from __future__ import annotations

from typing import Any

from eth.abc import StateAPI
from eth.db.storage import CLEAR_COUNT_KEY_NAME, AccountStorageDB
from eth_typing import Address
from eth_utils import big_endian_to_int

def state_class(base: type[StateAPI], computation_class: type) -> type:
    """The fork's State, keeping each storage slot's value at the start of the current call.

    SSTORE gas (EIP-2200/3529) prices a write by the slot's original value, which py-evm
    reads from the last lock_changes(); this state is never locked, so the original is
    recorded per call instead.
    """

    class State(base):  # type: ignore[misc, valid-type]
        _originals: dict[tuple[bytes, int], int]
        _writes: list[tuple[bytes, int]] | None = None  # (address, slot) of each write, when watched
        # while a call runs with an observer set: (address, slot, value) of its writes and reads
        _observed_writes: list[tuple[bytes, int, int]] | None = None
        _observed_reads: list[tuple[bytes, int, int]] | None = None
        # while a call runs inside PyEVMBackend.reading(): the first value read of each slot
        _first_reads: dict[tuple[bytes, int], int] | None = None

        def get_storage(self, address: bytes, slot: int, from_journal: bool = True) -> int:
            if from_journal:
                value = self._account_db.get_storage(address, slot)
                if self._observed_reads is not None:
                    self._observed_reads.append((address, slot, value))
                if self._first_reads is not None:
                    self._first_reads.setdefault((address, slot), value)
                return value
            # Only SSTORE's gas rule asks for the original, and it asks before it writes:
            # the first time a slot is asked for in a call, its current value is the original.
            key = (address, slot)
            original = self._originals.get(key)
            if original is None:
                original = self._originals[key] = self._account_db.get_storage(address, slot)
                if self._first_reads is not None:
                    self._first_reads.setdefault(key, original)
            return original

        # while a read-only call runs for the call cache: the accounts it read, whether it read the block
        _account_reads: set[bytes] | None = None
        _block_read = False

        def _account_read(self, address: bytes) -> None:
            if self._account_reads is not None:
                self._account_reads.add(address)

        def get_balance(self, address: bytes) -> int:
            self._account_read(address)
            return super().get_balance(address)

        def get_nonce(self, address: bytes) -> int:
            self._account_read(address)
            return super().get_nonce(address)

        def get_code(self, address: bytes) -> bytes:
            self._account_read(address)
            return super().get_code(address)

        def get_code_hash(self, address: bytes) -> bytes:
            self._account_read(address)
            return super().get_code_hash(address)

        def account_exists(self, address: bytes) -> bool:
            self._account_read(address)
            return super().account_exists(address)

        def account_is_empty(self, address: bytes) -> bool:
            self._account_read(address)
            return super().account_is_empty(address)

        @property
        def timestamp(self) -> int:
            self._block_read = True
            return self.execution_context.timestamp

        @property
        def block_number(self) -> int:
            self._block_read = True
            return self.execution_context.block_number

        def get_ancestor_hash(self, block_number: int) -> bytes:
            self._block_read = True
            return super().get_ancestor_hash(block_number)

        def set_storage(self, address: bytes, slot: int, value: int) -> None:
            if self._writes is not None:
                self._writes.append((address, slot))
            if self._observed_writes is not None:
                self._observed_writes.append((address, slot, value))
            super().set_storage(address, slot, value)

    State.computation_class = computation_class
    State.account_db_class = account_db_class(base.account_db_class)
    State.__name__ = f"Evmstate{base.__name__}"
    return State


class StorageDB(AccountStorageDB):
    """An account's storage that a revert may take back across any number of storage wipes.

    EIP-161 deletes touched empty accounts (every precompile a call reaches) at the end of
    each transaction, and deleting an account wipes its storage and counts one more wipe.
    py-evm refuses a revert that takes back more than one wipe ("This revert has changed the
    clear count in an invalid way"), because on its chain changes are locked after every
    transaction; here one snapshot spans many transactions. The storage kept before each
    wipe is a stack, so going back to any earlier count is the same rollback.
    """

    def discard(self, checkpoint) -> None:
        latest = big_endian_to_int(self._clear_count[CLEAR_COUNT_KEY_NAME])
        if self._journal_storage.has_checkpoint(checkpoint):
            self._journal_storage.discard(checkpoint)
            self._clear_count.discard(checkpoint)
        else:
            # the checkpoint is older than this account's tracking: back to the beginning
            self._journal_storage.reset()
            self._clear_count.reset()
        self._storage_cache.reset_cache()
        reverted = big_endian_to_int(self._clear_count[CLEAR_COUNT_KEY_NAME])
        if reverted < latest:
            self._storage_lookup.rollback_trie(reverted)


def account_db_class(base: type) -> type:
    """The fork's AccountDB, keeping each account's storage in a StorageDB."""

    class AccountDB(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # every address and storage slot ever written, reverted or not: where PyEVMBackend.world() looks
            self.written: dict[bytes, set[int]] = {}
            # what was changed, in order: ("a", address), ("w", address) (its storage wiped), ("s", address, slot);
            # cut back by a revert to a snapshot (the kept states' log, base.Snapshots.keep)
            self.changed: list[tuple[Any, ...]] = []

        def _set_account(self, address: bytes, account: Any) -> None:
            self.written.setdefault(address, set())
            self.changed.append(("a", address))
            super()._set_account(address, account)

        def set_storage(self, address: bytes, slot: int, value: int) -> None:
            self.written.setdefault(address, set()).add(slot)
            self.changed.append(("s", address, slot))
            super().set_storage(address, slot, value)

        def _wipe_storage(self, address: Address) -> None:
            self.changed.append(("w", address))
            self.changed.append(("a", address))  # deleted with it, or its storage root reset
            super()._wipe_storage(address)

        def _get_address_store(self, address: Address):
            store = self._account_stores.get(address)
            if store is None:
                store = self._account_stores[address] = StorageDB(
                    self._raw_store_db, self._get_storage_root(address), address
                )
            return store

    AccountDB.__name__ = f"Evmstate{base.__name__}"
    return AccountDB


