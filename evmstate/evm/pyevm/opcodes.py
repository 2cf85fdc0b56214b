"""py-evm's JUMP and JUMPI, hooked: each frame's last taken jump, the per-call CPU time limit, coverage.

JUMP and JUMPI are replaced by hooked copies in the backend's own computation class: each frame
remembers its last taken jump (the only clue to which check sent it to vyper's shared REVERT),
and every few hundred jumps the call's CPU time is checked against its limit. With coverage on,
the same hooks record every branch taken or not and every jump destination. With feedback on
(base.Feedback), they count how often each branch went each way, and the comparisons are hooked
too (comparison operand logging, as AFL++'s CmpLog): every EQ, LT, GT, SLT and SGT wherever its
result goes (a branch, the join of an `and` or `or`, a stored bool, a return value), and the XOR
and SUB vyper writes for `==` and `!=` where their result is tested (recorded()). When one side
is a word of the frame's calldata, an argument, the other side is recorded. When one side was
computed from an argument by simple arithmetic with a value that is not one (`3 * x + 7`,
`x // 4`, `x - fee`: ADD, SUB, MUL, DIV and the shifts, hooked too; see derive()), the argument
that would make the two sides equal is solved for and recorded in the other side's place; such a
value tested for zero, which vyper compiles to no comparison (`assert x > 0` is a JUMPI on x, `x ==
0` an ISZERO), gives the largest argument that makes it zero (zero_tested()). When
neither side is an argument of the frame but one is an argument of an earlier recorded call of the
run (Feedback.earlier: stored by one call, tested for equality in a later one), the other side is
recorded too.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

from eth.abc import ComputationAPI
from eth.exceptions import InvalidInstruction, InvalidJumpDestination
from eth.vm import opcode_values
from eth.vm.opcode_values import JUMPDEST

from ..base import INITCODE, Coverage, Feedback, Frame, JumpRecorder
from ...files import Bounded
from ..cache import jump_destinations
from .solving import ARITHMETIC, SUB, WORD, Derived, derive, solve, solve_top

# the clock is read once every this many jumps: about every millisecond of execution
CHECK_EVERY = 256
# Calls are timed in the CPU time of the thread running them, not wall-clock time: on a busy
# machine (CI runners, other processes) a call is not charged for the time it waits, so whether
# it timed out does not depend on the load.
cpu_time = time.thread_time


class TimedOut(Exception):
    """Raised inside py-evm by a jump hook when the call passed its deadline.

    Not a VMError on purpose: py-evm would turn a VMError into a failed frame and let the
    calling frame carry on; this unwinds every frame at once, and the backend restores the
    state from before the call.
    """

    def __init__(self, frame: "Frame", key: tuple[Any, ...] = ()) -> None:
        super().__init__()
        self.frame = frame  # where the call was running when time ran out (a known runaway: the first time)
        self.key = key  # the call, as PyEVMBackend._run knows it


class Clock:
    """The current call's deadline, read by the jump hooks once every CHECK_EVERY jumps."""

    __slots__ = ("deadline",)

    def __init__(self) -> None:
        self.deadline = math.inf

    def check(self, computation: Any) -> None:
        if cpu_time() > self.deadline:
            raise TimedOut(frame_of(computation))


# JUMP and JUMPI are written out here rather than wrapping py-evm's (eth.vm.logic.flow): one
# Python call less per jump keeps the hooks' cost in a tight loop small (benchmarks/jumps.py).
# Gas and semantics are checked against py-evm's own transaction path in tests/integration.


def invalid_jump(code: Any) -> None:
    """Raise what py-evm raises for a jump to a position not in jump_destinations() (the code stream at it)."""
    if code.peek() != JUMPDEST:
        raise InvalidJumpDestination("Invalid Jump Destination")
    raise InvalidInstruction("Jump resulted in invalid instruction")


def jump(gas: int, clock: Clock, hits: Coverage | None = None, feedback: Feedback | None = None) -> Callable[..., None]:
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
        if dest not in jump_destinations(computation.msg.code):
            invalid_jump(code)
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
        if dest not in jump_destinations(computation.msg.code):
            invalid_jump(code)
        try:
            seen = computation._evmstate_seen
        except AttributeError:
            seen = _frame(hits, feedback, computation)
        seen.add(~dest)
        countdown -= 1
        if not countdown:
            countdown = CHECK_EVERY
            clock.check(computation)

    return covering_jump


def _frame(hits: Coverage, feedback: Feedback | None, computation: Any) -> set[int]:
    """The set a frame records its jumps into (one per code address, or per contract being
    created), kept on the frame with its branch counts (None while feedback is off)."""
    msg = computation.msg
    address = msg.code_address
    key = address if address else INITCODE + msg.storage_address
    seen = hits.get(key)
    if seen is None:
        seen = hits[key] = set()
    computation._evmstate_seen = seen
    counts = None
    if feedback is not None and feedback.active:
        counts = feedback.counts.get(key)
        if counts is None:
            counts = feedback.counts[key] = {}
    computation._evmstate_counts = counts
    return seen


def jumpi(
    gas: int, clock: Clock, recorder: JumpRecorder | None, hits: Coverage | None = None,
    feedback: Feedback | None = None,
) -> Callable[..., None]:
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
            if dest not in jump_destinations(computation.msg.code):
                invalid_jump(code)
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
                seen = _frame(hits, feedback, computation)
            if condition:
                computation._evmstate_jump = pc
                code.program_counter = dest
                if dest not in jump_destinations(computation.msg.code):
                    invalid_jump(code)
                if condition > 1 and feedback is not None:
                    tested(feedback, computation, condition)
                branch = 2 * pc + 1
                seen.add(branch)
                seen.add(~dest)
            else:
                branch = 2 * pc
                seen.add(branch)
            counts = computation._evmstate_counts
            if counts is not None:
                counts[branch] = counts.get(branch, 0) + 1
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
            if dest not in jump_destinations(computation.msg.code):
                invalid_jump(code)
            if condition > 1 and feedback is not None:
                tested(feedback, computation, condition)
        if hits is not None:
            try:
                seen = computation._evmstate_seen
            except AttributeError:
                seen = _frame(hits, feedback, computation)
            branch = 2 * pc + 1 if condition else 2 * pc
            seen.add(branch)
            if condition:
                seen.add(~dest)
            counts = computation._evmstate_counts
            if counts is not None:
                counts[branch] = counts.get(branch, 0) + 1
        if recorder is not None:
            recorder(computation.msg.code_address, pc, bool(condition))
        countdown -= 1
        if not countdown:
            countdown = CHECK_EVERY
            clock.check(computation)

    return recording_jumpi


SIGN = 2**255
PUSH1, PUSH32 = opcode_values.PUSH1, opcode_values.PUSH32
# operands one step records at most (a loop that compares its counter with an argument records each turn)
MAX_OPERANDS = 1024


def _signed(v: int) -> int:
    return v - WORD if v >= SIGN else v


COMPARISONS: dict[int, tuple[str, Callable[[int, int], int]]] = {
    opcode_values.EQ: ("EQ", lambda a, b: 1 if a == b else 0),
    opcode_values.LT: ("LT", lambda a, b: 1 if a < b else 0),
    opcode_values.GT: ("GT", lambda a, b: 1 if a > b else 0),
    opcode_values.SLT: ("SLT", lambda a, b: 1 if _signed(a) < _signed(b) else 0),
    opcode_values.SGT: ("SGT", lambda a, b: 1 if _signed(a) > _signed(b) else 0),
    # vyper writes `a != b` as an XOR (a SUB in other code) a JUMPI takes, `a == b` as the same under an ISZERO
    opcode_values.XOR: ("XOR", lambda a, b: a ^ b),
    opcode_values.SUB: ("SUB", lambda a, b: (a - b) % WORD),
}


# the comparisons that test equality: input-to-state replacement tries the other side in the argument's place
EQUALITIES = frozenset({opcode_values.EQ, opcode_values.XOR, opcode_values.SUB})
# XOR and SUB are arithmetic too: recorded only where their result is tested (recorded())
_ARITHMETIC_TOO = frozenset({opcode_values.XOR, opcode_values.SUB})

def zero_tested(feedback: Feedback, origin: tuple[int, tuple[tuple[int, int], ...]]) -> None:
    """A value derived from an argument tested for zero (vyper's `x > 0`, `x != 0` and `x == 0` of an unsigned x are
    a JUMPI or an ISZERO on x, not a comparison): record the largest argument for which it is zero (Feedback.zeros),
    when that is neither 0 nor the argument. `assets: uint256 = shares * total_assets // total_supply`, then `assert
    assets > 0`: once a share is worth less than an asset, a redeem of (total_supply - 1) // total_assets shares or
    fewer is refused, where the argument 0 is refused anyway, by an earlier check."""
    if feedback.everywhere:  # the shrinker's replays: it asks for no zero
        return
    argument, steps = origin
    value = solve_top(steps, 0)
    if not value or value == argument or len(feedback.operands) >= MAX_OPERANDS:
        return
    feedback.operands.append(value)
    feedback.zeros.append((argument, value))


def tested(feedback: Feedback, computation: Any, value: int) -> None:
    """A number a JUMPI or an ISZERO tests as it is (vyper's `assert x > 0`, `if x == 0`): zero_tested() when the frame
    derived it from an argument."""
    try:
        derived = computation._evmstate_words[2]
    except AttributeError:
        return  # no comparison nor arithmetic of the frame ran yet: nothing derived
    if derived and value in derived:
        zero_tested(feedback, derived[value])


def hooked_iszero(gas: int, feedback: Feedback) -> Callable[..., None]:
    """ISZERO, which records the argument that makes a value derived from one zero (zero_tested())."""

    def hook(computation: Any) -> None:
        computation.consume_gas(gas, "ISZERO")
        x = computation.stack_pop1_int()
        computation.stack_push_int(0 if x else 1)
        if x:
            tested(feedback, computation, x)

    return hook


def hooked(opcode: int, gas: int, feedback: Feedback) -> Callable[..., None]:
    """A comparison (COMPARISONS) that records its operands for feedback (recorded() says which), or an arithmetic
    operation (ARITHMETIC, and SUB where it is not tested) that notes the values a frame derives from its arguments
    (derive()): one hook for both, as they share the hot path."""
    compares = opcode in COMPARISONS
    mnemonic, compute = COMPARISONS[opcode] if compares else ARITHMETIC[opcode]
    equal = opcode in EQUALITIES
    derives = opcode in ARITHMETIC or opcode == SUB

    def hook(computation: Any) -> None:
        computation.consume_gas(gas, mnemonic)
        a, b = computation.stack_pop_ints(2)
        result = compute(a, b)
        computation.stack_push_int(result)
        try:
            words, tests, derived, sources = computation._evmstate_words
        except AttributeError:
            words, tests, derived, sources = computation._evmstate_words = _arguments(feedback, computation)
        if compares and computation.code.program_counter - 1 in tests:
            context = computation.state.execution_context
            compared(feedback, words, a, b, context.timestamp, context.block_number, equal, derived)
        elif not sources:
            return
        elif derives and (a in sources or b in sources or (derived and (a in derived or b in derived))):
            derive(derived, sources, opcode, a, b, result)
        elif compares and a == b and feedback.everywhere and a in words and len(feedback.matched) < MAX_OPERANDS:
            feedback.matched.append(a)

    return hook


# the opcodes set_feedback() hooks (pyevm/backend.py)
HOOKED = (*COMPARISONS, *ARITHMETIC)


def compared(
    feedback: Feedback, words: frozenset[int], a: int, b: int, timestamp: int, number: int, equal: bool,
    derived: Derived | None = None,
) -> None:
    """A comparison of a and b: record the other side of an argument, of the block's time or number; and, for a side
    derived from an argument (derive()), the argument that would meet the other side; for a side derived from the
    block's time, the time at which it would.

    The tracer (evm/revm/tracer.py) records through this too, so that both backends record alike.
    """
    operands = feedback.operands
    if (words or feedback.earlier) and len(operands) < MAX_OPERANDS:
        if a in words:
            if b not in words:
                operands.append(b)
                if equal:
                    feedback.equalities.append((a, b))
                else:
                    feedback.bound = (a, b)
                if feedback.everywhere:
                    feedback.sides.append((a, b))
            elif a == b and len(feedback.matched) < MAX_OPERANDS:
                feedback.matched.append(a)
        elif b in words:
            operands.append(a)
            if equal:
                feedback.equalities.append((b, a))
            else:
                feedback.bound = (b, a)
            if feedback.everywhere:
                feedback.sides.append((b, a))
        elif equal and (a in feedback.earlier) != (b in feedback.earlier):
            # tested for equality with an argument of an earlier call, stored (a guess settled later); not an order,
            # which every stored amount meets (a balance against what is taken from it)
            other = b if a in feedback.earlier else a
            feedback.recalled = True
            if other not in operands:  # the same side met again (a sum's overflow check) is recorded once
                operands.append(other)
    if derived and len(operands) < MAX_OPERANDS:
        if a in derived:
            if b not in derived:
                _solved(feedback, derived[a], b, equal, timestamp, words)
        elif b in derived:
            _solved(feedback, derived[b], a, equal, timestamp, words)
    for clock, known, sides in (
        (timestamp, feedback.times, feedback.time_sides),
        (number, feedback.blocks, feedback.block_sides),
    ):
        if a == clock or b == clock:
            other = b if a == clock else a
            if other != clock and len(known) < MAX_OPERANDS:
                known.append(other)
            if feedback.everywhere and len(sides) < MAX_OPERANDS:
                sides.append((clock, other))  # the clock at the time compared too: the shrinker's line


def _solved(
    feedback: Feedback, origin: tuple[int, tuple[tuple[int, int], ...]], other: int, equal: bool, timestamp: int,
    words: frozenset[int],
) -> None:
    """A side derived from an argument compared with other: record the argument that comes to other in other's place.
    A side derived from the block's time (elapsed time, `block.timestamp - start`): record the time at which it comes to
    other, as a time the contract waits for."""
    argument, steps = origin
    if other == argument or (other == steps[-1][1] and not equal):  # the operation's own overflow check (`x + c < x`,
        return  # `c - x > c`), never an equality: `3 * x + 7 == 7` is met by x = 0
    value = solve(steps, other)
    if value is None or value == argument:
        return
    if argument == timestamp:
        if value > timestamp and len(feedback.times) < MAX_OPERANDS:
            feedback.times.append(value)
            if feedback.everywhere:
                feedback.time_sides.append((timestamp, value))
        if argument not in words:  # else an argument that is the time now (a deadline of now): both
            return
    feedback.operands.append(value)
    if equal:
        feedback.equalities.append((argument, value))
    else:
        feedback.bound = (argument, value)
    if feedback.everywhere:
        feedback.sides.append((argument, value))


_Frame = tuple[frozenset[int], frozenset[int], Derived, frozenset[int]]  # _arguments(): what a frame records with
_NOTHING: _Frame = (frozenset(), frozenset(), {}, frozenset())
# a block time below this is not followed through arithmetic (clock_source()): a clock set near 0 meets its own value in
# the offsets and lengths of memory arithmetic
MIN_CLOCK = 2**24


def clock_source(words: frozenset[int], timestamp: int) -> frozenset[int]:
    """What a frame's values are derived from: its arguments and the block's time, so that an elapsed time
    (`block.timestamp - start`) compared with a duration gives the time at which it meets it (derive(), _solved())."""
    return words | {timestamp} if timestamp >= MIN_CLOCK else words


def _arguments(feedback: Feedback, computation: Any) -> _Frame:
    """The words of a frame's calldata after the selector (its arguments), the pcs of its code's comparisons that are
    recorded, the values it derives from its arguments and the block's time (empty, to fill), and what they are derived
    from (clock_source()); nothing when the frame is not recorded."""
    if not feedback.active:
        return _NOTHING
    msg = computation.msg
    words = argument_words(msg.data, msg.value, feedback.everywhere)
    return words, recorded(msg.code), {}, clock_source(words, computation.state.execution_context.timestamp)


# the arguments of a run's calls Feedback.earlier keeps, at most
EARLIER = 4096


def remember(feedback: Feedback, to: bytes | None, data: bytes, value: int) -> None:
    """Keep a recorded call's arguments (a transaction's, or a call's that is not a view; not a deployment's code) for
    the comparisons of later calls in the run (Feedback.earlier), while searching: both backends, before they run it."""
    if to is not None and not feedback.everywhere and len(feedback.earlier) < EARLIER:
        feedback.earlier.update(argument_words(data, value, False))


def argument_words(data: bytes, value: int, everywhere: bool) -> frozenset[int]:
    """The words of a frame's calldata after the selector; with everywhere on (the shrinker's replays), the value it was
    sent too."""
    words = {int.from_bytes(data[i : i + 32], "big") for i in range(4, len(data) - 31, 32)}
    if everywhere and value:
        words.add(value)
    return frozenset(words)


_recorded: Bounded[bytes, frozenset[int]] = Bounded(1025)


def recorded(code: bytes) -> frozenset[int]:
    """The pcs of the comparisons (COMPARISONS) whose operands are recorded (remembered per code): every EQ, LT, GT, SLT
    and SGT, and the XOR and SUB whose result is tested: an ISZERO takes it, or a JUMPI (after the push of its
    destination), or it is carried to a join (the push of a destination and a JUMP: the `and` of vyper's legacy code).
    An XOR or SUB whose result goes on as a number is arithmetic: recording its operands would flood the dictionary."""
    found = _recorded.get(code)
    if found is not None:
        return found
    ops = []  # (pc, opcode), push data skipped
    i, n = 0, len(code)
    while i < n:
        op = code[i]
        ops.append((i, op))
        i += op - PUSH1 + 2 if PUSH1 <= op <= PUSH32 else 1
    pcs = set()
    for k, (pc, op) in enumerate(ops):
        if op not in COMPARISONS:
            continue
        if op not in _ARITHMETIC_TOO:
            pcs.add(pc)
            continue
        j = k + 1
        if j < len(ops) and ops[j][1] == opcode_values.ISZERO:
            pcs.add(pc)
            continue
        pushed = j < len(ops) and PUSH1 <= ops[j][1] <= PUSH32
        if pushed:
            j += 1
        if j < len(ops) and (ops[j][1] == opcode_values.JUMPI or (pushed and ops[j][1] == opcode_values.JUMP)):
            pcs.add(pc)
    found = _recorded[code] = frozenset(pcs)
    return found


def computation_class(base: type[ComputationAPI], clock: Clock) -> tuple[type, dict[int, Any]]:
    """The fork's computation with JUMP and JUMPI hooked, and its opcode table, its own (the backend installs more hooks
    in it).

    py-evm 0.12 takes any message whose sender is the transaction's origin for the outermost one
    (is_origin_computation): a CREATE run by the sender's own code (a contract sending, as
    {"from": contract} allows) was charged the initcode cost twice and forgot the contracts the
    transaction had created (EIP-6780). The outermost message is the one at depth 0.
    """
    opcodes: dict[int, Any] = dict(base.opcodes)
    opcodes[opcode_values.JUMP] = jump(opcodes[opcode_values.JUMP].gas_cost, clock)
    opcodes[opcode_values.JUMPI] = jumpi(opcodes[opcode_values.JUMPI].gas_cost, clock, None)
    return type(
        f"Evmstate{base.__name__}", (base,), {"opcodes": opcodes, "is_origin_computation": property(_outermost)}
    ), opcodes


def _outermost(computation: Any) -> bool:
    return computation.msg.depth == 0




def frame_of(computation: Any) -> Frame:
    msg = computation.msg
    return Frame(
        address=None if msg.is_create else msg.code_address,
        pc=max(computation.code.program_counter - 1, 0),
        jump_pc=getattr(computation, "_evmstate_jump", None),
        code=msg.code,
        is_create=msg.is_create,
    )

