"""py-evm's JUMP and JUMPI, hooked: each frame's last taken jump, the per-call CPU time limit, coverage.

JUMP and JUMPI are replaced by hooked copies in the backend's own computation class: each frame
remembers its last taken jump (the only clue to which check sent it to vyper's shared REVERT),
and every few hundred jumps the call's CPU time is checked against its limit. With coverage on,
the same hooks record every branch taken or not and every jump destination. With feedback on
(base.Feedback), they count how often each branch went each way, and the comparisons (EQ, LT,
GT, SLT, SGT, and the XOR and SUB vyper writes for `==` and `!=`) are hooked too: when one
whose result feeds a branch (a JUMPI takes it, after an ISZERO or the push of the destination)
has a word of the frame's calldata, an argument, on one side, the other side is recorded
(comparison operand logging).
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


def jumpi(gas: int, clock: Clock, recorder: JumpRecorder | None, hits: Coverage | None = None, feedback: Feedback | None = None) -> Callable[..., None]:
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
                seen = _frame(hits, feedback, computation)
            if condition:
                computation._evmstate_jump = pc
                code.program_counter = dest
                if code.peek() != JUMPDEST:
                    raise InvalidJumpDestination("Invalid Jump Destination")
                if not code.is_valid_opcode(dest):
                    raise InvalidInstruction("Jump resulted in invalid instruction")
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
            if code.peek() != JUMPDEST:
                raise InvalidJumpDestination("Invalid Jump Destination")
            if not code.is_valid_opcode(dest):
                raise InvalidInstruction("Jump resulted in invalid instruction")
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


WORD = 2**256
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
    # vyper tests `a == b` as XOR feeding a JUMPI (SUB in other code), `a != b` the same under ISZERO
    opcode_values.XOR: ("XOR", lambda a, b: a ^ b),
    opcode_values.SUB: ("SUB", lambda a, b: (a - b) % WORD),
}


# the comparisons that test equality: input-to-state replacement tries the other side in the argument's place
EQUALITIES = frozenset({opcode_values.EQ, opcode_values.XOR, opcode_values.SUB})


def comparison(opcode: int, gas: int, feedback: Feedback) -> Callable[..., None]:
    """A comparison (COMPARISONS) that records its operands for feedback when its result feeds a branch."""
    mnemonic, compute = COMPARISONS[opcode]
    equal = opcode in EQUALITIES

    def compare(computation: Any) -> None:
        computation.consume_gas(gas, mnemonic)
        a, b = computation.stack_pop_ints(2)
        computation.stack_push_int(compute(a, b))
        try:
            words, feeds = computation._evmstate_words
        except AttributeError:
            words, feeds = computation._evmstate_words = _arguments(feedback, computation.msg)
        if computation.code.program_counter - 1 in feeds:
            context = computation.state.execution_context
            compared(feedback, words, a, b, context.timestamp, context.block_number, equal)
        elif a == b and feedback.everywhere and a in words and len(feedback.matched) < MAX_OPERANDS:
            feedback.matched.append(a)

    return compare


def compared(feedback: Feedback, words: frozenset[int], a: int, b: int, timestamp: int, number: int, equal: bool) -> None:
    """A comparison of a and b that feeds a branch: record the other side of an argument, of the block's time or number.

    The tracer (evm/revm/tracer.py) records through this too, so that both backends record alike.
    """
    if words:
        operands = feedback.operands
        if len(operands) < MAX_OPERANDS:
            if a in words:
                if b not in words:
                    operands.append(b)
                    if equal:
                        feedback.equalities.append((a, b))
                    if feedback.everywhere:
                        feedback.sides.append((a, b))
                elif a == b and len(feedback.matched) < MAX_OPERANDS:
                    feedback.matched.append(a)
            elif b in words:
                operands.append(a)
                if equal:
                    feedback.equalities.append((b, a))
                if feedback.everywhere:
                    feedback.sides.append((b, a))
    for clock, known, sides in ((timestamp, feedback.times, feedback.time_sides), (number, feedback.blocks, feedback.block_sides)):
        if a == clock or b == clock:
            other = b if a == clock else a
            if other != clock and len(known) < MAX_OPERANDS:
                known.append(other)
            if feedback.everywhere and len(sides) < MAX_OPERANDS:
                sides.append((clock, other))  # the clock at the time compared too: the shrinker's line


_NOTHING: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())


def _arguments(feedback: Feedback, msg: Any) -> tuple[frozenset[int], frozenset[int]]:
    """The words of a frame's calldata after the selector (its arguments), and the pcs of its
    code's comparisons that feed a branch; nothing when the frame is not recorded."""
    if not feedback.active:
        return _NOTHING
    return argument_words(msg.data, msg.value, feedback.everywhere), feeding(msg.code)


def argument_words(data: bytes, value: int, everywhere: bool) -> frozenset[int]:
    """The words of a frame's calldata after the selector; with everywhere on (the shrinker's replays), the value it was
    sent too."""
    words = {int.from_bytes(data[i : i + 32], "big") for i in range(4, len(data) - 31, 32)}
    if everywhere and value:
        words.add(value)
    return frozenset(words)


_feeding: Bounded[bytes, frozenset[int]] = Bounded(1025)


def feeding(code: bytes) -> frozenset[int]:
    """The pcs of the comparisons (COMPARISONS) whose result a JUMPI takes: next, or after ISZEROs
    and the push of the destination (remembered per code)."""
    found = _feeding.get(code)
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
        j = k + 1
        while j < len(ops) and ops[j][1] == opcode_values.ISZERO:
            j += 1
        if j < len(ops) and PUSH1 <= ops[j][1] <= PUSH32:
            j += 1
        if j < len(ops) and ops[j][1] == opcode_values.JUMPI:
            pcs.add(pc)
    found = _feeding[code] = frozenset(pcs)
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
    return type(f"Evmstate{base.__name__}", (base,), {"opcodes": opcodes, "is_origin_computation": property(_outermost)}), opcodes


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

