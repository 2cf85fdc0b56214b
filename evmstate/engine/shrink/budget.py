"""The shrink budget: work counted alike on any machine under any load, and the stops on the clock.

Shrinking is measured in replayed steps. A candidate costs the steps it does not share with the
best program (the changed suffix, which no checkpoint saves) and one for its start, whoever
replays it (this process or a helper) and whether it was replayed before; a replay that looks
for the comparisons a program meets costs its whole length. So a seed shrinks to the same
program on a quiet machine and a busy one, with helpers or without.

[fuzz] shrink_time (a machine's shrink_time, `evmstate shrink --time`) buys STEPS_PER_SECOND
steps a second: about as many as py-evm replays in that time on a quiet machine (benchmarks/shrink.py
--passes prints each case's shrinking in CPU time and in work). Two clocks stop shrinking too: the caller's deadline
(the end of a
campaign's time), and a safety stop at SAFETY times shrink_time of wall time (SAFETY_AT_LEAST at
least), for a machine whose steps are far slower than most; the report says which of them ended
shrinking.
"""

from __future__ import annotations

import enum
import time
from typing import Sequence

# replayed steps a second of shrink_time buys (measured on the benchmarks: see this module's docstring)
STEPS_PER_SECOND = 1000
# the wall-clock safety stop, in multiples of shrink_time, and at least SAFETY_AT_LEAST seconds (a small budget on a
# busy machine must not meet it: a tenth of a second of work can take seconds of wall time at a load of 20)
SAFETY = 15
SAFETY_AT_LEAST = 120.0
# the share of the budget the scan (values tried one by one from the bottom) may spend, at most; with no
# limit on shrinking, the share of the default budget (20 s)
SCAN_SHARE = 0.25
DEFAULT_SECONDS = 20.0


class StopReason(enum.Enum):
    """Why shrinking ended before its passes ran out of moves."""

    BUDGET = "budget"  # the shrink budget, in work (shrink_time)
    WALL_CLOCK = "wall clock"  # the safety stop on the clock (SAFETY times shrink_time)
    DEADLINE = "deadline"  # the caller's time ran out (the end of a campaign)
    INTERRUPTED = "interrupted"  # Ctrl-C (or a signal taken as one), with a failing program in hand


class OutOfBudget(Exception):
    """Raised inside the shrinker when its budget is spent or a clock stops it: the best program so far stands."""

    def __init__(self, reason: StopReason = StopReason.BUDGET) -> None:
        super().__init__(reason.value)
        self.reason = reason


class Budget:
    """What shrinking may spend: steps (None: no limit), until the wall-clock safety stop and the caller's deadline
    (time.monotonic())."""

    def __init__(self, steps: int | None = None, *, safety: float | None = None, deadline: float | None = None) -> None:
        self.steps = steps
        self.safety = safety
        self.deadline = deadline
        self.spent = 0

    @classmethod
    def of_seconds(cls, seconds: float | None, *, deadline: float | None = None) -> Budget:
        """The budget shrink_time buys (0 or None: no limit), its safety stop counted from now."""
        if not seconds:
            return cls(None, deadline=deadline)
        return cls(steps_of(seconds), safety=time.monotonic() + safety_seconds(seconds), deadline=deadline)

    def check(self, steps: int = 0) -> None:
        """Raise OutOfBudget when steps more would go past the budget, or a clock has stopped shrinking."""
        if self.steps is not None and self.spent + steps > self.steps:
            raise OutOfBudget(StopReason.BUDGET)
        if self.deadline is not None or self.safety is not None:
            now = time.monotonic()
            if self.deadline is not None and now > self.deadline:
                raise OutOfBudget(StopReason.DEADLINE)
            if self.safety is not None and now > self.safety:
                raise OutOfBudget(StopReason.WALL_CLOCK)

    def charge(self, steps: int) -> None:
        """Spend steps, after checking there is room for them."""
        self.check(steps)
        self.spent += steps

    @property
    def exhausted(self) -> bool:
        try:
            self.check(1)
        except OutOfBudget:
            return True
        return False

    def scan_allowance(self) -> int:
        """The steps the scan may spend: its share of the budget (of the default one when there is no limit)."""
        total = self.steps if self.steps is not None else steps_of(DEFAULT_SECONDS)
        return int(SCAN_SHARE * total)


def safety_seconds(seconds: float) -> float:
    """The wall-clock safety stop for a budget of seconds."""
    return max(SAFETY * seconds, SAFETY_AT_LEAST)


def steps_of(seconds: float) -> int:
    """The steps shrink_time's seconds buy."""
    return max(1, round(seconds * STEPS_PER_SECOND))


def cost(candidate: Sequence[object], best: Sequence[object]) -> int:
    """What replaying candidate costs: its steps after those it shares with best, and its start."""
    shared = 0
    for a, b in zip(candidate, best):
        if a != b:
            break
        shared += 1
    return len(candidate) - shared + 1


def stopped_at(reason: StopReason, seconds: float, setting: str) -> str:
    """What a report says ended shrinking (a failure's `stopped`): the budget and the setting it comes from, or the
    clock that did."""
    if reason is StopReason.BUDGET:
        return f"the shrink budget ({seconds:g} s of work: {steps_of(seconds)} replayed steps, {setting})"
    if reason is StopReason.WALL_CLOCK:
        return (
            f"the wall-clock safety stop ({safety_seconds(seconds):g} s of wall time for {seconds:g} s of work, "
            f"{setting}; "
            "the machine's steps are far slower than most)"
        )
    if reason is StopReason.DEADLINE:
        return "the end of the campaign's time"
    return "Ctrl-C"
