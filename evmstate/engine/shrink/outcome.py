"""What a shrink ends with and how it went: the best program, why it stopped, what each pass spent and gained."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .budget import StopReason
from .edits import Minimized


@dataclass
class Met:
    """The comparisons a replay met with an argument on one side (Feedback's, wherever their result went): the other
    sides, the (argument, other side) of equalities, the arguments compared with an equal value (Feedback.matched), and
    the (argument, other side) of every one; and the (clock, other side) of every comparison of the block's time and of
    its number (a time the contract waits for, and when it was compared)."""

    operands: list[int] = field(default_factory=list)
    equalities: list[tuple[int, int]] = field(default_factory=list)
    matched: list[int] = field(default_factory=list)  # arguments compared with an equal value
    sides: list[tuple[int, int]] = field(default_factory=list)
    times: list[tuple[int, int]] = field(default_factory=list)
    blocks: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class PassStats:
    """How one pass went: candidates replayed, seconds, candidates kept, the work it spent (budget.cost) and what it
    took
    off the program: steps, and bits of its numbers and waits (size())."""

    runs: int = 0
    seconds: float = 0.0
    kept: int = 0
    work: int = 0
    steps: int = 0
    bits: int = 0


@dataclass
class Outcome:
    """What the shrinker ended with: the best failing program (None when nothing changed), how minimal, how it went."""

    found: Minimized | None
    minimality: str  # "1-minimal", "minimal among programs that delete up to two steps", or "" when stopped early
    passes: dict[str, PassStats] = field(default_factory=dict)
    stopped: StopReason | None = None
    left_out: int = 0  # candidates that met an error of the machine or a limit of evmstate, not the failure
    left_out_first: str | None = None
    work: int = 0  # the work spent (budget.Budget.spent)
    rounds: int = 0  # rounds of the passes, the last of which changed nothing unless stopped
    tried: tuple[str, ...] = ()  # the passes that ran, in their order
    replayed_on: str | None = None  # the backend the candidates were replayed on, when not the run's own ("revm")

    @property
    def replays(self) -> int:
        return sum(p.runs for p in self.passes.values())


def size(steps: Sequence[Any]) -> tuple[int, int]:
    """A program's size as the shrinker makes it smaller: (steps, bits of every number, account index and wait)."""
    return len(steps), sum(_bits(s.arguments) + s.delay[0].bit_length() + s.delay[1].bit_length() for s in steps)


def _bits(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return abs(value).bit_length()
    if isinstance(value, dict):
        if "ref" in value:
            return 0
        return sum(_bits(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_bits(v) for v in value)
    if isinstance(value, str):  # hex (bytes, an address) by its digits that are not 0; else its length
        return sum(c != "0" for c in value[2:]) if value.startswith("0x") else len(value)
    return 0
