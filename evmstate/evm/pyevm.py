"""The py-evm backend: accounts, execution, snapshot/revert, block time on py-evm's own state.

Calls run as single messages against one long-lived VM state, never through the
chain's transaction path: that path signs, mines and locks changes after every
transaction, which costs an order of magnitude in speed and makes a base snapshot
impossible to revert to. What the transaction path would do around the message
(intrinsic gas, nonce, gas purchase and refund, per-transaction warm sets, original
storage values, transient storage, EIP-161 clean-up) is done here instead.

JUMP and JUMPI are replaced by hooked copies: each frame remembers its last taken jump (the
only clue to which check sent it to vyper's shared REVERT), and every few hundred jumps the
call's CPU time is checked against its limit. With coverage on (set_coverage), the same hooks
record every branch taken or not and every jump destination. Calls get at most the per-call
gas cap. Storage reads and writes and each call's result can be observed (set_observer).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable

from eth.chains.base import MiningChain
from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.db.atomic import AtomicDB
from eth.db.storage import CLEAR_COUNT_KEY_NAME, AccountStorageDB
from eth.exceptions import InvalidInstruction, InvalidJumpDestination, OutOfGas, Revert
from eth.vm import opcode_values
from eth.vm.opcode_values import JUMPDEST
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks import CancunVM, LondonVM, ParisVM, PragueVM, ShanghaiVM
from eth.vm.forks.spurious_dragon._utils import collect_touched_accounts
from eth.vm.message import Message
from eth._utils.address import generate_contract_address
from eth_utils import big_endian_to_int

from ..errors import UsageError
from .base import (
    INITCODE,
    SHORT_LIMIT_FACTOR,
    SHORT_LIMIT_FLOOR,
    ZERO_ADDRESS,
    BlockTime,
    Capabilities,
    ChainSpec,
    Coverage,
    ExecResult,
    Frame,
    JumpRecorder,
    Log,
    Snapshot,
    Timeout,
    account_keys,
    intrinsic_gas,
)

VMS = {"london": LondonVM, "paris": ParisVM, "shanghai": ShanghaiVM, "cancun": CancunVM, "prague": PragueVM}
# the clock is read once every this many jumps: about every millisecond of execution
CHECK_EVERY = 256
# Calls are timed in the CPU time of the thread running them, not wall-clock time: on a busy
# machine (CI runners, other processes) a call is not charged for the time it waits, so whether
# it timed out does not depend on the load.
_cpu_time = time.thread_time




class _TimedOut(Exception):
    """Raised inside py-evm by a jump hook when the call passed its deadline.

    Not a VMError on purpose: py-evm would turn a VMError into a failed frame and let the
    calling frame carry on; this unwinds every frame at once, and the backend restores the
    state from before the call.
    """

    def __init__(self, frame: "Frame", key: tuple[Any, ...] = ()) -> None:
        super().__init__()
        self.frame = frame  # where the call was running when time ran out (a known runaway: the first time)
        self.key = key  # the call, as PyEVMBackend._run knows it


class _Clock:
    """The current call's deadline, read by the jump hooks once every CHECK_EVERY jumps."""

    __slots__ = ("deadline",)

    def __init__(self) -> None:
        self.deadline = math.inf

    def check(self, computation: Any) -> None:
        if _cpu_time() > self.deadline:
            raise _TimedOut(_frame(computation))


# JUMP and JUMPI are written out here rather than wrapping py-evm's (eth.vm.logic.flow): one
# Python call less per jump keeps the hooks' cost in a tight loop small (benchmarks/jumps.py).
# Gas and semantics are checked against py-evm's own transaction path in tests/integration.


def _jump(gas: int, clock: _Clock, hits: Coverage | None = None) -> Callable[..., None]:
    """JUMP, plus the clock: every loop jumps, so a runaway call is caught here.

    With hits, every destination is recorded: a block of code ran from there.
    """
    countdown = CHECK_EVERY

    def jump(computation: Any) -> None:
        nonlocal countdown
        computation.consume_gas(gas, "JUMP")
        dest = computation.stack_pop1_int()
        code = computation.code
        code.program_counter = dest
        if code.peek() != JUMPDEST:
            raise InvalidJumpDestination("Invalid Jump Destination")
        if not code.is_valid_opcode(dest):
            raise InvalidInstruction("Jump resulted in invalid instruction")
        countdown -= 1
        if not countdown:
            countdown = CHECK_EVERY
            clock.check(computation)

    if hits is None:
        return jump

    def covering_jump(computation: Any) -> None:
        nonlocal countdown
        computation.consume_gas(gas, "JUMP")
        dest = computation.stack_pop1_int()
        code = computation.code
        code.program_counter = dest
        if code.peek() != JUMPDEST:
            raise InvalidJumpDestination("Invalid Jump Destination")
        if not code.is_valid_opcode(dest):
            raise InvalidInstruction("Jump resulted in invalid instruction")
        try:
            seen = computation._evmstate_seen
        except AttributeError:
            seen = computation._evmstate_seen = _seen(hits, computation.msg)
        seen.add(~dest)
        countdown -= 1
        if not countdown:
            countdown = CHECK_EVERY
            clock.check(computation)

    return covering_jump


def _seen(hits: Coverage, msg: Any) -> set[int]:
    """The set a frame records its jumps into: one per code address, or per contract being created."""
    address = msg.code_address
    key = address if address else INITCODE + msg.storage_address
    seen = hits.get(key)
    if seen is None:
        seen = hits[key] = set()
    return seen


def _jumpi(gas: int, clock: _Clock, recorder: JumpRecorder | None, hits: Coverage | None = None) -> Callable[..., None]:
    """JUMPI, plus the clock and the frame's last taken jump.

    vyper sends every failed check without a reason to one shared REVERT, so the REVERT's pc
    says nothing; the pc of the jump that led there names the check. recorder, when given,
    is told (code address, pc, taken) of every JUMPI; hits, when given, records the branch
    taken or not and where it went (see Coverage).
    """
    countdown = CHECK_EVERY

    def jumpi(computation: Any) -> None:
        nonlocal countdown
        computation.consume_gas(gas, "JUMPI")
        dest, condition = computation.stack_pop_ints(2)
        if condition:
            code = computation.code
            computation._evmstate_jump = code.program_counter - 1
            code.program_counter = dest
            if code.peek() != JUMPDEST:
                raise InvalidJumpDestination("Invalid Jump Destination")
            if not code.is_valid_opcode(dest):
                raise InvalidInstruction("Jump resulted in invalid instruction")
        countdown -= 1
        if not countdown:
            countdown = CHECK_EVERY
            clock.check(computation)

    if recorder is None and hits is None:
        return jumpi

    if recorder is None:
        assert hits is not None

        def covering_jumpi(computation: Any) -> None:
            nonlocal countdown
            computation.consume_gas(gas, "JUMPI")
            dest, condition = computation.stack_pop_ints(2)
            code = computation.code
            pc = code.program_counter - 1
            try:
                seen = computation._evmstate_seen
            except AttributeError:
                seen = computation._evmstate_seen = _seen(hits, computation.msg)
            if condition:
                computation._evmstate_jump = pc
                code.program_counter = dest
                if code.peek() != JUMPDEST:
                    raise InvalidJumpDestination("Invalid Jump Destination")
                if not code.is_valid_opcode(dest):
                    raise InvalidInstruction("Jump resulted in invalid instruction")
                seen.add(2 * pc + 1)
                seen.add(~dest)
            else:
                seen.add(2 * pc)
            countdown -= 1
            if not countdown:
                countdown = CHECK_EVERY
                clock.check(computation)

        return covering_jumpi

    def recording_jumpi(computation: Any) -> None:
        nonlocal countdown
        computation.consume_gas(gas, "JUMPI")
        dest, condition = computation.stack_pop_ints(2)
        code = computation.code
        pc = code.program_counter - 1
        if condition:
            computation._evmstate_jump = pc
            code.program_counter = dest
            if code.peek() != JUMPDEST:
                raise InvalidJumpDestination("Invalid Jump Destination")
            if not code.is_valid_opcode(dest):
                raise InvalidInstruction("Jump resulted in invalid instruction")
        if hits is not None:
            try:
                seen = computation._evmstate_seen
            except AttributeError:
                seen = computation._evmstate_seen = _seen(hits, computation.msg)
            if condition:
                seen.add(2 * pc + 1)
                seen.add(~dest)
            else:
                seen.add(2 * pc)
        if recorder is not None:
            recorder(computation.msg.code_address, pc, bool(condition))
        countdown -= 1
        if not countdown:
            countdown = CHECK_EVERY
            clock.check(computation)

    return recording_jumpi


def _computation_class(base: type, clock: _Clock) -> type:
    """The fork's computation with JUMP and JUMPI hooked; its opcode table is its own."""
    opcodes = dict(base.opcodes)
    opcodes[opcode_values.JUMP] = _jump(base.opcodes[opcode_values.JUMP].gas_cost, clock)
    opcodes[opcode_values.JUMPI] = _jumpi(base.opcodes[opcode_values.JUMPI].gas_cost, clock, None)
    return type(f"Evmstate{base.__name__}", (base,), {"opcodes": opcodes})


def _state_class(base: type, computation_class: type) -> type:
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

        def get_storage(self, address: bytes, slot: int, from_journal: bool = True) -> int:
            if from_journal:
                value = self._account_db.get_storage(address, slot)
                if self._observed_reads is not None:
                    self._observed_reads.append((address, slot, value))
                return value
            # Only SSTORE's gas rule asks for the original, and it asks before it writes:
            # the first time a slot is asked for in a call, its current value is the original.
            key = (address, slot)
            original = self._originals.get(key)
            if original is None:
                original = self._originals[key] = self._account_db.get_storage(address, slot)
            return original

        def set_storage(self, address: bytes, slot: int, value: int) -> None:
            if self._writes is not None:
                self._writes.append((address, slot))
            if self._observed_writes is not None:
                self._observed_writes.append((address, slot, value))
            super().set_storage(address, slot, value)

    State.computation_class = computation_class
    State.account_db_class = _account_db_class(base.account_db_class)
    State.__name__ = f"Evmstate{base.__name__}"
    return State


class _StorageDB(AccountStorageDB):
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


def _account_db_class(base: type) -> type:
    """The fork's AccountDB, keeping each account's storage in a _StorageDB."""

    class AccountDB(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # every address and storage slot ever written, reverted or not: where PyEVMBackend.world() looks
            self.written: dict[bytes, set[int]] = {}

        def _set_account(self, address: bytes, account: Any) -> None:
            self.written.setdefault(address, set())
            super()._set_account(address, account)

        def set_storage(self, address: bytes, slot: int, value: int) -> None:
            self.written.setdefault(address, set()).add(slot)
            super().set_storage(address, slot, value)

        def _get_address_store(self, address: bytes):
            store = self._account_stores.get(address)
            if store is None:
                store = self._account_stores[address] = _StorageDB(self._raw_store_db, self._get_storage_root(address), address)
            return store

    AccountDB.__name__ = f"Evmstate{base.__name__}"
    return AccountDB


class PyEVMBackend(BlockTime):
    """An in-process py-evm chain with funded accounts and cheap snapshots."""

    capabilities = Capabilities(frames=True, coverage=True, observer=True, time_limit=True, divergence=False)

    def __init__(self, spec: ChainSpec | None = None, **options: Any) -> None:
        """A new chain as spec describes it (or ChainSpec(**options)): funded accounts, nothing deployed."""
        spec = spec if spec is not None else ChainSpec(**options)
        self.spec = spec
        evm_version, chain_id, gas_limit, gas_price, timestamp = spec.evm_version, spec.chain_id, spec.gas_limit, spec.gas_price, spec.timestamp
        if evm_version not in VMS:
            raise UsageError(f"evm_version {evm_version!r} is not supported by the py-evm backend; use one of {', '.join(VMS)}")
        base_vm = VMS[evm_version]
        base_state = base_vm._state_class
        self._clock = _Clock()
        self._computation_class = _computation_class(base_state.computation_class, self._clock)
        vm_class = base_vm.configure(__name__=f"Evmstate{base_vm.__name__}", _state_class=_state_class(base_state, self._computation_class))
        chain_class = MiningChain.configure(__name__="EvmstateChain", vm_configuration=((0, vm_class),), chain_id=chain_id)
        self.chain_id = chain_id
        self.gas_limit = gas_limit
        # the gas a call gets unless it asks for less; never more than the block holds
        self.call_gas_limit = min(spec.call_gas_limit, gas_limit)
        self.call_timeout = spec.call_timeout or None
        self._time_limit = self.call_timeout or math.inf
        self._slowest = 0.0  # the longest a call took to finish since the last reset_time_limit()
        self.gas_price = gas_price
        self.evm_version = evm_version
        self.account_keys = account_keys(spec.accounts)
        genesis_state = {addr: {"balance": spec.balance, "nonce": 0, "code": b"", "storage": {}} for _, addr in self.account_keys}
        genesis = {
            "difficulty": 0,
            "nonce": b"\0" * 8,
            "gas_limit": gas_limit,
            "timestamp": timestamp,
            "coinbase": ZERO_ADDRESS,
        }
        if evm_version in ("london", "paris", "shanghai", "cancun", "prague"):
            genesis["base_fee_per_gas"] = 0 if gas_price == 0 else min(gas_price, 10**9)
        self._chain = chain_class.from_genesis(AtomicDB(), genesis, genesis_state)
        vm = self._chain.get_vm()
        self._state = vm.state
        self._state._originals = {}
        self._account_db = self._state._account_db
        ctx = self._state.execution_context
        self._ctx_args = dict(
            coinbase=ctx.coinbase,
            difficulty=ctx.difficulty,
            mix_hash=ctx.mix_hash,
            gas_limit=gas_limit,
            prev_hashes=tuple(ctx.prev_hashes),
            chain_id=chain_id,
            base_fee_per_gas=genesis.get("base_fee_per_gas"),
            excess_blob_gas=getattr(ctx, "excess_blob_gas", None),
        )
        self._set_block(timestamp + 1, 1)
        # EIP-1153 transient storage exists from Cancun on; earlier states refuse to clear it
        self._clear_transient = self._state.clear_transient_storage if evm_version in ("cancun", "prague") else (lambda: None)
        self._tx_context_class = self._state.get_transaction_context_class()
        self._computation = self._state.computation_class
        self._tx_contexts: dict[bytes, object] = {}
        self._logs: list[Log] = []
        self._init_snapshots()
        self._dirty = True  # changes since the state was last persisted
        self._recorder: JumpRecorder | None = None
        self._hits: Coverage | None = None
        self._observer: Callable[[ExecResult], None] | None = None
        self.finisher: Any = None  # finishes what py-evm ran out of time for (evm/finish.py); set by the factory
        self._runaways: dict[tuple[Any, ...], Frame] = {}  # calls it finished, and where py-evm was: they skip py-evm

    # -- block time -------------------------------------------------------

    def _set_block(self, timestamp: int, number: int) -> None:
        self._timestamp = timestamp
        self._number = number
        self._state.execution_context = ExecutionContext(timestamp=timestamp, block_number=number, **self._ctx_args)

    # -- state access -----------------------------------------------------

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

    def load_state(self, accounts: dict[bytes, tuple[int, int, bytes, dict[int, int]]], *, timestamp: int, block_number: int) -> None:
        """Make the chain hold exactly these accounts (balance, nonce, code, storage) at this block.

        Accounts other than the funded ones must not exist yet: run it on a fresh chain, inside anchor().
        """
        self.apply_changes({**{address: None for _, address in self.account_keys if address not in accounts}, **accounts})
        self._set_block(timestamp, block_number)

    def world(self) -> dict[bytes, tuple[int, int, bytes, dict[int, int]]]:
        """Every account holding anything: address -> (balance, nonce, code, nonzero storage), as load_state() takes it."""
        db = self._account_db
        world = {}
        for address in dict.fromkeys([*(a for _, a in self.account_keys), *db.written]):
            storage = {slot: value for slot in db.written.get(address, ()) if (value := db.get_storage(address, slot))}
            account = (db.get_balance(address), db.get_nonce(address), db.get_code(address), storage)
            if any(account):
                world[address] = account
        return world

    def apply_changes(self, changes: dict[bytes, tuple[int, int, bytes, dict[int, int]] | None], logs: tuple[Log, ...] = ()) -> None:
        """Write what a transaction run elsewhere did: each account's balance, nonce, code and the slots given, None for an account it deleted; then its logs."""
        self._dirty = True
        state = self._state
        for address, account in changes.items():
            if account is None:
                state.delete_account(address)
                continue
            balance, nonce, code, storage = account
            state.set_balance(address, balance)
            state.set_nonce(address, nonce)
            if state.get_code(address) != code:
                state.set_code(address, code)
            for slot, value in storage.items():
                state.set_storage(address, slot, value)
        self._logs.extend(logs)

    @property
    def logs(self) -> list[Log]:
        return self._logs

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

    def _released(self, snap: Snapshot) -> None:
        self._state.commit(snap.mark)

    # -- limits -------------------------------------------------------------

    def reset_time_limit(self) -> None:
        """Give calls the configured time limit again (after a timeout shortened it), and run on py-evm those finished elsewhere."""
        self._time_limit = self.call_timeout or math.inf
        self._slowest = 0.0
        self._runaways.clear()

    def set_jump_recorder(self, recorder: JumpRecorder | None) -> None:
        """Call recorder(code address, pc, taken) at every JUMPI from now on; None stops it."""
        self._recorder = recorder
        self._install_jumps()

    def set_coverage(self, hits: Coverage | None) -> None:
        """Record every branch and jump into hits from now on (see Coverage); None stops it.

        The caller owns hits: it may read and clear it between calls.
        """
        self._hits = hits
        self._install_jumps()

    def set_observer(self, observer: Callable[[ExecResult], None] | None) -> None:
        """Call observer(result) after every call and transaction, results carrying their storage reads and writes."""
        self._observer = observer

    def _install_jumps(self) -> None:
        base = self._computation_class.__mro__[1]
        opcodes = self._computation_class.opcodes
        opcodes[opcode_values.JUMP] = _jump(base.opcodes[opcode_values.JUMP].gas_cost, self._clock, self._hits)
        opcodes[opcode_values.JUMPI] = _jumpi(base.opcodes[opcode_values.JUMPI].gas_cost, self._clock, self._recorder, self._hits)

    def _gas(self, gas: int | None) -> tuple[int, bool]:
        """The gas a call gets, and whether it is the cap rather than the caller's choice."""
        if gas is None:
            return self.call_gas_limit, True
        if gas > self.call_gas_limit:
            where = "the block gas limit" if self.call_gas_limit == self.gas_limit else "the per-call gas cap ([fuzz] call_gas_limit in evmstate.toml)"
            raise UsageError(f"gas {gas} exceeds {where}, {self.call_gas_limit}")
        return gas, False

    # -- execution --------------------------------------------------------

    def _message(self, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int, nonce: int) -> Message:
        if to is None:
            return Message(
                gas=gas,
                to=CREATE_CONTRACT_ADDRESS,
                sender=sender,
                value=value,
                data=b"",
                code=data,
                create_address=generate_contract_address(sender, nonce),
            )
        return Message(gas=gas, to=to, sender=sender, value=value, data=data, code=self._state.get_code(to))

    def _run(self, message: Message, sender: bytes):
        """Run one message under the time limit; raises _TimedOut with the state left mid-call, at once for a known runaway."""
        key = (sender, message.to, message.data, message.code if message.is_create else b"", message.value, message.gas, message.is_static)
        if key in self._runaways:
            raise _TimedOut(self._runaways[key], key)
        state = self._state
        state._originals = {}
        accessed = self._account_db._journal_accessed_state
        # warm sets start empty for every call: a checkpoint on the access journal,
        # discarded after the call, leaves outer snapshots intact.
        checkpoint = accessed.record()
        clock = self._clock
        started = _cpu_time()
        clock.deadline = started + self._time_limit
        try:
            state.mark_address_warm(sender)
            state.mark_address_warm(message.storage_address)
            tx_context = self._tx_contexts.get(sender)
            if tx_context is None:
                tx_context = self._tx_contexts[sender] = self._tx_context_class(gas_price=self.gas_price, origin=sender)
            if message.is_create:
                if state.has_code_or_nonce(message.storage_address):
                    raise UsageError(f"contract address collision at 0x{message.storage_address.hex()}")
                computation = self._computation.apply_create_message(state, message, tx_context)
            else:
                computation = self._computation.apply_message(state, message, tx_context)
        except _TimedOut as stop:
            stop.key = key
            raise
        finally:
            clock.deadline = math.inf
            accessed.discard(checkpoint)
            state._originals = {}
        elapsed = _cpu_time() - started
        if elapsed > self._slowest:
            self._slowest = elapsed
        return computation

    def _timed_out(self, stop: _TimedOut, started: float, gas: int, at_cap: bool) -> ExecResult:
        configured = self.call_timeout or math.inf
        result = ExecResult(
            success=False,
            output=b"",
            gas_used=0,
            error="timeout",
            error_address=stop.frame.address,
            error_pc=stop.frame.pc,
            frames=(stop.frame,),
            gas_limit=gas,
            at_gas_cap=at_cap,
            timeout=Timeout(self._time_limit, configured, _cpu_time() - started),
        )
        # a runaway call is known: later ones need only be told apart from calls that finish
        short = max(SHORT_LIMIT_FLOOR, SHORT_LIMIT_FACTOR * self._slowest)
        self._time_limit = min(self._time_limit, short)
        return result

    def _finish(self, stop: _TimedOut, timed_out: ExecResult, kind: str, args: tuple[Any, ...]) -> ExecResult:
        """A call py-evm ran out of time for, the state as before it: finished by the finisher, which later runs it at once."""
        result = timed_out if self.finisher is None else self.finisher.finish(self, kind, args, timed_out)
        if result.error != "timeout":
            self._runaways[stop.key] = stop.frame
        elif stop.key in self._runaways:  # skipped py-evm, and the finisher failed it: py-evm after all
            del self._runaways[stop.key]
            return self._transact(*args) if kind == "transact" else self._call(*args)
        return result

    def transact(self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None) -> ExecResult:
        """Execute a transaction: nonce, gas and value are charged; state changes stay unless it reverts."""
        if self._observer is None:
            return self._transact(sender, to, data, value, gas)
        return self._observed(self._transact, sender, to, data, value, gas)

    def call(self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False) -> ExecResult:
        """Execute a call and discard every change it made (eth_call).

        static=True runs it as a STATICCALL, which the EVM forbids to change state: no
        snapshot is needed, which makes view calls cheaper.
        """
        if self._observer is None:
            return self._call(sender, to, data, value, gas, static)
        return self._observed(self._call, sender, to, data, value, gas, static)

    def _observed(self, run: Callable[..., ExecResult], *args: Any) -> ExecResult:
        """run(*args) with its storage reads and writes recorded, then shown to the observer."""
        state = self._state
        writes: list[tuple[bytes, int, int]] = []
        reads: list[tuple[bytes, int, int]] = []
        state._observed_writes, state._observed_reads = writes, reads
        try:
            result = run(*args)
        finally:
            state._observed_writes = state._observed_reads = None
        if writes or reads:
            result = dataclasses.replace(result, storage_writes=tuple(writes), storage_reads=tuple(reads))
        observer = self._observer
        if observer is not None:
            observer(result)
        return result

    def _transact(self, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int | None) -> ExecResult:
        state = self._state
        gas, at_cap = self._gas(gas)
        intrinsic, floor = intrinsic_gas(data, to is None)
        if gas < max(intrinsic, floor):
            raise UsageError(f"gas {gas} is below the transaction's intrinsic cost {max(intrinsic, floor)}")
        cost = value + gas * self.gas_price
        if cost:
            balance = state.get_balance(sender)
            if balance < cost:
                raise UsageError(f"sender 0x{sender.hex()} has {balance} wei, needs {cost} for value and gas")
        self._dirty = True
        started = _cpu_time()
        # a timed-out call leaves nothing behind, not even its nonce
        before = state.snapshot()
        try:
            nonce = state.get_nonce(sender)
            if self.gas_price:
                state.delta_balance(sender, -gas * self.gas_price)
            state.set_nonce(sender, nonce + 1)
            message = self._message(sender, to, data, value, gas - intrinsic, nonce)
            computation = self._run(message, sender)
        except _TimedOut as stop:
            state.revert(before)
            self._clear_transient()
            return self._finish(stop, self._timed_out(stop, started, gas, at_cap), "transact", (sender, to, data, value, None if at_cap else gas))
        except BaseException:
            state.revert(before)
            raise
        state.commit(before)
        gas_left = computation.get_gas_remaining()
        used = gas - gas_left
        refund = min(computation.get_gas_refund(), used // 5)
        gas_used = max(used - refund, floor)
        if self.gas_price:
            state.delta_balance(sender, (gas - gas_used) * self.gas_price)
        for address in computation.get_accounts_for_deletion():
            state.delete_account(address)
        self._clear_empty_touched(computation)
        self._clear_transient()
        return self._result(computation, gas_used, message, gas, at_cap, commit_logs=True)

    def _call(self, sender: bytes, to: bytes, data: bytes, value: int, gas: int | None, static: bool) -> ExecResult:
        state = self._state
        gas, at_cap = self._gas(gas)
        intrinsic, _ = intrinsic_gas(data, False)
        started = _cpu_time()
        if static and not value:
            message = Message(gas=max(gas - intrinsic, 0), to=to, sender=sender, value=0, data=data, code=state.get_code(to), is_static=True)
            try:
                computation = self._run(message, sender)
            except _TimedOut as stop:
                return self._finish(stop, self._timed_out(stop, started, gas, at_cap), "call", (sender, to, data, value, None if at_cap else gas, static))
            return self._result(computation, gas - computation.get_gas_remaining(), message, gas, at_cap, commit_logs=False)
        checkpoint = state.snapshot()
        try:
            if value and state.get_balance(sender) < value:
                state.set_balance(sender, value)
            message = self._message(sender, to, data, value, max(gas - intrinsic, 0), 0)
            try:
                computation = self._run(message, sender)
            except _TimedOut as stop:
                timed_out = stop, self._timed_out(stop, started, gas, at_cap)
            else:
                return self._result(computation, gas - computation.get_gas_remaining(), message, gas, at_cap, commit_logs=False)
        finally:
            state.revert(checkpoint)
            self._clear_transient()
        return self._finish(*timed_out, "call", (sender, to, data, value, None if at_cap else gas, static))

    def _clear_empty_touched(self, computation) -> None:
        # EIP-161: touched accounts left empty are deleted at the end of the transaction.
        for address in collect_touched_accounts(computation):
            if self._state.account_exists(address) and self._state.account_is_empty(address):
                self._state.delete_account(address)

    def _result(self, computation, gas_used: int, message: Message, gas: int, at_cap: bool, *, commit_logs: bool) -> ExecResult:
        if computation.is_success:
            logs = tuple(Log(a, tuple(t), d) for a, t, d in computation.get_log_entries())
            if commit_logs:
                self._logs.extend(logs)
            return ExecResult(
                success=True,
                output=computation.output,
                gas_used=gas_used,
                logs=logs,
                contract_address=message.storage_address if message.is_create else None,
                gas_limit=gas,
                at_gas_cap=at_cap,
            )
        error = computation.error
        # follow the failure down while each frame passed on what its child failed with;
        # which of them holds the check that failed is for the layer that knows the code
        frames = [_frame(computation)]
        frame = computation
        while True:
            failed = [c for c in frame.children if c.is_error]
            if not failed or failed[-1].output != frame.output:
                break
            frame = failed[-1]
            frames.append(_frame(frame))
        innermost = frames[-1]
        return ExecResult(
            success=False,
            output=computation.output if isinstance(error, Revert) else b"",
            gas_used=gas_used,
            error="revert" if isinstance(error, Revert) else (str(error) or type(error).__name__),
            error_address=innermost.address,
            error_pc=innermost.pc,
            frames=tuple(frames),
            gas_limit=gas,
            at_gas_cap=at_cap,
            out_of_gas=isinstance(error, OutOfGas),
        )


def _frame(computation: Any) -> Frame:
    msg = computation.msg
    return Frame(
        address=None if msg.is_create else msg.code_address,
        pc=max(computation.code.program_counter - 1, 0),
        jump_pc=getattr(computation, "_evmstate_jump", None),
        code=msg.code,
        is_create=msg.is_create,
    )
