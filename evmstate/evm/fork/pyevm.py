"""The py-evm backend over a forked chain: an AccountDB whose misses are read from the fork's state.

An account or storage slot nobody has written here is the fork's, read through ForkSource on
first use; one written here is py-evm's own. Which is which is kept in a journal of marks that
records, discards and commits with py-evm's own checkpoints, so a snapshot's revert takes a
write back to the fork's value, and a slot written to zero stays zero (py-evm stores zero as
nothing, which alone could not tell it from a slot never written).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import rlp

from ..pyevm import deferred  # noqa: F401  (first: py-evm's BLS12-381 precompiles load on first call)
from eth.constants import BLANK_ROOT_HASH, EMPTY_SHA3
from eth.db.backends.memory import MemoryDB
from eth.db.journal import JournalDB
from eth.rlp.accounts import Account
from eth_utils import keccak

from ..base import ChainSpec
from ..pyevm.backend import PyEVMBackend
from .store import ForkSource, source_for

LOCAL = b"l"


def encoded_fork_account(source: ForkSource, address: bytes, codes: dict[bytes, bytes], raw_store_db: Any) -> bytes:
    """The fork's account at address, RLP-encoded as py-evm keeps it; its code stored by its hash in both."""
    balance, nonce, code = source.account(address)
    if not (balance or nonce or code):
        return b""
    code_hash: bytes = EMPTY_SHA3
    if code:
        code_hash = keccak(code)
        raw_store_db[code_hash] = code  # stored by its hash: no revert needs to take it back
        codes[code_hash] = code
    account = Account(nonce=nonce, balance=balance, storage_root=BLANK_ROOT_HASH, code_hash=code_hash)
    return rlp.encode(account, sedes=Account)


def fork_account_db_class(base: type, source: ForkSource, local: frozenset[bytes]) -> type:
    """base (the backend's AccountDB) with the fork's accounts and slots under what is written here; local: addresses
    that start as py-evm's."""

    forked: dict[bytes, bytes] = {}  # address -> the fork's account, RLP-encoded as py-evm keeps it (it never changes)
    codes: dict[bytes, bytes] = {}  # code hash -> code, of the fork's accounts

    class ForkAccountDB(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._marks = JournalDB(MemoryDB())
            super().__init__(*args, **kwargs)
            for address in local:
                self._marks[address] = LOCAL

        # -- accounts --
        def _get_encoded_account(self, address: bytes, from_journal: bool = True) -> bytes:
            if address in self._marks:
                return super()._get_encoded_account(address, from_journal)
            encoded = forked.get(address)
            if encoded is None:
                encoded = forked[address] = encoded_fork_account(source, address, codes, self._raw_store_db)
            return encoded

        def get_code(self, address: bytes) -> bytes:
            # the fork's code (by its hash: a touched account is marked) at once, not through the databases below the
            # journal
            code = codes.get(self._get_account(address).code_hash)
            return code if code is not None else super().get_code(address)

        def _set_account(self, address: bytes, account: Any) -> None:
            self._marks[address] = LOCAL
            super()._set_account(address, account)

        def delete_account(self, address: bytes) -> None:
            self._marks[address] = LOCAL
            self._marks[b"w" + address] = LOCAL  # its storage is wiped: the fork's slots are gone too
            super().delete_account(address)

        # -- storage --
        def get_storage(self, address: bytes, slot: int, from_journal: bool = True) -> int:
            marks = self._marks
            if address + slot.to_bytes(32, "big") in marks or b"w" + address in marks:
                return super().get_storage(address, slot, from_journal)
            # the fork's value: py-evm's own lookup (a miss down to an empty storage trie) is not needed
            return source.storage(address, slot)

        def set_storage(self, address: bytes, slot: int, value: int) -> None:
            self._marks[address + slot.to_bytes(32, "big")] = LOCAL
            super().set_storage(address, slot, value)

        # -- the marks follow py-evm's checkpoints --
        def record(self) -> Any:
            checkpoint = super().record()
            self._marks.record(checkpoint)
            return checkpoint

        def discard(self, checkpoint: Any) -> None:
            super().discard(checkpoint)
            self._marks.discard(checkpoint)

        def commit(self, checkpoint: Any) -> None:
            super().commit(checkpoint)
            self._marks.commit(checkpoint)

        def persist(self) -> Any:
            witness = super().persist()
            self._marks.persist()
            return witness

    ForkAccountDB.__name__ = f"Fork{base.__name__}"
    return ForkAccountDB


class ForkedPyEVMBackend(PyEVMBackend):
    """A py-evm chain holding a forked chain's state at its pinned block, read lazily; the funded accounts are
    evmstate's own.
    """

    def __init__(self, spec: ChainSpec | None = None, **options: Any) -> None:
        spec = spec if spec is not None else ChainSpec(**options)
        assert spec.fork is not None, "a forked backend needs ChainSpec.fork"
        self.fork = source_for(spec.fork)
        header = self.fork.header()
        super().__init__(dataclasses.replace(spec, chain_id=spec.fork.chain_id, timestamp=header.timestamp))
        # the state py-evm built, rebuilt over the same database with the forked AccountDB
        built = self._state
        local = frozenset(address for _, address in self.account_keys)
        state_class = type(
            f"Forked{type(built).__name__}", (type(built),),
            {"account_db_class": fork_account_db_class(type(built).account_db_class, self.fork, local)},
        )
        self._state = state = state_class(built._db, built.execution_context, built.state_root)
        state._originals = {}
        self._account_db = state._account_db
        if self.evm_version in ("cancun", "prague"):
            self._clear_transient = state.clear_transient_storage
        self._ctx_args.update(coinbase=header.coinbase, mix_hash=header.prevrandao)
        if self._ctx_args.get("base_fee_per_gas") is not None:  # London and later
            self._ctx_args["base_fee_per_gas"] = header.base_fee
        self._set_block(header.timestamp, header.number)
        self.finisher = None  # revm's finisher would run a runaway call on a chain without the fork's state
