"""Time between steps: before a step's call the chain may move on, drawn like any other choice.

Contracts with deadlines, cliffs, auctions and timelocks need the clock to move between calls.
Before each step a run draws whether the step waits (one step in WAITS does) and, when it
does, how many seconds and how many blocks pass. Each is drawn on a log scale up to [fuzz]
max_time_delay and max_block_delay (an octave, then a value in it), so that a minute, a day, a
month and a year are each a common wait, or, when the contract has shown times it knows (a
timestamp it stored, a value it compared block.timestamp or block.number with, the time at which
an elapsed time it compared, block.timestamp - start, meets the other side: the search's
Dictionary gathers them), it jumps to one of those, one second (one block) past it, or one before
it: a deadline checked a second early where the contract never compares the clock with that second
(a lock's elapsed time that counts the second of the lock itself) is met only on the second before
the end it stored. Every choice shrinks toward no delay, then toward a shorter one (a jump toward
the nearest known time, then toward the time itself), so a failing program keeps only the waits it
needs, each shrunk toward the least that still fails. A program shows a wait as the
chain.sleep(...) and chain.mine(...) lines that replay it, before the step's call.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from hypothesis import strategies as st

from ..errors import FailureRecordError

Delay = tuple[int, int]  # (seconds, blocks)
NO_DELAY: Delay = (0, 0)
# one step in WAITS waits: most calls still follow each other at once, as most transactions
# that matter to each other do, and a run of 50 steps still moves the clock about 12 times
WAITS = 4
# a wait jumps to a time the contract knows (when it knows one) this many times in JUMPS
JUMPS = 2


@functools.lru_cache(maxsize=64)
def _octaves(limit: int) -> Any:
    """Which octave a wait falls in: 0 (none), then 1 .. bits of limit (shrinks toward none)."""
    return st.integers(min_value=0, max_value=limit.bit_length())


@functools.lru_cache(maxsize=256)
def _within(low: int, high: int) -> Any:
    return st.integers(min_value=low, max_value=high)


_GATE = st.integers(min_value=0, max_value=WAITS - 1)  # shrinks toward 0: no wait
_JUMP = st.integers(min_value=0, max_value=JUMPS - 1)  # shrinks toward 0: a drawn wait
# where a jump lands, by the choice drawn (which shrinks toward 0): on the known time itself, one
# past it, or one before it
SIDES = (0, 1, -1)
_SIDE = st.integers(min_value=0, max_value=len(SIDES) - 1)


def draw_wait(draw: Callable[[Any], Any], limit: int, now: int, known: Sequence[int] = ()) -> int:
    """One wait of up to limit (seconds or blocks) from now: log-scale, or to a known time ahead, one past it or one
    before it (where that is still ahead of now: a wait of one lands on the time itself)."""
    ahead = sorted({t - now for t in known if now < t <= now + limit})
    if ahead and draw(_JUMP) == JUMPS - 1:
        index = draw(_within(0, len(ahead) - 1))  # shrinks toward the nearest
        return min(max(ahead[index] + SIDES[draw(_SIDE)], 1), limit)
    octave = draw(_octaves(limit))
    if octave == 0:
        return 0
    low = 1 << (octave - 1)
    return draw(_within(low, min(2 * low - 1, limit)))


def draw_delay(
    draw: Callable[[Any], Any], max_seconds: int, max_blocks: int, clock: tuple[int, int] = (0, 0),
    known: tuple[Sequence[int], Sequence[int]] = ((), ()),
) -> Delay:
    """Whether this step waits and, if it does, for how many seconds and blocks.

    clock: the chain's (time, block number) now; known: the times and block numbers the contract knows.
    """
    if draw(_GATE) < WAITS - 1:
        return NO_DELAY
    seconds = draw_wait(draw, max_seconds, clock[0], known[0]) if max_seconds else 0
    blocks = draw_wait(draw, max_blocks, clock[1], known[1]) if max_blocks else 0
    return seconds, blocks


def wait(backend: Any, delay: Delay) -> None:
    """Let the time pass on the chain: the clock first, then the blocks."""
    seconds, blocks = delay
    if seconds:
        backend.sleep(seconds)
    if blocks:
        backend.mine(blocks)


def delay_lines(delay: Delay) -> list[str]:
    """The lines that replay a delay in a printed program."""
    seconds, blocks = delay
    return ([f"chain.sleep({seconds})"] if seconds else []) + ([f"chain.mine({blocks})"] if blocks else [])


def to_data(delay: Delay) -> dict[str, int]:
    """A step record's delay keys: only those that are not 0, so records without delays stay as they were."""
    seconds, blocks = delay
    return {**({"sleep": seconds} if seconds else {}), **({"mine": blocks} if blocks else {})}


def of_record(step: dict[str, Any]) -> Delay:
    """The delay a recorded step waited before its call; none in records made before delays were drawn."""
    values = []
    for key in ("sleep", "mine"):
        value = step.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise FailureRecordError(
                f"cannot read the recorded step's {key} = {value!r}: a delay is a whole number, 0 or more"
            )
        values.append(value)
    return values[0], values[1]


def add(a: Delay, b: Delay) -> Delay:
    return a[0] + b[0], a[1] + b[1]


def scale(delay: Delay, factor: int) -> Delay:
    return delay[0] * factor, delay[1] * factor
