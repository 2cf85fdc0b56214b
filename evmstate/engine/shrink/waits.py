"""The shrinker's waits pass: every wait made longer where that lets steps go, then each wait made as short as still
fails (none, a time the contract compared the clock with, one second before it or one past it, else bisected). shrinker
is the Shrinker (passes.py)."""

from __future__ import annotations

from typing import Any, Callable

from .. import delays
from . import compared
from .edits import shorten_waits

# how many times longer every wait is made when looking for steps a longer wait makes unneeded
LONGER_WAITS = (2, 16)


def waits(shrinker: Any, singles: Callable[[], bool]) -> bool:
    """The waits pass, singles() the pass that deletes each step; whether it changed the program."""
    changed = False
    # A wait left as drawn (or as short as fails with the steps around it) can leave steps
    # needed only because the wait is short (ten rewards funded where one would do, had
    # the clock run longer). With every wait longer, the same deletions are tried again;
    # the bisection below takes the waits back down.
    for factor in LONGER_WAITS:
        if all(s.delay == delays.NO_DELAY for s in shrinker.best):
            break
        longer = shrinker.attempt([s.with_delay(delays.scale(s.delay, factor)) for s in shrinker.best])
        if longer is None:
            continue
        saved = shrinker.best, shrinker.found
        shrinker.best, shrinker.found = longer.steps, longer
        singles()
        if len(shrinker.best) < len(saved[0]):
            changed = True
        else:
            shrinker.best, shrinker.found = saved  # nothing went: the waits stay as they were
    for index in range(len(shrinker.best)):
        if index < len(shrinker.best):
            changed = shorten_wait(shrinker, index) or changed
    return changed


def shorten_wait(shrinker: Any, index: int) -> bool:
    """Step index's wait made none, else each of its seconds and blocks set to reach a time the contract compared
    the clock with (compared.py) where that is the least that fails, else bisected (edits.shorten_waits); whether
    it changed."""
    if shrinker.best[index].delay == delays.NO_DELAY:
        return False
    if shrinker.shorter([s.with_delay(delays.NO_DELAY) if j == index else s for j, s in enumerate(shrinker.best)]):
        return True
    changed, lines = False, set()
    operands = shrinker.operands
    for which in (0, 1) if operands is not None else ():
        if not shrinker.best[index].delay[which] or operands is None:
            continue
        at, shorter_ones = compared.wait_candidates(shrinker.best, index, operands(shrinker.best, index), which)
        tried = [c[index].delay[which] for _, c in shorter_ones]  # shortest first
        kept = shrinker.first_shorter(shorter_ones) is not None
        changed = changed or kept
        if kept or at:
            delay = shrinker.best[index].delay
            if not delay[which]:
                # set to none (the time compared was the one before the wait): nothing left to take off
                lines.add(which)
                continue
            # those tried before the one kept (all of them, when none was) did not fail: a second less among them
            # (the second before the time compared) is known not to
            passed = tried if not kept else tried[: tried.index(delay[which])] if delay[which] in tried else []
            if delay[which] - 1 in passed:
                lines.add(which)
                continue
            less = (delay[0] - 1, delay[1]) if which == 0 else (delay[0], delay[1] - 1)
            if shrinker.shorter([s.with_delay(less) if j == index else s for j, s in enumerate(shrinker.best)]):
                changed = True
            else:
                # a second (a block) less does not fail: the time the contract compared is the line
                lines.add(which)
    rest = tuple(which for which in (0, 1) if which not in lines)
    shorter = shorten_waits(shrinker.best, shrinker.attempt, (index,), rest) if rest else None
    if shorter is not None and shorter.steps != shrinker.best:
        shrinker.keep(shorter)
        changed = True
    return changed
