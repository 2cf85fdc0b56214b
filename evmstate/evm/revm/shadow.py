"""What the revm backend asks of py-evm: the shadow chain that holds what revm holds, and calls run again on it.

revm gives no pcs (revm.py): the source line, failed check and dev comment of a failed call come
from running it again on a py-evm chain written from the revm backend's mirror of the state
(only what changed since the last time), from the state before the call (its undo list taken back).
The same chain tells the calls inside a call that failed (revm keeps no record of them), and runs
in revm's place what revm would run otherwise: a call or transaction from an address with code
whose code hash some code may read (revm.RevmBackend._let_code_send).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from eth_utils import keccak

from ..base import ChainSpec, ExecResult, InnerFailure, intrinsic_gas
from ..cache import CALL_OPCODES, Entry, Reads, opcodes, runnable_opcodes
from .journal import EMPTY_CODE_HASH
from ..pyevm.backend import PyEVMBackend
from .sight import Outcome
from ...files import Bounded

EXTCODEHASH = 0x3F
MAKES_CALLS = CALL_OPCODES | {0xF0, 0xF5}  # and CREATE, CREATE2: the opcodes that start a call inside a call
_reads_a_hash: Bounded[bytes, bool] = Bounded(4097)  # code -> whether it holds EXTCODEHASH


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
    _inner = False  # results carry the calls inside them that failed (set_inner_failures)
    _logs: list[Any]
    sight: Any
    shadow_runs: int
    inner_runs = 0  # calls run again on py-evm for the calls inside them that failed (set_inner_failures)

    def state(self) -> dict[bytes, tuple[int, int, bytes, dict[int, int]]]:
        raise NotImplementedError

    def get_code(self, address: bytes) -> bytes:
        raise NotImplementedError

    def get_storage(self, address: bytes, slot: int) -> int:
        raise NotImplementedError

    def _apply(self, changes: dict[bytes, Any], adjust: dict[bytes, list[int]]) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _transacted(self, *fields: Any) -> ExecResult:
        raise NotImplementedError

    # -- calls inside a call that failed ---------------------------------------------

    def set_inner_failures(self, on: bool) -> None:
        """From now on (until off), each result carries the calls inside it that failed: revm does not tell them, so
        each call whose code can make calls runs on py-evm too."""
        self._inner = on

    def _inner_failures(self, kind: str, args: tuple[Any, ...]) -> tuple[InnerFailure, ...]:
        """The calls inside this call or transaction (kind, args) that failed, from running it on py-evm; none without
        running it where the code it runs cannot run a CALL, CREATE or their kin (a call that makes no call has none
        inside it), as a token's code cannot."""
        to, data = args[1], args[2]
        if not runnable_opcodes(data if to is None else self.get_code(to)) & MAKES_CALLS:  # a fork seeds its code
            return ()
        self.inner_runs += 1
        return self._on_py_evm(kind, args, inner=True).inner_failures

    def _on_py_evm(self, kind: str, args: tuple[Any, ...], inner: bool = False) -> ExecResult:
        """The call or transaction run on the shadow chain from the state the mirror holds now, and put back."""
        shadow = self.py_evm()
        shadow.set_inner_failures(inner)
        try:
            with shadow.anchor():
                shadow.set_block(self._timestamp, self._number)
                return shadow.transact(*args) if kind == "transact" else shadow.call(*args)
        finally:
            shadow.set_inner_failures(False)

    # -- senders with code whose code hash may be read ---------------------------------

    def _codehash_readable(self) -> bool:
        """Whether any code this chain holds may read a code hash (EXTCODEHASH): then a sender with code runs on
        py-evm."""
        readers = _reads_a_hash
        for code in self._code.values():
            reads = readers.get(code)
            if reads is None:
                reads = readers[code] = EXTCODEHASH in opcodes(code)
            if reads:
                return True
        return False

    def _transact_on_py_evm(
        self, sender: bytes, to: bytes | None, data: bytes, value: int, asked: int | None, gas: int, at_cap: bool
    ) -> ExecResult:
        """A transaction from an address with code that may read its code hash, run on py-evm and its changes written
        here."""
        shadow = self.py_evm()
        with shadow.anchor():
            shadow.set_block(self._timestamp, self._number)
            shadow.watch_storage()
            shadow.set_inner_failures(self._inner)
            try:
                with shadow.reading() as reads:
                    ran = shadow.transact(sender, to, data, value, asked)
                written = shadow.written()
            finally:
                shadow.watch_storage(False)
                shadow.set_inner_failures(False)
            created = [ran.contract_address] if ran.contract_address else []
            changes = self._changes_on(shadow, [sender, *created, *reads.accounts, *(a for a, _ in written)], written)
        seen = None
        if self.sight.on:  # from the state before it, which the mirror still holds
            intrinsic = intrinsic_gas(data, to is None)[0]
            changed = (
                {(a, k): v for a, (_, _, slots, _) in changes.items() for k, v in slots.items()}
                if ran.success
                else None
            )
            outcome = Outcome(
                ran.success, ran.error == "revert", ran.output, ran.logs, changed, ran.gas_used, gas - intrinsic,
                intrinsic,
            )
            seen = self.sight.see(True, sender, to, data, value, asked, False, outcome)
            self.sight.record(seen)
        undo = self._apply(changes, {})
        self._version += 1
        if ran.success:
            self._logs.extend(ran.logs)
        args = (sender, to, data, value, asked)
        return self._transacted(
            ran.success, ran.output, ran.gas_used, ran.logs, ran.error, ran.contract_address, gas, at_cap,
            ran.inner_failures, seen, args, undo,
        )

    def _changes_on(self, shadow: Any, addresses: list[bytes], written: list[tuple[bytes, int]]) -> dict[bytes, Any]:
        """What the shadow holds that differs from the mirror, among these accounts and slots: as journal.read_changes()
        gives it."""
        changes: dict[bytes, Any] = {}
        for address in dict.fromkeys(addresses):
            balance, nonce, code = shadow.get_balance(address), shadow.get_nonce(address), shadow.get_code(address)
            old = self._info.get(address)
            if not (balance or nonce or code):
                if old is not None:
                    changes[address] = (None, None, {}, True)
                continue
            info = [balance, nonce, keccak(code) if code else EMPTY_CODE_HASH]
            if info != old:
                changes[address] = (info, code if old is None or old[2] != info[2] else None, {}, False)
        for address, slot in dict.fromkeys(written):
            value = shadow.get_storage(address, slot)
            if value != self.get_storage(address, slot) and not (address in changes and changes[address][3]):
                changes.setdefault(address, (None, None, {}, False))[2][slot] = value
        return changes

    # -- explaining failures -------------------------------------------------------------

    def _explainer(
        self, kind: str, args: tuple[Any, ...], undo: list[tuple[Any, ...]]
    ) -> Callable[[], ExecResult | None]:
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

    def _shadow_changes(
        self, dirty: set[tuple[bytes, int | None]]
    ) -> tuple[dict[bytes, Any], dict[tuple[bytes, int], int]]:
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
    """The revm state as it was before the last call: what is now, with that call's own changes (its undo list) taken
    back."""

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
