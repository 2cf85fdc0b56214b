"""py-evm's JUMP and JUMPI, hooked: each frame's last taken jump, the per-call CPU time limit, coverage.

JUMP and JUMPI are replaced by hooked copies in the backend's own computation class: each frame
remembers its last taken jump (the only clue to which check sent it to vyper's shared REVERT),
and every few hundred jumps the call's CPU time is checked against its limit. With coverage on,
the same hooks record every branch taken or not and every jump destination.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

from eth.exceptions import InvalidInstruction, InvalidJumpDestination
from eth.vm import opcode_values
from eth.vm.opcode_values import JUMPDEST

from ..base import INITCODE, Coverage, Frame, JumpRecorder

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


def jump(gas: int, clock: Clock, hits: Coverage | None = None) -> Callable[..., None]:
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


def jumpi(gas: int, clock: Clock, recorder: JumpRecorder | None, hits: Coverage | None = None) -> Callable[..., None]:
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


def computation_class(base: type, clock: Clock) -> type:
    """The fork's computation with JUMP and JUMPI hooked; its opcode table is its own."""
    opcodes = dict(base.opcodes)
    opcodes[opcode_values.JUMP] = jump(base.opcodes[opcode_values.JUMP].gas_cost, clock)
    opcodes[opcode_values.JUMPI] = jumpi(base.opcodes[opcode_values.JUMPI].gas_cost, clock, None)
    return type(f"Evmstate{base.__name__}", (base,), {"opcodes": opcodes})




def frame_of(computation: Any) -> Frame:
    msg = computation.msg
    return Frame(
        address=None if msg.is_create else msg.code_address,
        pc=max(computation.code.program_counter - 1, 0),
        jump_pc=getattr(computation, "_evmstate_jump", None),
        code=msg.code,
        is_create=msg.is_create,
    )

