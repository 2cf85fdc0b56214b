"""Time between steps: before a step's call the chain may move on, drawn like any other choice.

Contracts with deadlines, cliffs, auctions and timelocks need the clock to move between calls.
Before each step a run draws whether the step waits (one step in WAITS does) and, when it
does, how many seconds and how many blocks pass, each up to [fuzz] max_time_delay and
max_block_delay. Every one of these choices shrinks toward no delay, so a failing program
keeps only the waits it needs, each shrunk toward the least that still fails. A program shows
a wait as the chain.sleep(...) and chain.mine(...) lines that replay it, before the step's call.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from hypothesis import strategies as st

from ..errors import FailureRecordError

Delay = tuple[int, int]  # (seconds, blocks)
NO_DELAY: Delay = (0, 0)
# one step in WAITS waits: most calls still follow each other at once, as most transactions
# that matter to each other do, and a run of 50 steps still moves the clock about 12 times
WAITS = 4


@functools.lru_cache(maxsize=64)
def _choices(max_seconds: int, max_blocks: int) -> tuple[Any, Any, Any]:
    gate = st.integers(min_value=0, max_value=WAITS - 1)  # shrinks toward 0: no wait
    seconds = st.integers(min_value=0, max_value=max_seconds) if max_seconds else None
    blocks = st.integers(min_value=0, max_value=max_blocks) if max_blocks else None
    return gate, seconds, blocks


def draw_delay(draw: Callable[[Any], Any], max_seconds: int, max_blocks: int) -> Delay:
    """Whether this step waits and, if it does, for how many seconds and blocks."""
    gate, seconds, blocks = _choices(max_seconds, max_blocks)
    if draw(gate) < WAITS - 1:
        return NO_DELAY
    return (draw(seconds) if seconds is not None else 0, draw(blocks) if blocks is not None else 0)


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
            raise FailureRecordError(f"cannot read the recorded step's {key} = {value!r}: a delay is a whole number, 0 or more")
        values.append(value)
    return values[0], values[1]


def add(a: Delay, b: Delay) -> Delay:
    return a[0] + b[0], a[1] + b[1]


def scale(delay: Delay, factor: int) -> Delay:
    return delay[0] * factor, delay[1] * factor
