"""What py-evm's hooks would record of the calls revm runs: coverage, branch counts, comparison operands, storage reads
and writes.

revm has no per-opcode hooks (revm.py), so while the search asks for these (set_coverage,
set_feedback, set_observer), each call revm ran is run again from the state before it where its
path can be seen: by the tracer (tracer.py), a small interpreter that checks its outcome against
revm's, or, for what the tracer does not model or when the outcomes differ, by py-evm with its
hooks on a chain holding the same state (RevmBackend.py_evm()). Either way the records are
py-evm's own, so coverage, guidance and the dictionary see on revm what they see on py-evm.

Sampled (set_sampling, which the search turns on for guidance when no coverage report is asked for,
again at each run's start): a transaction (or a call that is not a view) whose shape is known is run
again only now and then. Its shape
is what revm tells of it at no cost: the code called, its selector, whether it succeeded, the gas
its code used, its output's length (a failure's output whole), its logs' emitters and topics, how
many slots it changed. Two calls of one shape took the same path (the gas of every opcode on it adds
up to the same) over state of the same kind. In each run, a shape's first FIRST calls and every
EVERY-th after are seen whole, and a reverted transaction's first REVERTED (the bound each failed is
what the search repeats the step at, and a run's first revert is often in the steps it replays of a
kept run, where the bound was tried already); the others take the coverage and branch counts of the
shape's traced calls, revm's changed slots as what they stored, and give no comparison operands or
storage reads.
Which calls are seen whole follows from the run's own calls, never from earlier runs: a run replayed
from its choices (Hypothesis's replay of a native run, shrinking) feeds the dictionary the same
values, and so draws the same. A shape whose traced calls covered different code is traced for its
coverage every time from then on. In a bundled ERC20's 10,000 calls, 17 shapes, each with one coverage.
"""

from __future__ import annotations

import collections
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Protocol

from ..base import Coverage, ExecResult, Feedback, Log
from ..cache import replay_coverage
from ..pyevm.opcodes import MAX_OPERANDS, remember
from .frames import Env, Trace, Unsupported, World
from .tracer import Tracer


class Chain(Protocol):
    """What the sight needs of the backend it sees for: its state and block, and a py-evm chain holding the same
    (revm.py)."""

    chain_id: int
    gas_limit: int
    gas_price: int

    @property
    def timestamp(self) -> int: ...
    @property
    def block_number(self) -> int: ...
    def get_storage(self, address: bytes, slot: int) -> int: ...
    def get_balance(self, address: bytes) -> int: ...
    def get_nonce(self, address: bytes) -> int: ...
    def get_code(self, address: bytes) -> bytes: ...
    def py_evm(self) -> Any: ...


class Outcome(NamedTuple):
    """What revm's run of a call came to, for the tracer's run to agree with (a tuple: one is made for every call)."""

    success: bool
    reverted: bool
    output: bytes
    logs: tuple[Log, ...]
    changed: dict[tuple[bytes, int], int] | None  # storage slots whose value changed (None: not known, as for a call)
    spent: int  # gas spent before refunds
    gas: int  # gas the call's code was given
    intrinsic: int  # the calldata's intrinsic cost (its argument values change it)


@dataclass(frozen=True)
class Seen:
    """One call as the hooks saw it: its coverage, and its storage reads and writes in order."""

    hits: Coverage
    reads: tuple[tuple[bytes, int, int], ...]
    writes: tuple[tuple[bytes, int, int], ...]


class Memo:
    """A traced call and every value it read of the state before it: while they are the same, so is what it does."""

    __slots__ = ("trace", "found", "storage", "balances", "code", "nonces", "block")

    def __init__(self, trace: Trace, found: Feedback | None, tracer: Tracer, block: tuple[int, int] | None) -> None:
        self.trace = trace
        self.found = found  # the operands and times it recorded (a call that is not a view call)
        self.storage = tracer.read_storage
        self.balances = tracer.read_balances
        self.code = tracer.read_code
        self.nonces = tracer.read_nonces
        self.block = block  # (timestamp, number) when it read either


# traced calls remembered before the memo starts again
MEMO = 4096
# sampled: in each run, a shape's first FIRST calls and every EVERY-th after give all their records
FIRST = 1
# a transaction that reverted, its first REVERTED of a shape in a run: the bound it failed (search/guidance.py)
REVERTED = 4
EVERY = 16
# shapes remembered before they are forgotten
SHAPES = 4096


class Shape:
    """What calls of one shape did as traced: their coverage and branch counts."""

    __slots__ = ("hits", "counts", "mixed", "unchanged")

    def __init__(self, seen: Seen, counts: dict[bytes, dict[int, int]] | None) -> None:
        self.hits = seen.hits
        self.counts = counts
        self.mixed = False  # two traces of the shape covered different code: each call is traced for its coverage
        self.unchanged: Seen | None = None  # what a call of the shape that changed no slot is seen to do


class Sight:
    """The hooks' records of one revm backend's calls, while the search asks for them."""

    def __init__(self, backend: Chain) -> None:
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
        self.sampling = False  # calls of a known shape traced only now and then (set_sampling)
        self.shapes: dict[tuple[Any, ...], Shape] = {}
        self.run_seen: dict[tuple[Any, ...], int] = {}  # calls of each shape in this run (since set_sampling)
        self.sampled = 0  # calls of a known shape not traced
        self._last_counts: dict[bytes, dict[int, int]] | None = None  # the branch counts of the call just traced

    @property
    def on(self) -> bool:
        """Whether anything asks for what calls do inside."""
        return self.hits is not None or self.observer is not None

    def see(
        self,
        transaction: bool,
        sender: bytes,
        to: bytes | None,
        data: bytes,
        value: int,
        gas: int | None,
        static: bool,
        outcome: Outcome,
        uncached: bool = False,
        created: bytes | None = None,
    ) -> Seen:
        """Run the call again from the state before it (revm's state now) and record what it did.

        Branch counts and comparison operands are recorded only for a call that is not a view
        call (a transaction, or a call that is not static), as py-evm records them.
        uncached: a view call the call cache never holds (its code calls other code, or the cache is off).
        created: a deployment's address (outcome.output the code revm deployed there): its initcode is traced.
        """
        static = static and not value
        view = static and not transaction
        recording = self.feedback is not None and not view
        if recording and self.feedback is not None:
            remember(self.feedback, to, data, value)
        # the shrinker's replays record more
        everywhere = recording and self.feedback is not None and self.feedback.everywhere
        # a view call the cache may hold is seen whole: whether the cache answers it (and it is never seen) follows from
        # earlier runs; and so is every call of the shrinker's replays, whose comparisons its passes read
        if not self.sampling or everywhere or to is None or (view and not uncached):
            key = (transaction, sender, to or created, data, value, gas, static, everywhere, recording)
            return self._exact(key, transaction, sender, to, data, value, gas, static, recording, outcome, created)
        shape = _shape(transaction, to, data, value, static, recording, outcome)
        n = self.run_seen[shape] = self.run_seen.get(shape, 0) + 1
        # what feeds the dictionary (operands, reads, writes) is decided by this run's calls alone, so that a
        # replay of the run (Hypothesis's, given its choices) sees the same; only the coverage is the shape's.
        # A view call gives no operands, and the values it read are in its output or were stored by a transaction
        # the dictionary saw: only a run's first of each shape is new to it (novelty, not a count)
        if n <= FIRST or (n % EVERY == 0 and not view) or (recording and outcome.reverted and n <= REVERTED):
            key = (transaction, sender, to, data, value, gas, static, everywhere, recording)
            seen = self._exact(key, transaction, sender, to, data, value, gas, static, recording, outcome)
            self._learn(shape, seen, recording)
            return seen
        kind = self.shapes.get(shape)
        if kind is None or kind.mixed:
            feedback, self.feedback = self.feedback, None  # its coverage alone
            try:
                # a remembered call with the same inputs, over the same values, covered the same code
                key = (transaction, sender, to, data, value, gas, static, False, False)
                covered = self._exact(key, transaction, sender, to, data, value, gas, static, False, outcome)
            finally:
                self.feedback = feedback
            self._learn(shape, covered, False)
            kind = Shape(covered, None)
        else:
            self.sampled += 1
        return self._as_known(kind, recording, outcome)

    def _exact(
        self, key: tuple[Any, ...], transaction: bool, sender: bytes, to: bytes | None, data: bytes, value: int,
        gas: int | None, static: bool, recording: bool, outcome: Outcome, created: bytes | None = None,
    ) -> Seen:
        """Every record of the call: a remembered call's, else the tracer's (or py-evm's)."""
        known = self.memo.get(key)
        if known is not None and self._unchanged(known):
            self.remembered += 1
            self._last_counts = known.trace.counts if known.found is not None else None
            return self._seen(known.trace, known.found)
        return self._trace(key, transaction, sender, to, data, value, gas, static, recording, outcome, created)

    def _trace(
        self, key: tuple[Any, ...], transaction: bool, sender: bytes, to: bytes | None, data: bytes, value: int,
        gas: int | None, static: bool, recording: bool, outcome: Outcome, created: bytes | None = None,
    ) -> Seen:
        """The call run by the tracer (or by py-evm where the tracer cannot): its records."""
        trace, why = None, None
        if to is None and created is None:
            why = "deployment"
        elif outcome.spent * 2 >= outcome.gas:
            why = "gas"  # some frame may have run out of gas
        else:
            env = self._env(transaction, sender)
            # recorded apart, then added: the lists start as long as the hooks' (py-evm caps each at MAX_OPERANDS)
            found = None
            if recording and self.feedback is not None:
                mine = self.feedback
                found = Feedback(
                    operands=[0] * len(mine.operands), times=[0] * len(mine.times), blocks=[0] * len(mine.blocks)
                )
                found.equalities = [(0, 0)] * len(mine.equalities)
                found.zeros = [(0, 0)] * len(mine.zeros)
                found.matched = [0] * len(mine.matched)
                found.sides = [(0, 0)] * len(mine.sides)
                found.time_sides, found.block_sides = [(0, 0)] * len(mine.time_sides), [(0, 0)] * len(mine.block_sides)
                found.everywhere, found.earlier = mine.everywhere, mine.earlier
            tracer = Tracer(self.world, env, found)
            try:
                if to is not None:
                    trace = tracer.run(sender, to, data, value, static)
                else:
                    trace = tracer.deploy(sender, created, data, value)  # type: ignore[arg-type]
            except Unsupported as e:
                why = str(e)
            except (TypeError, AttributeError, RecursionError) as e:  # GAS taken as a number, and the like
                why = type(e).__name__
            if trace is not None and not self._agrees(trace, outcome):
                trace, why = None, "outcome"
        if trace is None:
            self.witnessed[why or "?"] += 1
            self._last_counts = None  # py-evm's went straight into the feedback
            return self._witness(transaction, sender, to, data, value, gas, static)
        self.traced += 1
        self._last_counts = trace.counts if found is not None else None
        backend = self.backend
        if len(self.memo) >= MEMO:
            self.memo.clear()
        recalled = found is not None and found.recalled
        if found is not None:  # only what this call added
            before = self.feedback
            assert before is not None
            found = Feedback(
                operands=found.operands[len(before.operands) :],
                equalities=found.equalities[len(before.equalities) :],
                zeros=found.zeros[len(before.zeros) :],
                matched=found.matched[len(before.matched) :],
                sides=found.sides[len(before.sides) :],
                times=found.times[len(before.times) :],
                blocks=found.blocks[len(before.blocks) :],
                time_sides=found.time_sides[len(before.time_sides) :],
                block_sides=found.block_sides[len(before.block_sides) :],
                bound=found.bound,
            )
        block = (backend.timestamp, backend.block_number) if tracer.block_read else None
        # a call that recorded many may have been cut short by the cap: it is traced again next time; so is one that
        # recorded what it compared with an earlier call's argument, which another run's earlier calls may not give
        if not recalled and (
            found is None or all(len(new) < MAX_OPERANDS // 2 for new in (found.operands, found.times, found.blocks))
        ):
            self.memo[key] = Memo(trace, found, tracer, block)
        return self._seen(trace, found)

    def _learn(self, shape: tuple[Any, ...], seen: Seen, recording: bool) -> None:
        """Remember what a traced call of this shape covered; a shape whose calls covered different code is traced from
        now on for its coverage."""
        kind = self.shapes.get(shape)
        if kind is None:
            if len(self.shapes) >= SHAPES:
                self.shapes.clear()
            self.shapes[shape] = Shape(seen, self._last_counts if recording else None)
        elif seen.hits != kind.hits:
            kind.mixed = True

    def _as_known(self, kind: Shape, recording: bool, outcome: Outcome) -> Seen:
        """A call of a known shape, not traced: the shape's coverage and branch counts, the slots revm saw it change."""
        feedback = self.feedback
        if recording and feedback is not None and kind.counts:
            for code, counts in kind.counts.items():
                mine = feedback.counts.setdefault(code, {})
                for branch, times in counts.items():
                    mine[branch] = mine.get(branch, 0) + times
        changed = outcome.changed
        if not changed:  # most sampled calls (a revert): the shape's one record
            if kind.unchanged is None:
                kind.unchanged = Seen(kind.hits, (), ())
            return kind.unchanged
        return Seen(kind.hits, (), tuple(sorted((a, k, v) for (a, k), v in changed.items())))

    def _env(self, transaction: bool, sender: bytes) -> Env:
        backend = self.backend
        key = (backend.timestamp, backend.block_number, transaction, sender)
        env = self._envs.get(key)
        if env is None:
            if len(self._envs) > 64:
                self._envs.clear()
            env = self._envs[key] = Env(
                key[0], key[1], backend.chain_id, backend.gas_limit, backend.gas_price if transaction else 0, sender
            )
        return env

    def _seen(self, trace: Trace, found: Feedback | None) -> Seen:
        """A trace's records added to the hooks' (branch counts, operands, times; coverage is the caller's to add)."""
        feedback = self.feedback
        if found is not None and feedback is not None:
            for code, counts in trace.counts.items():
                mine = feedback.counts.setdefault(code, {})
                for branch, times in counts.items():
                    mine[branch] = mine.get(branch, 0) + times
            room = MAX_OPERANDS - len(feedback.operands)
            feedback.operands.extend(found.operands[:room])
            feedback.equalities.extend(found.equalities[: MAX_OPERANDS - len(feedback.equalities)])
            feedback.zeros.extend(found.zeros[: MAX_OPERANDS - len(feedback.zeros)])
            feedback.matched.extend(found.matched[: MAX_OPERANDS - len(feedback.matched)])
            feedback.sides.extend(found.sides[: MAX_OPERANDS - len(feedback.sides)])
            feedback.times.extend(found.times[: MAX_OPERANDS - len(feedback.times)])
            feedback.blocks.extend(found.blocks[: MAX_OPERANDS - len(feedback.blocks)])
            feedback.time_sides.extend(found.time_sides[: MAX_OPERANDS - len(feedback.time_sides)])
            feedback.block_sides.extend(found.block_sides[: MAX_OPERANDS - len(feedback.block_sides)])
            if found.bound is not None:
                feedback.bound = found.bound
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

    def _witness(
        self, transaction: bool, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int | None, static: bool
    ) -> Seen:
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
        return {
            "traced": self.traced, "remembered": self.remembered, "witnessed": dict(self.witnessed),
            "sampled": self.sampled,
        }


def _shape(
    transaction: bool, to: bytes, data: bytes, value: int, static: bool, recording: bool, outcome: Outcome
) -> tuple[Any, ...]:
    """What revm tells of a call at no cost, as a key: calls with the same took the same path (see the module's
    docstring)."""
    # the gas its code used: revm's, less the calldata's intrinsic cost (which its argument values change)
    used = outcome.spent - outcome.intrinsic
    logs = tuple((log.address, log.topics[:1], len(log.topics), len(log.data)) for log in outcome.logs)
    output = len(outcome.output) if outcome.success else outcome.output
    changed = None if outcome.changed is None else len(outcome.changed)
    return (
        transaction, to, data[:4], bool(value), static, recording, outcome.success, outcome.reverted, used, output,
        logs, changed,
    )
