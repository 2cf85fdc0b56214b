"""New runs from kept ones, as Medusa and Echidna make them: splice, interleave, values toward what the contract knows.

The Guide (search.guidance) already extends a kept run (its prefix, then fresh steps), replays
only its steps that reached new code, and repeats a step with an argument replaced by what it was
compared with. The native loop adds, on a share of the runs that extend a kept run:

- splice: one kept run's choices up to the end of one of its steps that reached new code, then
  another's such steps;
- interleave: the steps that reached new code of two kept runs, one of each in turn;
- repeat: one step that reached new code, done again several times in a row (Hypothesis's own
  generator duplicates spans so; a bug behind one call made eleven times needs it);
- toward the dictionary: one wide integer choice of the plan set to a value the contracts know
  (a literal, a value they stored or compared an argument with) within its bounds, or one next to it.

A planned choice whose kind and constraints no longer fit where the run stands is drawn afresh
from there (NativeData.choose), so every mutant is a run Hypothesis could have drawn.
"""

from __future__ import annotations

from random import Random
from typing import Any, Sequence

from ..guidance import Choice, Entry

# share of extending runs that are mutated, and the weight of each mutation among them
MUTATED = 0.35
KINDS = ("splice", "interleave", "repeat", "repeat", "dictionary", "dictionary")


class Mutator:
    """Mutations of kept runs' choices, drawn from one machine's random source."""

    def __init__(self, random: Random, known: Any = None) -> None:
        self.random = random
        self.known = known  # a callable giving the values the contracts know (the dictionary's), or None
        self.counts = {kind: 0 for kind in KINDS}

    def mutate(self, plan: list[Choice], corpus: Sequence[Entry]) -> list[Choice]:
        """plan, mutated on a share of runs (an empty plan is a fresh run and stays one)."""
        r = self.random
        if not plan or not corpus or r.random() >= MUTATED:
            return plan
        kind = KINDS[int(r.random() * len(KINDS))]
        if kind == "dictionary":
            mutated = self.toward_known(plan)
        else:
            a, b = r.choice(corpus), r.choice(corpus)
            mutated = (
                splice(a, b, r) if kind == "splice" else interleave(a, b) if kind == "interleave" else repeat(a, r)
            )
        if mutated is None:
            return plan
        self.counts[kind] += 1
        return mutated

    def toward_known(self, plan: list[Choice]) -> list[Choice] | None:
        """plan with one wide integer choice set to a known value within its bounds (or a neighbour)."""
        r = self.random
        wide = [i for i, (kind, c, _) in enumerate(plan) if kind == "integer" and c.get("weights") is not None]
        if not wide:
            return None
        i = r.choice(wide)
        kind, constraints, value = plan[i]
        lo, hi = constraints["min_value"], constraints["max_value"]
        values = [v for v in (self.known() if self.known is not None else ()) if lo <= v <= hi]
        if values:
            value = r.choice(values) + r.choice((0, 0, 0, 1, -1))
        else:
            value = value + r.choice((1, -1))
        if not lo <= value <= hi:
            return None
        return plan[:i] + [(kind, constraints, value)] + plan[i + 1 :]


def splice(a: Entry, b: Entry, r: Random) -> list[Choice] | None:
    """a's choices up to the end of one of its steps that reached new code, then b's steps that did."""
    if not a.spans or not b.spans:
        return None
    cut = r.choice(a.spans)[1]
    return a.choices[:cut] + [c for start, end in b.spans for c in b.choices[start:end]]


def interleave(a: Entry, b: Entry) -> list[Choice] | None:
    """a's choices before its first step, then a's and b's steps that reached new code, one of each in turn."""
    if not a.spans or not b.spans:
        return None
    out = list(a.choices[: a.head])
    for i in range(max(len(a.spans), len(b.spans))):
        for entry in (a, b):
            if i < len(entry.spans):
                start, end = entry.spans[i]
                out += entry.choices[start:end]
    return out


def repeat(a: Entry, r: Random) -> list[Choice] | None:
    """a's choices with one of its steps that reached new code done 2 to 16 times in a row, then the rest of a."""
    if not a.spans:
        return None
    start, end = r.choice(a.spans)
    return a.choices[:end] + a.choices[start:end] * r.randint(1, 15) + a.choices[end:]
