"""Which rule a step runs: the rules in Hypothesis's order, and the run's swarm.

As Hypothesis's own stateful runner does (RuleStrategy and FeatureFlags in hypothesis.stateful),
each run leaves out a random subset of the rules ("swarm testing": a run that never transfers
can mint the same account eleven times), never all of them, and shrinking goes toward every rule
enabled. The swarm is drawn once, before the first step, with Hypothesis's public strategies:
whether this run has one at all (half the runs keep every rule: unlike Hypothesis's runner,
a bug that needs two rules of a small machine is not found less often), then a level, 0 ..
254, then one choice per rule in the same range; a rule is left out when its choice is above 254 minus the level, so that a rule is left out with odds level / 255 (as
Hypothesis's feature flags are), and every choice shrinks toward the rule enabled. Drawn at the
start of the run, the swarm means the same thing while the shrinker edits the steps after it.

Rules are sampled in Hypothesis's order: rules without targets first, then by the bundles they
target, then fewer arguments first, then by name.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Iterable

from hypothesis import strategies as st

from ..spec import RuleSpec
from ..search.dictionary import index_choice
from ..search.native.choices import drawn_by

# a swarm level and each rule's choice: 0 .. SWARM_LEVELS - 1, as Hypothesis's feature flags draw theirs
SWARM_LEVELS = 255
_LEVEL = st.integers(min_value=0, max_value=SWARM_LEVELS - 1)
# whether a run has a swarm at all: 0 (every rule enabled, where shrinking goes) or 1. Half the
# runs keep every rule, so a bug that needs two rules in a two- or three-rule machine is not
# found less often than without swarm testing, while runs that hammer a few rules still come
_SWARMING = st.integers(min_value=0, max_value=1)


def rule_order(rules: Iterable[RuleSpec]) -> list[RuleSpec]:
    """The rules in the order Hypothesis samples them: by target bundles, then fewer arguments, then name."""
    return sorted(rules, key=lambda r: (sorted(b.name for b in r.targets), len(r.params), r.name))


def left_out(level: int, choices: list[int], names: list[str]) -> frozenset[str]:
    """The rules a run leaves out, from its swarm choices (never all of them: then the last one stays)."""
    out = [name for name, choice in zip(names, choices) if choice >= SWARM_LEVELS - level]
    if len(out) == len(names):
        out.pop()
    return frozenset(out)


def swarm_strategy(order: list[RuleSpec]) -> st.SearchStrategy[frozenset[str]]:
    """The names of the rules one run leaves out (none for a machine with one rule)."""
    names = [r.name for r in order]

    def swarm(draw: Callable[[Any], Any]) -> frozenset[str]:
        if len(names) < 2 or not draw(_SWARMING):
            return frozenset()
        level = draw(_LEVEL)
        return left_out(level, [draw(_LEVEL) for _ in names], names)

    return drawn_by(st.composite(swarm)(), swarm)  # its choices, made by whoever draws it


def draw_rule(draw: Callable[[Any], Any], order: list[RuleSpec], allowed: Collection[str]) -> RuleSpec:
    """A rule among the allowed names, drawn from all the rules first, then among the allowed if that one is not.

    The first choice means the same rule while the shrinker edits earlier steps (which
    changes what is allowed later) and while it enables rules the swarm left out; the second,
    drawn only when the first is not allowed, makes the draw uniform over the allowed rules.
    Hypothesis's own filtered sampled_from tries up to three times before that: each try is
    one more choice in every step of a run whose swarm left most rules out.
    """
    r = order[draw(index_choice(len(order)))]
    if r.name in allowed:
        return r
    candidates = [r for r in order if r.name in allowed]
    return candidates[draw(index_choice(len(candidates)))] if len(candidates) > 1 else candidates[0]
