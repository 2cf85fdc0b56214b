"""What every EVM backend is and shares: the Backend protocol and its declared capabilities, the
results calls return, the chain they start from, and the book-keeping of snapshots and block time.

Imports py-evm only for the address a CREATE makes; the backends themselves are pyevm/ (py-evm),
revm/ (pyrevm) and check.py (both in lockstep).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, NamedTuple, Protocol, TypedDict, cast, runtime_checkable

import rlp
from eth_keys import keys
from eth_utils import keccak

from ..errors import UsageError

JumpRecorder = Callable[[bytes, int, bool], None]

ZERO_ADDRESS = b"\0" * 20
# EIP-7825's per-transaction gas cap: the default gas of every call
CALL_GAS_LIMIT = 2**24
# Once a call has timed out, later calls get this many times the slowest call that finished (at least SHORT_LIMIT_FLOOR
# seconds, at most the configured limit): a machine that reaches a runaway call reaches it again and again (later
# examples, shrinking), and py-evm would otherwise spend the full limit on each before revm finishes it (finish.py).
SHORT_LIMIT_FACTOR = 10
SHORT_LIMIT_FLOOR = 0.1
# the error of a call that ran out of gas expanding memory, on a backend that does not tell the cost (revm)
OUT_OF_MEMORY_GAS = "Out of gas: memory expansion"


@dataclass(frozen=True)
class Log:
    """One log entry: emitting address, topics as ints, data."""

    address: bytes
    topics: tuple[int, ...]
    data: bytes


@dataclass(frozen=True)
class Frame:
    """One failed call frame: what code ran, where it stopped, and the last jump it took."""

    address: bytes | None  # the address whose code ran (None for initcode)
    pc: int  # the failing instruction (REVERT, or where the VM error struck)
    jump_pc: int | None  # the last JUMPI taken before it: a shared REVERT says nothing, the jump to it does
    code: bytes  # the code that ran (initcode for a create)
    is_create: bool = False


@dataclass(frozen=True)
class InnerFailure:
    """A call made inside a transaction or call (by contract code) that failed, with the frames that explain it.

    Kept only while a backend is asked for them (set_inner_failures): a callback that reverted
    inside a call that went on, or whose failure its caller replaced with one of its own.
    """

    depth: int  # 1 for a call the called contract made
    sender: bytes
    to: bytes  # the address called, or the address being created
    data: bytes  # calldata (initcode for a create)
    value: int
    is_create: bool
    error: str  # "revert" or the VM error's description
    output: bytes  # revert data
    frames: tuple[Frame, ...]  # the failed frames that passed its failure up, outermost (its own) first


@dataclass(frozen=True)
class Timeout:
    """A call py-evm stopped at its CPU time limit: the limit applied and the configured one.

    On a result with error "timeout" nothing the call did was kept, and unfinished says why revm
    did not finish it (None: nothing tried); on any other result revm finished it (see finish.py).
    """

    limit: float
    configured: float
    elapsed: float
    unfinished: str | None = None

    @property
    def shortened(self) -> bool:
        return self.limit < self.configured


@dataclass(frozen=True, init=False)
class ExecResult:
    """What one call or transaction did.

    Frozen; made for every call, so its __init__ fills the fields at once (a frozen dataclass's own
    sets them one by one through object.__setattr__: 3 us a result, against 1.5).
    """

    success: bool
    output: bytes  # return data, or revert data when the call reverted
    gas_used: int
    logs: tuple[Log, ...] = ()
    error: str | None = None  # None on success; "revert", "timeout", or the VM error's description
    contract_address: bytes | None = None
    # where execution failed, in the innermost frame that failed the same way: the code's address and the pc
    error_address: bytes | None = None
    error_pc: int | None = None
    # the failed frames that passed the same failure up, outermost first
    frames: tuple[Frame, ...] = ()
    gas_limit: int = 0  # the gas the call was given
    at_gas_cap: bool = False  # the gas was the per-call cap, not chosen by the caller
    out_of_gas: bool = False
    # set when py-evm ran out of time for the call: with error "timeout" nothing it did was kept;
    # otherwise revm finished it and this is its outcome
    timeout: Timeout | None = None
    # (address, slot, value) of every storage write and read the call ran, in order, reverted
    # frames included; empty unless an observer is set (set_observer) and the backend records them
    storage_writes: tuple[tuple[bytes, int, int], ...] = ()
    storage_reads: tuple[tuple[bytes, int, int], ...] = ()
    # for a failure without frames (a backend without per-opcode hooks): runs the call again where
    # frames are kept and returns that result; None once the state has moved on
    explainer: Callable[[], "ExecResult | None"] | None = field(default=None, compare=False, repr=False)
    # the calls inside it that failed and whose failure is not the result's own (set_inner_failures), in the order they
    # ran
    inner_failures: tuple[InnerFailure, ...] = field(default=(), compare=False, repr=False)

    def __init__(
        self,
        success: bool,
        output: bytes,
        gas_used: int,
        logs: tuple[Log, ...] = (),
        error: str | None = None,
        contract_address: bytes | None = None,
        error_address: bytes | None = None,
        error_pc: int | None = None,
        frames: tuple[Frame, ...] = (),
        gas_limit: int = 0,
        at_gas_cap: bool = False,
        out_of_gas: bool = False,
        timeout: Timeout | None = None,
        storage_writes: tuple[tuple[bytes, int, int], ...] = (),
        storage_reads: tuple[tuple[bytes, int, int], ...] = (),
        explainer: Callable[[], "ExecResult | None"] | None = None,
        inner_failures: tuple[InnerFailure, ...] = (),
    ) -> None:
        self.__dict__.update(
            success=success, output=output, gas_used=gas_used, logs=logs, error=error,
            contract_address=contract_address, error_address=error_address, error_pc=error_pc, frames=frames,
            gas_limit=gas_limit, at_gas_cap=at_gas_cap, out_of_gas=out_of_gas, timeout=timeout,
            storage_writes=storage_writes, storage_reads=storage_reads, explainer=explainer,
            inner_failures=inner_failures,
        )


class SeenStorage(TypedDict, total=False):
    """ExecResult's storage writes and reads, passed as keywords by a backend that has them."""

    storage_writes: tuple[tuple[bytes, int, int], ...]
    storage_reads: tuple[tuple[bytes, int, int], ...]


class FailedExtras(TypedDict, total=False):
    """What a failed call's ExecResult adds, passed as keywords: whether it ran out of gas, and its explainer."""

    out_of_gas: bool
    explainer: Callable[[], ExecResult | None]


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do beyond running calls, declared by each backend: what the layers above may ask of it."""

    frames: bool  # failed calls carry their frames (pc, last jump): reverts are explained to the source line
    coverage: bool  # per-opcode hooks: set_coverage() records branches and jumps
    observer: bool  # set_observer(): every call's result with the storage it read and wrote
    time_limit: bool  # calls are stopped at the per-call CPU time limit ([fuzz] call_timeout)
    divergence: bool  # two backends in lockstep: divergence is the first difference, calls counts calls
    # set_feedback(): per-branch counts and comparison operands of the calls that are not view calls
    feedback: bool = False
    # set_sampling(): the hooks' coverage of a call like one recorded before in the run may be that one's, without its
    # operands (revm's sight)
    sampling: bool = False
    # two builds in lockstep (differential.py): raise_pending() raises a divergence the machine's code swallowed,
    # notes() what was told apart
    differential: bool = False
    # keep()/restore(): a state kept as its changes since a snapshot, restored any number of times whatever was reverted
    # in between (Snapshots.keep)
    keeps: bool = False


@dataclass(frozen=True)
class ChainSpec:
    """The chain a backend starts from, as evmstate.toml describes it: the same for every backend."""

    accounts: int = 10
    balance: int = 100 * 10**18
    evm_version: str = "prague"
    chain_id: int = 1337
    gas_limit: int = 30_000_000
    gas_price: int = 0
    timestamp: int = 1_700_000_000
    call_gas_limit: int = CALL_GAS_LIMIT
    call_timeout: float | None = None
    call_cache: str = "on"  # read-only calls answered from the cache: "on", "off" or "check" (cache.py)
    fork: Any = None  # the chain forked at a pinned block (fork/store.ForkSpec), or None for a fresh chain


@runtime_checkable
class Backend(Protocol):
    """What the layers above need from an EVM: state access, execution, snapshots, time.

    What a backend can do beyond that is in its capabilities; the hooks it declares there are
    reached through hooks_of(backend), typed, and None where it declares none.
    """

    capabilities: Capabilities
    spec: ChainSpec  # the chain it started from (its fork, if forked)
    chain_id: int
    gas_limit: int
    call_gas_limit: int
    call_timeout: float | None
    account_keys: list[tuple[bytes, bytes]]
    divergence: Any  # the first difference between two backends (capabilities.divergence), else None
    calls: int  # calls made, counted by a backend with capabilities.divergence; 0 otherwise
    call_cache: Any  # the view calls' cache (cache.ReadCache), or None when it is off or the backend has none

    def transact(
        self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None
    ) -> ExecResult: ...
    def call(
        self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False
    ) -> ExecResult: ...
    def get_balance(self, address: bytes) -> int: ...
    def set_balance(self, address: bytes, value: int) -> None: ...
    def get_nonce(self, address: bytes) -> int: ...
    def get_code(self, address: bytes) -> bytes: ...
    def get_storage(self, address: bytes, slot: int) -> int: ...
    def set_storage(self, address: bytes, slot: int, value: int) -> None: ...
    def set_code(self, address: bytes, code: bytes) -> None: ...
    def storage_reads(self, sender: bytes, to: bytes, data: bytes) -> tuple[ExecResult, list[tuple[bytes, int]]]: ...
    def snapshot(self) -> int: ...
    def revert(self, snapshot_id: int) -> None: ...
    def has_snapshot(self, snapshot_id: int) -> bool: ...
    def release(self, snapshot_id: int) -> None: ...
    def anchor(self) -> contextlib.AbstractContextManager[None]: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def block_number(self) -> int: ...
    def sleep(self, seconds: int) -> None: ...
    def mine(self, blocks: int = 1, timestamp: int | None = None) -> None: ...
    def set_block(self, timestamp: int, number: int) -> None: ...
    @property
    def logs(self) -> list[Log]: ...
    def reset_time_limit(self) -> None: ...
    def set_jump_recorder(self, recorder: JumpRecorder | None) -> None: ...
    def set_inner_failures(self, on: bool) -> None: ...


# Coverage as the hooks record it: per frame's code, a set of ints. The key is the code's
# address, or INITCODE + the address being created for a constructor's code. The ints are
# 2*pc + taken for a JUMPI at pc (taken: 1 when it jumped), and ~dest for a jump to dest.
Coverage = dict[bytes, set[int]]
INITCODE = b"initcode:"


class CoverageHooks(Protocol):
    """capabilities.coverage: per-opcode hooks record branches and jumps into hits while on."""

    def set_coverage(self, hits: Coverage | None) -> None: ...
    def hooks_now(self) -> "HooksNow": ...  # what every hook records into now


class ObserverHooks(Protocol):
    """capabilities.observer: every call's result, with the storage it read and wrote, told to the observer while on."""

    def set_observer(self, observer: Callable[[ExecResult], None] | None) -> None: ...


class FeedbackHooks(Protocol):
    """capabilities.feedback: branch counts and comparison operands recorded into feedback while on."""

    def set_feedback(self, feedback: "Feedback | None") -> None: ...


class HooksNow(NamedTuple):
    """What a backend's hooks record into now, as set_coverage(), set_observer(), set_feedback() set it (None: off)."""

    coverage: Coverage | None
    observer: Callable[[ExecResult], None] | None
    feedback: "Feedback | None"


class SamplingHooks(Protocol):
    """capabilities.sampling: a call like one recorded before in the run may take that one's coverage."""

    def set_sampling(self, on: bool) -> None: ...


class DifferentialHooks(Protocol):
    """capabilities.differential: the divergence of two builds a call met, and what the comparison told apart."""

    def raise_pending(self) -> None: ...
    def notes(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Hooks:
    """A backend's optional hooks: each one there only when its capability is declared, else None."""

    coverage: CoverageHooks | None
    observer: ObserverHooks | None
    feedback: FeedbackHooks | None
    sampling: SamplingHooks | None
    differential: DifferentialHooks | None = None


def hooks_of(backend: Backend) -> Hooks:
    """The hooks backend declares in its capabilities (a backend declaring one has its set_ method)."""
    caps = backend.capabilities
    return Hooks(
        cast(CoverageHooks, backend) if caps.coverage else None,
        cast(ObserverHooks, backend) if caps.observer else None,
        cast(FeedbackHooks, backend) if caps.feedback else None,
        cast(SamplingHooks, backend) if caps.sampling else None,
        cast(DifferentialHooks, backend) if caps.differential else None,
    )


@dataclass
class Feedback:
    """What the hooks record for the search besides coverage, while on (set_feedback), in calls that are not views.

    Only transactions and calls that may write are recorded: a view call may be answered from
    the call cache, which runs no hooks, so what is recorded never depends on whether it was.
    """

    counts: dict[bytes, dict[int, int]] = field(default_factory=dict)  # per code: 2*pc + taken of each JUMPI -> times
    # comparisons (wherever their result goes: pyevm/opcodes.py recorded()), one side a word of the frame's calldata (an
    # argument): the other side; one side computed from an argument by simple arithmetic (3 * x + 7, x // 4): the
    # argument that would make it the other side
    operands: list[int] = field(default_factory=list)
    # of those, the equalities (EQ, and the XOR and SUB vyper writes for == and !=): (argument, other side)
    equalities: list[tuple[int, int]] = field(default_factory=list)
    zeros: list[tuple[int, int]] = field(default_factory=list)  # (argument, the largest making a number of it 0)
    bound: tuple[int, int] | None = None  # the latest order met (argument, other side): a reverted step's bound
    # comparisons with an argument on both sides (a code compared with what it must match, and matching): the argument;
    # for the shrinker, which leaves such a number where it is. With everywhere on (the shrinker's replays), also an
    # XOR or SUB of an argument with itself whose result is not tested
    matched: list[int] = field(default_factory=list)
    everywhere: bool = False
    # with everywhere on, every comparison of operands: (argument, other side), so that the shrinker replaces an
    # argument only with what it was compared with (input-to-state, as Redqueen), not with any other side met
    sides: list[tuple[int, int]] = field(default_factory=list)
    # the other side of a comparison with the block's time (or number), or the time an elapsed time meets it: waited for
    times: list[int] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    # with everywhere on, the same as (the clock then, the other side), for the shrinker's waits set to a time compared;
    # and the value a call sends counts as one of its arguments (a bid compared with a reserve price)
    time_sides: list[tuple[int, int]] = field(default_factory=list)
    block_sides: list[tuple[int, int]] = field(default_factory=list)
    active: bool = False  # inside a call that is recorded
    # the run's arguments so far (searching): one stored, compared in a later call, has its other side recorded too
    earlier: set[int] = field(default_factory=set)
    recalled: bool = False  # such a side was recorded (what the call records then depends on the run's earlier calls)


def account_keys(count: int) -> list[tuple[bytes, bytes]]:
    """Deterministic (private key, address) pairs for the funded accounts."""
    return [_account_key(i) for i in range(count)]


@functools.lru_cache(maxsize=4096)
def _account_key(i: int) -> tuple[bytes, bytes]:
    # an address costs a public key (2.4 ms in pure Python), and every backend, py-evm's shadow of revm
    # included, funds the same accounts
    private = keccak(b"evmstate account %d" % i)
    return private, keys.PrivateKey(private).public_key.to_canonical_address()


def contract_address(sender: bytes, nonce: int) -> bytes:
    """The address of the contract that sender creates with this nonce (CREATE): py-evm's rule, without importing
    py-evm.
    """
    return keccak(rlp.encode([sender, nonce]))[-20:]


def intrinsic_gas(data: bytes, is_create: bool) -> tuple[int, int]:
    """(intrinsic gas, EIP-7623 floor) of a transaction carrying data."""
    zeros = data.count(0)
    nonzeros = len(data) - zeros
    gas = 21_000 + 4 * zeros + 16 * nonzeros
    if is_create:
        # EIP-3860's initcode word cost is charged by py-evm's origin computation itself
        gas += 32_000
    floor = 21_000 + 10 * (zeros + 4 * nonzeros)
    return gas, floor


@dataclass
class Snapshot:
    """One snapshot: the backend's own mark of its state (a journal checkpoint, an undo log's length), the block and the
    logs."""

    mark: Any
    timestamp: int
    block_number: int
    log_count: int
    changed: int = 0  # the length of the backend's log of changed keys (_changed_mark()) when taken


@dataclass(frozen=True)
class Kept:
    """A state kept by Snapshots.keep(): what changed since a snapshot, restored by restore() while that one lives."""

    since: int  # the snapshot id it is relative to
    changes: dict[Any, Any]  # the backend's key (an account, a slot) -> its value when kept
    timestamp: int
    block_number: int
    logs: tuple[Log, ...]  # the logs emitted since `since`
    changed: int  # the backend's log of changed keys, its length when kept
    era: int  # the reverts before it: a later keep() carries its changes on while there was none since


class Snapshots:
    """snapshot(), revert(), release() and anchor(), over a backend's own marks: the book-keeping every backend shares.

    A backend gives _mark() (its state now), _go_back(snap) (its state as at snap.mark) and
    _released(snap) (snap, the oldest of those released, is forgotten and its changes kept). One that keeps states
    (capabilities.keeps) gives _changed_mark() (the length of its log of changed keys: accounts, slots),
    _changed_since(mark) (the keys logged since; a reverted change may be among them), _values(keys), _write_values().
    """

    capabilities: Capabilities
    _logs: list[Log]
    _timestamp: int
    _number: int
    # a backend that keeps states (capabilities.keeps): its log of changed keys
    _changed_mark: Callable[[], int]
    _changed_since: Callable[[int], Any]
    _values: Callable[[Any], dict[Any, Any]]
    _write_values: Callable[[dict[Any, Any]], None]

    def _init_snapshots(self) -> None:
        self._snapshots: dict[int, Snapshot] = {}
        self._order: list[int] = []  # live snapshot ids, oldest first
        self._next_id = 0
        self._era = 0  # reverts so far

    def _mark(self) -> Any:
        raise NotImplementedError

    def _go_back(self, snap: Snapshot) -> None:
        raise NotImplementedError

    def _released(self, snap: Snapshot) -> None:
        raise NotImplementedError

    def _set_block(self, timestamp: int, number: int) -> None:
        raise NotImplementedError

    def snapshot(self) -> int:
        """Record the current state; revert(id) returns to it as often as needed."""
        mark = self._mark()
        self._next_id += 1
        sid = self._next_id
        changed = self._changed_mark() if self.capabilities.keeps else 0
        self._snapshots[sid] = Snapshot(mark, self._timestamp, self._number, len(self._logs), changed)
        self._order.append(sid)
        return sid

    def keep(self, since: int, after: Kept | None = None) -> Kept:
        """The state now, kept as what changed since snapshot since: restore() returns to it any number of times while
        since lives, whatever was reverted in between. after: one kept earlier since the same snapshot, carried on (only
        what changed after it is read) when nothing was reverted since."""
        snap = self._snapshots.get(since)
        if snap is None:
            raise UsageError(f"snapshot {since} does not exist or was dropped by reverting to an earlier one")
        if not self.capabilities.keeps:
            raise UsageError(f"the {type(self).__name__} backend cannot keep a state (capabilities.keeps)")
        if after is not None and after.since == since and after.era == self._era:
            changes, start, logs = dict(after.changes), after.changed, after.logs
            logs += tuple(self._logs[snap.log_count + len(logs) :])
        else:
            changes, start, logs = {}, snap.changed, tuple(self._logs[snap.log_count :])
        changes.update(self._values(self._changed_since(start)))
        return Kept(since, changes, self._timestamp, self._number, logs, self._changed_mark(), self._era)

    def restore(self, kept: Kept) -> None:
        """Return to the state keep() kept: reverted to its snapshot (later ones are dropped), its changes written."""
        self.revert(kept.since)
        self._write_values(kept.changes)
        self._logs.extend(kept.logs)
        if (kept.timestamp, kept.block_number) != (self._timestamp, self._number):
            self._set_block(kept.timestamp, kept.block_number)

    def revert(self, snapshot_id: int) -> None:
        """Return to the state at snapshot(); that snapshot stays usable, later ones are dropped."""
        snap = self._snapshots.get(snapshot_id)
        if snap is None:
            raise UsageError(f"snapshot {snapshot_id} does not exist or was dropped by reverting to an earlier one")
        while self._order[-1] != snapshot_id:
            del self._snapshots[self._order.pop()]
        self._era += 1
        self._go_back(snap)
        del self._logs[snap.log_count :]
        if (snap.timestamp, snap.block_number) != (self._timestamp, self._number):
            self._set_block(snap.timestamp, snap.block_number)

    def has_snapshot(self, snapshot_id: int) -> bool:
        """Whether revert(snapshot_id) can still go back to it."""
        return snapshot_id in self._snapshots

    def release(self, snapshot_id: int) -> None:
        """Forget a snapshot (and any taken after it) without reverting: the changes stay."""
        if snapshot_id not in self._snapshots:
            return
        while self._order:
            sid = self._order.pop()
            snap = self._snapshots.pop(sid)
            if sid == snapshot_id:
                self._released(snap)
                break

    @contextlib.contextmanager
    def anchor(self) -> Iterator[None]:
        """Run a block and then put the state back as it was, whatever happened in it."""
        sid = self.snapshot()
        try:
            yield
        finally:
            self.revert(sid)
            self.release(sid)


# what an error about going back in time adds: where it is allowed
BACK_IN_A_SCOPE = (
    " outside a scope that undoes it. Inside `with chain.anchor():`, or between `chain.snapshot()` and"
    " `chain.revert()`, the clock and block number may be set earlier"
)


class BlockTime(Snapshots):
    """The current block's time and number, moved by chain.sleep() and chain.mine(), over a backend's _set_block()."""

    # declared by every backend (see Backend)
    capabilities: Capabilities
    gas_limit: int
    call_gas_limit: int
    divergence: Any = None
    calls = 0
    call_cache: Any = None

    @property
    def timestamp(self) -> int:
        return self._timestamp

    @property
    def block_number(self) -> int:
        return self._number

    def sleep(self, seconds: int) -> None:
        if seconds < 0:
            raise UsageError(f"chain.sleep({seconds}): time cannot go backwards{BACK_IN_A_SCOPE}")
        self._set_block(self._timestamp + seconds, self._number)

    def mine(self, blocks: int = 1, timestamp: int | None = None) -> None:
        if blocks < 0:
            raise UsageError(f"chain.mine({blocks}): the number of blocks cannot be negative{BACK_IN_A_SCOPE}")
        if timestamp is not None and timestamp < self._timestamp:
            raise UsageError(
                f"chain.mine(timestamp={timestamp}): earlier than the current block time "
                f"{self._timestamp}{BACK_IN_A_SCOPE}"
            )
        self._set_block(self._timestamp if timestamp is None else timestamp, self._number + blocks)

    def set_block(self, timestamp: int, number: int) -> None:
        """Set the block time and number, either way: only for a caller that will revert to a snapshot taken before
        (chain.anchor()).
        """
        if timestamp < 0 or number < 0:
            raise UsageError(
                f"the block time and number cannot be negative (asked for time {timestamp}, block {number})"
            )
        self._set_block(timestamp, number)

    def _gas(self, gas: int | None) -> tuple[int, bool]:
        """The gas a call gets, and whether it is the cap rather than the caller's choice."""
        if gas is None:
            return self.call_gas_limit, True
        if gas > self.call_gas_limit:
            where = (
                "the block gas limit"
                if self.call_gas_limit == self.gas_limit
                else "the per-call gas cap ([fuzz] call_gas_limit in evmstate.toml)"
            )
            raise UsageError(f"gas {gas} exceeds {where}, {self.call_gas_limit}")
        return gas, False
