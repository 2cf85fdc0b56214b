"""Values set from what the contract compared them with: the moves that cost a replay or two where bisection costs dozens.

A replay with the comparisons recorded (Trials.operands: Feedback.everywhere) tells, for every
argument the contract compared (calldata, or the value a call sends), what it was compared with;
and for the block's time and number, what time the contract compared the clock with, and when.
The least value that fails is often one of those: an amount set to the balance or the stored
value it was compared with, a code set to the one it must equal, a wait set so that the clock
reaches the time the contract compared it with (an auction's end), or one past it. So before a
number is bisected (and long before the scan tries numbers one by one) these are tried, smallest
first; a number at such a line then costs one replay to confirm (the next one down does not fail).
"""

from __future__ import annotations

from typing import Any

from ...domains import IntDomain
from ..recorded import RecordedStep

# values a move tries for one argument or wait, at most
TRIED = 6


def number_values(met: Any, domain: IntDomain, value: int) -> list[int]:
    """The values value was compared with, or one either side, no farther from the domain's target than value: nearest first."""
    word = value % 2**256
    target = domain.target
    found: set[int] = set()
    for a, other in met.sides:
        if a != word:
            continue
        for v in (other - 1, other, other + 1):
            v = v if v < 2**255 or domain.lo >= 0 else v - 2**256  # a signed argument's word
            if domain.contains(v) and abs(v - target) <= abs(value - target):
                found.add(v)
    return sorted(found, key=lambda v: abs(v - target))[:TRIED]


def clock_values(met: Any, value: int, which: int) -> list[int]:
    """What value (a wait, or a number a rule waits by) becomes when the clock it moves lands on a time the contract compared it
    with (which: 0 the time, 1 the block number), or one past it: no longer than value, shortest first."""
    found: set[int] = set()
    for clock, other in (met.times if which == 0 else met.blocks):
        behind = clock - other  # how far past the compared time the clock was
        for v in (value - behind, value - behind + 1):
            if 0 <= v <= value:
                found.add(v)
    return sorted(found)[:TRIED]


def wait_candidates(best: list[RecordedStep], index: int, met: Any, which: int) -> tuple[bool, list[tuple[bool, list[RecordedStep]]]]:
    """(whether step index's wait (which: 0 its seconds, 1 its blocks) already lands on a time compared, the program with it set
    shorter to land on one)."""
    delay = best[index].delay
    at, shorter = False, []
    for v in clock_values(met, delay[which], which) if delay[which] else ():
        if v == delay[which]:
            at = True
            continue
        set_to = (v, delay[1]) if which == 0 else (delay[0], v)
        shorter.append((True, [s.with_delay(set_to) if j == index else s for j, s in enumerate(best)]))
    return at, shorter


def number_candidates(best: list[RecordedStep], index: int, name: str, value: int, domain: IntDomain, met: Any) -> tuple[bool, list[tuple[bool, list[RecordedStep]]]]:
    """(whether the number is one it was compared with, or a wait landing on a compared time; the program with it set to a
    nearer one of those)."""
    at, shorter, seen = False, [], set()
    for v in [*number_values(met, domain, value), *clock_values(met, value, 0)]:
        if v == value:
            at = True
        elif v not in seen and domain.contains(v):
            seen.add(v)
            shorter.append((True, [*best[:index], best[index].with_arguments({name: v}), *best[index + 1 :]]))
    return at, shorter
