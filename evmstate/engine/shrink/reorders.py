"""A move that changes the order of a program's steps while it lowers numbers (the order pass, passes.Shrinker._order,
only swaps neighbours into Hypothesis's order, and keeps the numbers).

later: a step moved later, past one or more steps (never past the last), while every amount of the steps it moved past
is 1. A strategy's gain before the vault's deposit and lending of 3 (the gain must be small beside what is lent for a
share to round the wrong way) fails as the gain after a deposit and lending of 1 does; lowering the 3s with the gain
first passes, and moving the gain alone leaves the program as large (and out of Hypothesis's order, so the order pass
moves it back): the two together make it smaller. While the program is short (LATER_UP_TO): a candidate for each step
and each later step it may move past, each one replay.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..recorded import RecordedStep
from . import moves

# programs of at most this many steps are tried with a step moved later while the amounts it moved past are 1
LATER_UP_TO = 8


def later(shrinker: Any) -> bool:
    """Steps moved later while the amounts they move past are 1 (moved_later()); whether any was kept."""
    return moves.while_shorter(shrinker, LATER_UP_TO, moved_later)


def moved_later(shrinker: Any) -> Iterator[list[RecordedStep]]:
    """Each step moved past the next one, two, ... (none fixed, none using a value it produced, not the last), where
    the amounts of those it moved past are 1 and one at least was more."""
    best = shrinker.best
    for i, step in enumerate(best):
        if step.rule in shrinker.fixed:
            continue
        results = set(step.results)
        for j in range(i + 1, len(best) - 1):
            if best[j].rule in shrinker.fixed or best[j].refs() & results:
                break
            passed = best[i + 1 : j + 1]
            lowered = [_amounts_at_one(shrinker, s) for s in passed]
            if lowered != passed:
                yield [*best[:i], *lowered, step, *best[j + 1 :]]


def _amounts_at_one(shrinker: Any, step: RecordedStep) -> RecordedStep:
    changes = {
        name: 1 for name, value in step.arguments.items()
        if moves.is_amount(shrinker, step, name) and value > 1 and shrinker.domains[(step.rule, name)].contains(1)
    }
    return step.with_arguments(changes) if changes else step
