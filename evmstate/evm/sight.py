"""What py-evm's hooks would record of the calls revm runs: coverage, branch counts, comparison operands, storage reads and writes.

revm has no per-opcode hooks (revm.py), so while the search asks for these (set_coverage,
set_feedback, set_observer), each call revm ran is run again from the state before it where its
path can be seen: by the tracer (tracer.py), a small interpreter that checks its outcome against
revm's, or, for what the tracer does not model or when the outcomes differ, by py-evm with its
hooks on a chain holding the same state (RevmBackend.py_evm()). Either way the records are
py-evm's own, so coverage, guidance and the dictionary see on revm what they see on py-evm.
"""

from __future__ import annotations

import collections
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .base import Coverage, ExecResult, Feedback, Log
from .cache import replay_coverage
from .pyevm.opcodes import MAX_OPERANDS
from .tracer import Env, Trace, Tracer, Unsupported, World

if TYPE_CHECKING:
    from .revm import RevmBackend


@dataclass(frozen=True)
class Outcome:
    """What revm's run of a call came to, for the tracer's run to agree with."""

    success: bool
    reverted: bool
    output: bytes
    logs: tuple[Log, ...]
    changed: dict[tuple[bytes, int], int] | None  # storage slots whose value changed (None: not known, as for a call)
    spent: int  # gas spent before refunds
    gas: int  # gas the call's code was given


@dataclass(frozen=True)
class Seen:
    """One call as the hooks saw it: its coverage, and its storage reads and writes in order."""

    hits: Coverage
    reads: tuple[tuple[bytes, int, int], ...]
    writes: tuple[tuple[bytes, int, int], ...]


class Memo:
    """A traced call and every value it read of the state before it: while they are the same, so is what it does."""

    __slots__ = ("trace", "room", "storage", "balances", "code", "nonces", "block")

    def __init__(self, trace: Trace, room: int, tracer: Tracer, block: tuple[int, int] | None) -> None:
        self.trace = trace
        self.room = room  # the operands it could record
        self.storage = tracer.read_storage
        self.balances = tracer.read_balances
        self.code = tracer.read_code
        self.nonces = tracer.read_nonces
        self.block = block  # (timestamp, number) when it read either


# traced calls remembered before the memo starts again
MEMO = 4096


class Sight:
    """The hooks' records of one revm backend's calls, while the search asks for them."""

    def __init__(self, backend: "RevmBackend") -> None:
        self.backend = backend
        self.hits: Coverage | None = None
        self.feedback: Feedback | None = None
        self.observer: Callable[[ExecResult], None] | None = None
        self.world = World(backend.get_storage, backend.get_balance, backend.get_nonce, backend.get_code)
        self.traced = 0  # calls the tracer ran
        self.remembered = 0  # calls that ran as a traced call with the same inputs did (memo)
        self.memo: dict[tuple[Any, ...], Memo] = {}
        self._envs: dict[tuple[Any, ...], Env] = {}
        self.witnessed: collections.Counter[str] = collections.Counter()  # calls py-evm ran, by why

    @property
    def on(self) -> bool:
        """Whether anything asks for what calls do inside."""
        return self.hits is not None or self.observer is not None

    def see(self, transaction: bool, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int | None, static: bool, outcome: Outcome) -> Seen:
        """Run the call again from the state before it (revm's state now) and record what it did.

        Branch counts and comparison operands are recorded only for a call that is not a view
        call (a transaction, or a call that is not static), as py-evm records them.
        """
        static = static and not value
        recording = self.feedback is not None and (transaction or not static)
        key = (transaction, sender, to, data, value, gas, static, recording)
        room = MAX_OPERANDS - len(self.feedback.operands) if recording and self.feedback is not None else 0
        known = self.memo.get(key)
        if known is not None and self._unchanged(known) and (len(known.trace.operands) < known.room or known.room <= room):
            self.remembered += 1
            return self._seen(known.trace, recording, room)
        trace, why = None, None
        if to is None:
            why = "deployment"
        elif outcome.spent * 2 >= outcome.gas:
            why = "gas"  # some frame may have run out of gas
        else:
            env = self._env(transaction, sender)
            tracer = Tracer(self.world, env, recording, room)
            try:
                trace = tracer.run(sender, to, data, value, static)
            except Unsupported as e:
                why = str(e)
            except (TypeError, AttributeError, RecursionError) as e:  # GAS taken as a number, and the like
                why = type(e).__name__
            if trace is not None and not self._agrees(trace, outcome):
                trace, why = None, "outcome"
        if trace is None:
            self.witnessed[why or "?"] += 1
            return self._witness(transaction, sender, to, data, value, gas, static)
        self.traced += 1
        backend = self.backend
        if len(self.memo) >= MEMO:
            self.memo.clear()
        block = (backend.timestamp, backend.block_number) if tracer.block_read else None
        self.memo[key] = Memo(trace, room, tracer, block)
        return self._seen(trace, recording, room)

    def _env(self, transaction: bool, sender: bytes) -> Env:
        backend = self.backend
        key = (backend.timestamp, backend.block_number, transaction, sender)
        env = self._envs.get(key)
        if env is None:
            if len(self._envs) > 64:
                self._envs.clear()
            env = self._envs[key] = Env(key[0], key[1], backend.chain_id, backend.gas_limit, backend.gas_price if transaction else 0, sender)
        return env

    def _seen(self, trace: Trace, recording: bool, room: int) -> Seen:
        """A trace's records added to the hooks' (branch counts and operands; coverage is the caller's to add)."""
        if recording and self.feedback is not None:
            feedback = self.feedback
            for code, counts in trace.counts.items():
                mine = feedback.counts.setdefault(code, {})
                for branch, times in counts.items():
                    mine[branch] = mine.get(branch, 0) + times
            feedback.operands.extend(trace.operands[:room])
        return Seen(trace.hits, tuple(trace.reads), tuple(trace.writes))

    def _unchanged(self, known: "Memo") -> bool:
        """Whether every value a traced call read is what it is now (then it runs the same way again)."""
        backend = self.backend
        get = backend.get_storage
        for (address, slot), value in known.storage.items():
            if get(address, slot) != value:
                return False
        for address, balance in known.balances.items():
            if backend.get_balance(address) != balance:
                return False
        for address, code in known.code.items():
            if backend.get_code(address) != code:
                return False
        for address, nonce in known.nonces.items():
            if backend.get_nonce(address) != nonce:
                return False
        return known.block is None or known.block == (backend.timestamp, backend.block_number)

    def _agrees(self, trace: Trace, outcome: Outcome) -> bool:
        if trace.success != outcome.success or trace.output != outcome.output:
            return False
        if not trace.success:
            return trace.reverted == outcome.reverted
        if tuple(trace.logs) != outcome.logs:
            return False
        if outcome.changed is None:
            return True
        get = self.world.storage
        changed = {key: v for key, v in trace.written.items() if v != get(*key)}
        return changed == outcome.changed

    def _witness(self, transaction: bool, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int | None, static: bool) -> Seen:
        """Run the call on py-evm with its hooks, from the state before it."""
        backend = self.backend
        shadow = backend.py_evm()
        hits: Coverage = {}
        observed: list[ExecResult] = []
        shadow.set_coverage(hits)
        shadow.set_feedback(self.feedback)
        shadow.set_observer(observed.append)
        try:
            with shadow.anchor():
                shadow.set_block(backend.timestamp, backend.block_number)
                if transaction:
                    shadow.transact(sender, to, data, value, gas)
                else:
                    assert to is not None
                    shadow.call(sender, to, data, value, gas, static)
        finally:
            shadow.set_observer(None)
            shadow.set_feedback(None)
            shadow.set_coverage(None)
        result = observed[-1]
        return Seen(hits, result.storage_reads, result.storage_writes)

    def record(self, seen: Seen) -> None:
        """Add a call's coverage to the coverage being recorded."""
        if self.hits is not None and seen.hits:
            replay_coverage(seen.hits, self.hits)  # type: ignore[arg-type]

    def show(self, result: ExecResult, seen: Seen | None) -> ExecResult:
        """result with the storage the call read and wrote, shown to the observer; returned as shown."""
        if seen is not None and (seen.reads or seen.writes):
            result = dataclasses.replace(result, storage_writes=seen.writes, storage_reads=seen.reads)
        if self.observer is not None:
            self.observer(result)
        return result

    def statistics(self) -> dict[str, Any]:
        return {"traced": self.traced, "remembered": self.remembered, "witnessed": dict(self.witnessed)}
