"""Values a frame computes from its arguments by simple arithmetic, followed back to the argument.

The comparison hooks (opcodes.py) note each value a frame derives from one of its arguments, or
from the block's time, by `x + c`, `x * c`, `x - c`, `c - x`, `x // c` and the shifts (derive());
where such a value meets another in a comparison, the argument that would make it that other
value is solved for (solve()); where it is tested for zero, the largest argument that keeps it
zero (solve_top()). The revm tracer (evm/revm/ops.py) follows the same arithmetic through these.
"""

from __future__ import annotations

from typing import Callable

from eth.vm import opcode_values

WORD = 2**256
MASK = WORD - 1
# values a frame derives from its arguments at most, and the operations one goes through (derive())
MAX_DERIVED = 64
MAX_STEPS = 4

ADD, MUL, SUB, DIV = opcode_values.ADD, opcode_values.MUL, opcode_values.SUB, opcode_values.DIV
SHL, SHR = opcode_values.SHL, opcode_values.SHR
# SUB with the argument on the right (c - x), as a step of a derived value
RSUB = -SUB
# the arithmetic an argument is followed through (SUB is hooked as a comparison, and derives where it is not one)
ARITHMETIC: dict[int, tuple[str, Callable[[int, int], int]]] = {
    ADD: ("ADD", lambda a, b: (a + b) & MASK),
    MUL: ("MUL", lambda a, b: (a * b) & MASK),
    DIV: ("DIV", lambda a, b: a // b if b else 0),
    # the shift on top of the stack, then the value
    SHL: ("SHL", lambda a, b: (b << a) & MASK if a < 256 else 0),
    SHR: ("SHR", lambda a, b: b >> a if a < 256 else 0),
}

Derived = dict[int, tuple[int, tuple[tuple[int, int], ...]]]


def derive(derived: Derived, words: frozenset[int], op: int, a: int, b: int, result: int) -> None:
    """Note that result came from an argument (a word of words, or a value derived from one) by op with a value
    that is neither: derived maps it to (the argument, its steps: (op, the other value) each). a is the operand on
    top of the stack. words may hold the block's time beside the arguments (clock_source()): an elapsed time is
    derived from it as an argument's multiple is.

    Only `x + c`, `x * c`, `x - c`, `c - x`, `x // c` and the shifts of x by c are followed: what vyper emits for
    `* k + c`, `// k`, `+ c` (a division by a power of two as SHR). A result that is 0, an argument itself or known
    already is not noted, nor more than MAX_DERIVED per frame: a frame whose arguments are small numbers (an offset,
    a length) meets them in memory arithmetic, and each noted value costs a look-up at every comparison after it.
    """
    if not result or result in words or result in derived or len(derived) >= MAX_DERIVED:
        return
    a_known = a in words or a in derived
    b_known = b in words or b in derived
    if a_known == b_known:
        return
    if op == SHL or op == SHR:
        if a_known or not 0 < a < 256:  # the value shifted must be the argument's, by a fixed amount
            return
        x, step = b, (op, a)
    elif op == DIV:
        if b_known or b < 2:  # x // c
            return
        x, step = a, (op, b)
    elif op == SUB:
        x, step = (a, (SUB, b)) if a_known else (b, (RSUB, a))
    else:  # ADD, MUL: either side
        x, c = (a, b) if a_known else (b, a)
        if op == MUL and c < 2:
            return
        step = (op, c)
    if x in words:
        derived[result] = (x, (step,))
    else:
        argument, steps = derived[x]
        if len(steps) < MAX_STEPS:
            derived[result] = (argument, steps + (step,))


def solve(steps: tuple[tuple[int, int], ...], target: int, top: bool = False) -> int | None:
    """The argument whose steps (derive()) come to target, or the nearest below it (an inexact division); None when no
    word does.

    top: the largest such argument instead (solve_top()), and none that only a wrap-around gives."""
    t = target
    for op, c in reversed(steps):
        if op == ADD:
            t -= c
        elif op == SUB:
            t += c
        elif op == RSUB:
            t = c - t
        elif op == MUL:
            t //= c
        elif op == DIV:
            t = t * c + (c - 1 if top else 0)
        elif op == SHL:
            t >>= c
        else:  # SHR
            t = (t << c) | ((1 << c) - 1 if top else 0)
        if not top and op in (ADD, SUB, RSUB):
            t &= MASK  # wrapped around, as the EVM's unchecked arithmetic does
        if not 0 <= t <= MASK:  # past the word; for top, also a wrap-around, which vyper's checked arithmetic refuses
            return None
    return t


def solve_top(steps: tuple[tuple[int, int], ...], target: int) -> int | None:
    """The largest argument whose steps (derive()) come to target: through a division, the one with the largest
    remainder (`x * a // b` is 0 for every x up to (b - 1) // a); None when no word does, or only one that wraps
    around."""
    return solve(steps, target, top=True)
