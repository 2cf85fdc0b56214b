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

import contextlib
import dataclasses
import math
from typing import Any, Callable, Iterator

from eth.chains.base import MiningChain
from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.db.atomic import AtomicDB
from eth.exceptions import OutOfGas, Revert
from eth.typing import AccountDetails, HeaderParams
from eth.vm import opcode_values
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks import CancunVM, LondonVM, ParisVM, PragueVM, ShanghaiVM
from eth.vm.forks.spurious_dragon._utils import collect_touched_accounts
from eth.vm.message import Message
from eth._utils.address import generate_contract_address
from eth_typing import Address

from ...errors import UsageError, short_of_ether
from ..cache import Entry, ReadCache, Reads, compare, replay_coverage
from ..cache import entry as cache_entry
from ..base import (
    SHORT_LIMIT_FACTOR,
    SHORT_LIMIT_FLOOR,
    ZERO_ADDRESS,
    BlockTime,
    Capabilities,
    ChainSpec,
    Coverage,
    ExecResult,
    Feedback,
    Frame,
    HooksNow,
    JumpRecorder,
    Log,
    Timeout,
    account_keys,
    intrinsic_gas,
)
from .opcodes import (
    HOOKED, Clock, TimedOut, computation_class, cpu_time, frame_of, hooked, hooked_iszero, jump, jumpi, remember,
)
from .accounts import StateAccess
from .failed import failure_chain, inner_failures
from .state import state_class

VMS = {"london": LondonVM, "paris": ParisVM, "shanghai": ShanghaiVM, "cancun": CancunVM, "prague": PragueVM}


class PyEVMBackend(StateAccess, BlockTime):
    """An in-process py-evm chain with funded accounts and cheap snapshots."""

    capabilities = Capabilities(
        frames=True, coverage=True, observer=True, time_limit=True, divergence=False, feedback=True, keeps=True
    )

    def __init__(self, spec: ChainSpec | None = None, **options: Any) -> None:
        """A new chain as spec describes it (or ChainSpec(**options)): funded accounts, nothing deployed."""
        spec = spec if spec is not None else ChainSpec(**options)
        self.spec = spec
        evm_version, chain_id, gas_limit, gas_price, timestamp = (
            spec.evm_version, spec.chain_id, spec.gas_limit, spec.gas_price, spec.timestamp,
        )
        if evm_version not in VMS:
            raise UsageError(
                f"evm_version {evm_version!r} is not supported by the py-evm backend; use one of {', '.join(VMS)}"
            )
        base_vm = VMS[evm_version]
        base_state = base_vm._state_class
        self._clock = Clock()
        # Opcodes, whose gas_cost OpcodeAPI lacks
        self._base_opcodes: dict[int, Any] = base_state.computation_class.opcodes
        computation, self._opcodes = computation_class(base_state.computation_class, self._clock)
        evmstate_state = state_class(base_state, computation)
        vm_class = base_vm.configure(__name__=f"Evmstate{base_vm.__name__}", _state_class=evmstate_state)
        chain_class = MiningChain.configure(
            __name__="EvmstateChain", vm_configuration=((0, vm_class),), chain_id=chain_id
        )
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
        genesis_state = {
            Address(addr): AccountDetails(balance=spec.balance, nonce=0, code=b"", storage={})
            for _, addr in self.account_keys
        }
        genesis: dict[str, HeaderParams] = {
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
        clear_transient = self._state.clear_transient_storage
        self._clear_transient = clear_transient if evm_version in ("cancun", "prague") else (lambda: None)
        self._tx_context_class = self._state.get_transaction_context_class()
        self._computation = self._state.computation_class
        self._tx_contexts: dict[bytes, object] = {}
        self._logs: list[Log] = []
        self._init_snapshots()
        self._dirty = True  # changes since the state was last persisted
        self._recorder: JumpRecorder | None = None
        self._hits: Coverage | None = None
        self._feedback: Feedback | None = None
        self._observer: Callable[[ExecResult], None] | None = None
        self.call_cache = ReadCache(spec.call_cache) if spec.call_cache != "off" else None
        self._reading: Reads | None = None
        self.finisher: Any = None  # finishes what py-evm ran out of time for (evm/finish.py); set by the factory
        self._runaways: dict[tuple[Any, ...], Frame] = {}  # calls it finished, and where py-evm was: they skip py-evm
        self._inner = False  # results carry the calls inside them that failed (set_inner_failures)

    # -- block time -------------------------------------------------------

    def _set_block(self, timestamp: int, number: int) -> None:
        self._timestamp = timestamp
        self._number = number
        self._state.execution_context = ExecutionContext(timestamp=timestamp, block_number=number, **self._ctx_args)

    # -- state access -----------------------------------------------------

    def storage_reads(self, sender: bytes, to: bytes, data: bytes) -> tuple[ExecResult, list[tuple[bytes, int]]]:
        """Run a view call outside the call cache, observers and coverage: its result, and each (address, slot) it read,
        in order, once."""
        state = self._state
        reads: list[tuple[bytes, int, int]] = []
        hits, self._hits = self._hits, None
        recorder, self._recorder = self._recorder, None
        feedback, self._feedback = self._feedback, None
        self._install_jumps()
        state._observed_reads = reads
        try:
            result = self._call(sender, to, data, 0, None, True)
        finally:
            state._observed_reads = None
            self._hits, self._recorder, self._feedback = hits, recorder, feedback
            self._install_jumps()
        return result, list(dict.fromkeys((a, s) for a, s, _ in reads))

    @property
    def logs(self) -> list[Log]:
        return self._logs

    # -- limits -------------------------------------------------------------

    def reset_time_limit(self) -> None:
        """Give calls the configured time limit again (after a timeout shortened it), and run on py-evm those finished
        elsewhere."""
        self._time_limit = self.call_timeout or math.inf
        self._slowest = 0.0
        self._runaways.clear()

    def set_jump_recorder(self, recorder: JumpRecorder | None) -> None:
        """Call recorder(code address, pc, taken) at every JUMPI from now on; None stops it."""
        self._recorder = recorder
        self._install_jumps()

    def set_inner_failures(self, on: bool) -> None:
        """From now on (until off), each result carries the calls inside it that failed (ExecResult.inner_failures);
        view calls skip the cache."""
        self._inner = on

    def set_coverage(self, hits: Coverage | None) -> None:
        """Record every branch and jump into hits from now on (see Coverage); None stops it.

        The caller owns hits: it may read and clear it between calls.
        """
        self._hits = hits
        self._install_jumps()

    def set_observer(self, observer: Callable[[ExecResult], None] | None) -> None:
        """Call observer(result) after every call and transaction, results carrying their storage reads and writes."""
        self._observer = observer

    def hooks_now(self) -> HooksNow:
        """What the hooks record into now (None: off)."""
        return HooksNow(self._hits, self._observer, self._feedback)

    def set_feedback(self, feedback: Feedback | None) -> None:
        """Count branches and record comparison operands into feedback from now on (see Feedback), with coverage on;
        None stops it.

        The caller owns feedback: it may read and clear its counts and operands between calls.
        """
        self._feedback = feedback
        self._install_jumps()

    def _install_jumps(self) -> None:
        base, opcodes = self._base_opcodes, self._opcodes
        hits = self._hits
        feedback = self._feedback if hits is not None else None
        opcodes[opcode_values.JUMP] = jump(base[opcode_values.JUMP].gas_cost, self._clock, hits, feedback)
        opcodes[opcode_values.JUMPI] = jumpi(
            base[opcode_values.JUMPI].gas_cost, self._clock, self._recorder, hits, feedback
        )
        for op in HOOKED:
            opcodes[op] = base[op] if feedback is None else hooked(op, base[op].gas_cost, feedback)
        iszero = base[opcode_values.ISZERO]
        opcodes[opcode_values.ISZERO] = iszero if feedback is None else hooked_iszero(iszero.gas_cost, feedback)

    @contextlib.contextmanager
    def _recording(self, to: bytes | None, data: bytes, value: int) -> Iterator[None]:
        """Inside, the hooks record feedback (a call that no cache answers)."""
        feedback = self._feedback
        if feedback is None:
            yield
            return
        remember(feedback, to, data, value)
        feedback.active = True
        try:
            yield
        finally:
            feedback.active = False

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
        """Run one message under the time limit; raises TimedOut with the state left mid-call, at once for a known
        runaway."""
        key = (
            sender, message.to, message.data, message.code if message.is_create else b"", message.value, message.gas,
            message.is_static,
        )
        if key in self._runaways:
            raise TimedOut(self._runaways[key], key)
        state = self._state
        state._originals = {}
        accessed = self._account_db._journal_accessed_state
        # warm sets start empty for every call: a checkpoint on the access journal,
        # discarded after the call, leaves outer snapshots intact.
        checkpoint = accessed.record()
        clock = self._clock
        started = cpu_time()
        clock.deadline = started + self._time_limit
        reading = self._reading
        if reading is not None:
            state._first_reads, state._account_reads, state._block_read = reading.storage, reading.accounts, False
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
        except TimedOut as stop:
            stop.key = key
            raise
        finally:
            clock.deadline = math.inf
            accessed.discard(checkpoint)
            state._originals = {}
            if reading is not None:
                state._first_reads = state._account_reads = None
                reading.block = reading.block or state._block_read
        elapsed = cpu_time() - started
        if elapsed > self._slowest:
            self._slowest = elapsed
        return computation

    def _timed_out(self, stop: TimedOut, started: float, gas: int, at_cap: bool) -> ExecResult:
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
            timeout=Timeout(self._time_limit, configured, cpu_time() - started),
        )
        # a runaway call is known: later ones need only be told apart from calls that finish
        short = max(SHORT_LIMIT_FLOOR, SHORT_LIMIT_FACTOR * self._slowest)
        self._time_limit = min(self._time_limit, short)
        return result

    def _finish(self, stop: TimedOut, timed_out: ExecResult, kind: str, args: tuple[Any, ...]) -> ExecResult:
        """A call py-evm ran out of time for, the state as before it: finished by the finisher, which later runs it at
        once."""
        result = timed_out if self.finisher is None else self.finisher.finish(self, kind, args, timed_out)
        if result.error != "timeout":
            self._runaways[stop.key] = stop.frame
        elif stop.key in self._runaways:  # skipped py-evm, and the finisher failed it: py-evm after all
            del self._runaways[stop.key]
            return self._transact(*args) if kind == "transact" else self._call(*args)
        return result

    def transact(
        self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None
    ) -> ExecResult:
        """Execute a transaction: nonce, gas and value are charged; state changes stay unless it reverts."""
        with self._recording(to, data, value):
            if self._observer is None:
                return self._transact(sender, to, data, value, gas)
            return self._observed(self._transact, sender, to, data, value, gas)

    def call(
        self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False
    ) -> ExecResult:
        """Execute a call and discard every change it made (eth_call).

        static=True runs it as a STATICCALL, which the EVM forbids to change state: no
        snapshot is needed, which makes view calls cheaper.
        """
        if static and not value:
            if self.call_cache is not None and self._recorder is None and self._reading is None and not self._inner:
                return self._cached_call((sender, to, data, gas))
        elif self._feedback is not None:
            # feedback comes from calls no cache answers (Feedback): the same run records the same
            with self._recording(to, data, value):
                if self._observer is None:
                    return self._call(sender, to, data, value, gas, static)
                return self._observed(self._call, sender, to, data, value, gas, static)
        if self._observer is None:
            return self._call(sender, to, data, value, gas, static)
        return self._observed(self._call, sender, to, data, value, gas, static)

    # -- the call cache (cache.py) --------------------------------------------

    def _cached_call(self, key: tuple[bytes, bytes, bytes, int | None]) -> ExecResult:
        """A view call from the cache while what it read is unchanged; else run, recording its reads."""
        cache = self.call_cache
        assert cache is not None
        found = cache.find(key, self._unchanged)
        if found is not None and found.coverage is None and self._hits is not None:
            found = None  # kept while coverage was off: run it for its coverage
        if found is None or cache.check:
            result, new = self._recorded(key)
            if new is None:  # ran out of time on py-evm: nothing to keep
                if self._observer is not None:
                    self._observer(result)
                return result
            if found is not None:
                compare(found.result, new.result, key, found.coverage, new.coverage)
            cache.keep(key, new)
            found = new
        elif self._hits is not None and found.coverage:
            replay_coverage(found.coverage, self._hits)
        if self._observer is None:
            return found.result
        self._observer(found.observed)
        return found.observed

    def _recorded(self, key: tuple[bytes, bytes, bytes, int | None]) -> tuple[ExecResult, Entry | None]:
        """Run a view call, recording what it read; its coverage goes to the coverage hits as well as to the entry."""
        sender, to, data, gas = key
        state = self._state
        reads: list[tuple[bytes, int, int]] = []
        accounts: set[bytes] = set()
        state._observed_reads, state._account_reads, state._block_read = reads, accounts, False
        hits = self._hits
        own: Coverage | None = None
        if hits is not None:
            self._hits = own = {}
            self._install_jumps()
        try:
            result = self._call(sender, to, data, 0, gas, True)
        finally:
            state._observed_reads = state._account_reads = None
            if hits is not None:
                self._hits = hits
                self._install_jumps()
        if own:
            replay_coverage(own, hits)  # type: ignore[arg-type]
        if result.timeout is not None:  # timed out, or finished on revm: py-evm saw only part of what it read
            return result, None
        block = (self._timestamp, self._number) if state._block_read else None
        return result, cache_entry(result, reads, tuple((a, self._account_state(a)) for a in accounts), block, own)

    def _account_state(self, address: bytes) -> tuple[int, int, bytes, bool]:
        db = self._account_db
        return db.get_balance(address), db.get_nonce(address), db.get_code_hash(address), db.account_exists(address)

    def _unchanged(self, entry: Entry) -> bool:
        """Whether every value a cached call read is still what it was."""
        get = self._account_db.get_storage
        for address, slot, value in entry.storage:
            if get(address, slot) != value:
                return False
        for address, known in entry.accounts:
            if self._account_state(address) != known:
                return False
        return entry.block is None or entry.block == (self._timestamp, self._number)

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
                raise short_of_ether(sender, balance, cost, self.account_keys)
        self._dirty = True
        started = cpu_time()
        # a timed-out call leaves nothing behind, not even its nonce
        before = state.snapshot()
        try:
            nonce = state.get_nonce(sender)
            if self.gas_price:
                state.delta_balance(sender, -gas * self.gas_price)
            state.set_nonce(sender, nonce + 1)
            message = self._message(sender, to, data, value, gas - intrinsic, nonce)
            computation = self._run(message, sender)
        except TimedOut as stop:
            state.revert(before)
            self._clear_transient()
            return self._finish(
                stop, self._timed_out(stop, started, gas, at_cap), "transact",
                (sender, to, data, value, None if at_cap else gas),
            )
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
        started = cpu_time()
        if static and not value:
            message = Message(
                gas=max(gas - intrinsic, 0), to=to, sender=sender, value=0, data=data, code=state.get_code(to),
                is_static=True,
            )
            try:
                computation = self._run(message, sender)
            except TimedOut as stop:
                return self._finish(
                    stop, self._timed_out(stop, started, gas, at_cap), "call",
                    (sender, to, data, value, None if at_cap else gas, static),
                )
            return self._result(
                computation, gas - computation.get_gas_remaining(), message, gas, at_cap, commit_logs=False
            )
        checkpoint = state.snapshot()
        try:
            if value and state.get_balance(sender) < value:
                state.set_balance(sender, value)
            message = self._message(sender, to, data, value, max(gas - intrinsic, 0), 0)
            try:
                computation = self._run(message, sender)
            except TimedOut as stop:
                timed_out = stop, self._timed_out(stop, started, gas, at_cap)
            else:
                return self._result(
                    computation, gas - computation.get_gas_remaining(), message, gas, at_cap, commit_logs=False
                )
        finally:
            state.revert(checkpoint)
            self._clear_transient()
        return self._finish(*timed_out, "call", (sender, to, data, value, None if at_cap else gas, static))

    def _clear_empty_touched(self, computation) -> None:
        # EIP-161: touched accounts left empty are deleted at the end of the transaction.
        for address in collect_touched_accounts(computation):
            if self._state.account_exists(address) and self._state.account_is_empty(address):
                self._state.delete_account(address)

    def _result(
        self, computation, gas_used: int, message: Message, gas: int, at_cap: bool, *, commit_logs: bool
    ) -> ExecResult:
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
                inner_failures=inner_failures(computation) if self._inner else (),
            )
        error = computation.error
        chain = failure_chain(computation)
        frames = [frame_of(c) for c in chain]
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
            inner_failures=inner_failures(computation, chain) if self._inner else (),
        )

