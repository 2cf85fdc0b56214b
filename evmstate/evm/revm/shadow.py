"""Failed revm calls explained on py-evm: the shadow chain that holds what revm holds, and the call run again on it.

revm gives no pcs (revm.py): the source line, failed check and dev comment of a failed call come
from running it again on a py-evm chain written from the revm backend's mirror of the state
(only what changed since the last time), from the state before the call (its undo list taken back).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from ..base import ChainSpec, ExecResult
from ..cache import Entry, Reads
from .journal import EMPTY_CODE_HASH
from ..pyevm.backend import PyEVMBackend


class Explaining:
    """The revm backend's explanations of failed calls (a mixin of RevmBackend, over its mirror of the state)."""

    spec: ChainSpec
    _info: dict[bytes, list[Any]]
    _code: dict[bytes, bytes]
    _storage: dict[bytes, dict[int, int]]
    _version: int
    _timestamp: int
    _number: int
    _shadow: Any
    _shadow_dirty: set[tuple[bytes, int | None]] | None
    _explained: dict[tuple[Any, ...], Entry]
    shadow_runs: int

    def state(self) -> dict[bytes, tuple[int, int, bytes, dict[int, int]]]:
        raise NotImplementedError

    def get_storage(self, address: bytes, slot: int) -> int:
        raise NotImplementedError

    def _explainer(self, kind: str, args: tuple[Any, ...], undo: list[tuple[Any, ...]]) -> Callable[[], ExecResult | None]:
        """A function that runs this failed call again on py-evm, for its failing frames.

        It works while the state is as the call left it; after any change it returns None.
        """
        version = self._version

        def explain() -> ExecResult | None:
            if self._version != version:
                return None
            return self._run_on_py_evm(kind, args, undo)

        return explain

    def _run_on_py_evm(self, kind: str, args: tuple[Any, ...], undo: list[tuple[Any, ...]]) -> ExecResult:
        """The call run again on py-evm from the state before it, or the result of an earlier run
        of the same call (kind, args) that read the same values: the same code, the same check failed.
        """
        before = Before(self, undo)
        key = (kind, args)
        known = self._explained.get(key)
        if known is not None and before.unchanged(known):
            return known.result
        result, reads = self._shadow_run(kind, args, undo)
        self.shadow_runs += 1
        to = args[1]
        if to is not None:  # a deployment's address depends on the sender's nonce: not kept
            reads.accounts.add(to)
            if len(self._explained) >= 4096:
                self._explained.clear()
            accounts = tuple((a, before.account(a)) for a in reads.accounts)
            block = (self._timestamp, self._number) if reads.block else None
            storage = tuple((a, s, v) for (a, s), v in reads.storage.items())
            self._explained[key] = Entry(result, result, storage, accounts, block, None)
        return result

    def py_evm(self) -> PyEVMBackend:
        """A py-evm chain holding what revm holds now (made once; from then on only what changed is written to it)."""
        shadow = self._shadow
        if shadow is None:
            shadow = self._shadow = PyEVMBackend(dataclasses.replace(self.spec, call_cache="off"))
            shadow.load_state(self.state(), timestamp=self._timestamp, block_number=self._number)
            self._shadow_dirty = set()
        elif self._shadow_dirty:
            accounts, slots = self._shadow_changes(self._shadow_dirty)
            shadow.write_state(accounts, slots)
            self._shadow_dirty.clear()
        return shadow

    def _shadow_run(self, kind: str, args: tuple[Any, ...], undo: list[tuple[Any, ...]]) -> tuple[ExecResult, Reads]:
        shadow = self.py_evm()
        # the state before the call: its own changes undone
        accounts, slots = {}, {}
        for entry in reversed(undo):
            address = entry[1]
            if entry[0] == "s":
                slots[(address, entry[2])] = entry[3]
            else:
                accounts[address] = None if entry[2] is None else (entry[2][0], entry[2][1], entry[3] or b"")
        with shadow.anchor():
            shadow.write_state(accounts, slots, block=(self._timestamp, self._number))
            with shadow.reading() as reads:
                result = shadow.transact(*args) if kind == "transact" else shadow.call(*args)
        return result, reads

    def _shadow_changes(self, dirty: set[tuple[bytes, int | None]]) -> tuple[dict[bytes, Any], dict[tuple[bytes, int], int]]:
        """The accounts and slots that changed since the shadow was written, as they are now."""
        accounts: dict[bytes, Any] = {}
        slots: dict[tuple[bytes, int], int] = {}
        for address, slot in dirty:
            if slot is None:
                info = self._info.get(address)
                accounts[address] = None if info is None else (info[0], info[1], self._code.get(address, b""))
                if info is None:  # a deleted account's storage goes with it: what is left is written again
                    slots.update(((address, k), v) for k, v in self._storage.get(address, {}).items())
            else:
                slots[(address, slot)] = self.get_storage(address, slot)
        return accounts, slots


class Before:
    """The revm state as it was before the last call: what is now, with that call's own changes (its undo list) taken back."""

    def __init__(self, backend: Any, undo: list[tuple[Any, ...]]) -> None:
        self.backend = backend
        self.accounts: dict[bytes, Any] = {}
        self.slots: dict[tuple[bytes, int], int] = {}
        for entry in reversed(undo):  # the oldest value of each wins
            if entry[0] == "s":
                self.slots[(entry[1], entry[2])] = entry[3]
            else:
                self.accounts[entry[1]] = entry[2]

    def account(self, address: bytes) -> tuple[int, int, bytes, bool]:
        """(balance, nonce, code hash, exists), as py-evm sees an account."""
        info = self.accounts[address] if address in self.accounts else self.backend._info.get(address)
        return (0, 0, EMPTY_CODE_HASH, False) if info is None else (info[0], info[1], info[2], True)

    def unchanged(self, known: Entry) -> bool:
        get = self.backend.get_storage
        for address, slot, value in known.storage:
            was = self.slots.get((address, slot))
            if (get(address, slot) if was is None else was) != value:
                return False
        for address, state in known.accounts:
            if self.account(address) != state:
                return False
        return known.block is None or known.block == (self.backend.timestamp, self.backend.block_number)
