"""Which rule a step runs: the rules in Hypothesis's order, and the run's swarm.

As Hypothesis's own stateful runner does (RuleStrategy and FeatureFlags in hypothesis.stateful),
each run leaves out a random subset of the rules ("swarm testing": a run that never transfers
can mint the same account eleven times), never all of them, and shrinking goes toward every rule
enabled. The swarm is drawn once, before the first step, with Hypothesis's public strategies:
whether this run has one at all (half the runs keep every rule: unlike Hypothesis's runner,
a bug that needs two rules of a small machine is not found less often), then a level, 0 ..
254, then one choice per rule in the same range; a rule is left out when its choice is above 254 minus the level, so
that a rule is left out with odds level / 255 (as Hypothesis's feature flags are), and every choice shrinks toward the
rule enabled. Drawn at the start of the run, the swarm means the same thing while the shrinker edits the steps after it.

Rules are sampled in Hypothesis's order: rules without targets first, then by the bundles they
target, then fewer arguments first, then by name.

Weights (RuleDraw): a step draws one of a few slots, each rule holding as many as its weight
(@rule(weight=...) or settings = {"weights": {...}}); without weights every rule holds one, so a
machine without them draws exactly as before. A rule the search learns ends the machine's
progress (Endings: after its first call that changed the state, almost every later transaction
of the other rules reverted, far more than before it, the reverts following it rather than another rule that changed
the state since those rules last went through) is drawn rarely from then on: a fresh draw that
lands on it is kept at odds that make it about one step in RARE_RUNS runs' steps, and otherwise
moved to another rule. Only fresh draws are moved (the guided provider's and the native loop's),
never a choice replayed, so a choice means the same rule in every replay, shrink and saved example.

Streaks (on by default; an EVMSTATE_FEEDBACK that leaves out `streaks` turns them off): a rule whose latest calls in
this run all reverted, n in a row, is kept at odds of STALE_KEEP ** n (never below STALE_FLOOR) when a fresh draw
lands on it, and otherwise moved to a rule without such a streak: a second shutdown, a withdrawal by an account that
holds nothing, a loss larger than what a strategy holds, each drawn again in a state that has hardly moved, spend
the run's steps on nothing. Its first call that goes through ends the streak.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable

from hypothesis import strategies as st

from ..spec.machine import RuleSpec
from ..search.dictionary import index_choice
from ..search.native.choices import drawn

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

    return drawn(swarm)  # its choices, made by whoever draws it


# a step draws its rule from at most this many slots: weights that are whole numbers summing to at
# most this are exact, others are rounded to a share of it (every rule keeps one slot at least).
# Hypothesis draws an integer range of up to 128 values evenly; a wider one leans to its ends.
SLOTS = 128


def slot_counts(order: list[RuleSpec]) -> list[int]:
    """How many slots each rule holds: one each when no rule has a weight (or all have the same)."""
    weights = [1 if r.weight is None else r.weight for r in order]
    if all(w == weights[0] for w in weights):
        return [1] * len(order)
    if all(float(w).is_integer() for w in weights) and sum(weights) <= SLOTS:
        return [int(w) for w in weights]
    scale = SLOTS / sum(weights)
    return [max(1, round(w * scale)) for w in weights]


class RuleDraw:
    """How a step draws its rule: the rules in Hypothesis's order, each holding slots by its weight,
    and the rules the search learned end the machine's progress, drawn rarely."""

    def __init__(self, order: list[RuleSpec], steps: int, streaks: bool = False, closing: bool = False) -> None:
        self.order = order
        self.streaks = streaks  # fresh draws moved off a rule whose latest calls in the run all reverted (Avoid)
        self.slots = [i for i, n in enumerate(slot_counts(order)) for _ in range(n)]
        self.steps = max(1, steps)  # a run's steps: a rare rule comes about once in RARE_RUNS times as many
        self.ends = Endings(order, closing=closing)  # closing: a rule that closes another is learned too

    def draw(
        self,
        draw: Callable[[Any], Any],
        allowed: Collection[str],
        source: Any = None,
        streaks: dict[str, int] | None = None,
    ) -> RuleSpec:
        """A rule among the allowed names: a slot of all the rules first, then of the allowed ones if that one is not.

        The first choice means the same rule while the shrinker edits earlier steps (which
        changes what is allowed later) and while it enables rules the swarm left out; the second,
        drawn only when the first is not allowed, makes the draw follow the weights of the allowed rules.
        Hypothesis's own filtered sampled_from tries up to three times before that: each try is
        one more choice in every step of a run whose swarm left most rules out.

        source: the current run's choices (guidance's provider, the native loop's data), whose fresh
        draws of the slot are moved off a rule learned to end progress, and often off a rule whose latest calls in
        this run all reverted (streaks: the rule's reverted calls in a row, see Avoid); None draws as Hypothesis does.
        """
        order, slots = self.order, self.slots
        rare = self.ends.rare if source is not None else None
        stale = None
        if source is not None and streaks and self.streaks:
            stale = {name: n for name, n in streaks.items() if n}
        moving = bool(rare or stale)
        if moving:
            source.avoid = Avoid(slots, order, rare or frozenset(), self.steps, stale)
        try:
            r = order[slots[draw(index_choice(len(slots)))]]
            if r.name in allowed:
                return r
            candidates = [i for i in slots if order[i].name in allowed]
            if len(set(candidates)) == 1:
                return order[candidates[0]]
            if moving:
                source.avoid = Avoid(candidates, order, rare or frozenset(), self.steps, stale)
            return order[candidates[draw(index_choice(len(candidates)))]]
        finally:
            if moving:
                source.avoid = None

    def statistics(self) -> dict[str, str]:
        """What -v says of weights and of the rules drawn rarely."""
        stats = {}
        weighted = [f"{r.name} {r.weight:g}" for r in self.order if r.weight is not None]
        if weighted:
            stats["rule weights"] = ", ".join(weighted)
        if self.ends.rare:
            stats["rules drawn rarely"] = "; ".join(self.ends.why(name) for name in sorted(self.ends.rare))
        return stats


# a rule learned to end progress comes about once in this many runs: once a run, it would still come
# halfway through a run on average, and half of every run's steps would revert after it
RARE_RUNS = 4


class Avoid:
    """A fresh draw of a rule's slot that lands on a rule to avoid, kept at its odds, else moved to a slot of a rule not
    avoided (by the run's own random numbers).

    A rare rule is kept at odds that make the rare rules about one step in steps * RARE_RUNS. A rule whose latest
    calls in this run all reverted, n of them in a row (stale), at STALE_KEEP ** n, never below STALE_FLOOR: a call
    that reverted left the state as it was, and the same rule drawn again in a run whose other rules moved little
    mostly reverts again (a second shutdown, a withdrawal by an account that holds nothing), a step the run spends on
    nothing. Its first call that goes through ends the streak.
    """

    def __init__(
        self,
        slots: list[int],
        order: list[RuleSpec],
        rare: frozenset[str],
        steps: int,
        stale: dict[str, int] | None = None,
    ) -> None:
        self.n = len(slots)
        self.rare = frozenset(k for k, i in enumerate(slots) if order[i].name in rare)
        keep_rare = min(1.0, self.n / (len(self.rare) * steps * RARE_RUNS)) if self.rare else 1.0
        self.keep: dict[int, float] = {k: keep_rare for k in self.rare}
        for k, i in enumerate(slots):
            n = (stale or {}).get(order[i].name, 0)
            if n:
                self.keep[k] = min(self.keep.get(k, 1.0), max(STALE_FLOOR, STALE_KEEP**n))
        self.others = [k for k in range(self.n) if k not in self.keep]
        if not self.others and self.rare:
            # every rule avoided, some as learned to end progress: those stay rare, the stale ones are drawn among
            # themselves (after a shutdown every other rule reverts; a run's later draws must not turn to it)
            self.others = [k for k in range(self.n) if k not in self.rare]

    def __call__(self, constraints: dict[str, Any], value: Any, rnd: random.Random) -> Any:
        whole = constraints.get("min_value") == 0 and constraints.get("max_value") == self.n - 1  # the slot's draw
        if value not in self.keep or not self.others or not whole:
            return value
        if rnd.random() < self.keep[value]:
            return value
        return self.others[int(rnd.random() * len(self.others))]


# a rule whose latest n calls in this run all reverted is kept at these odds to the n (no lower than the floor), with
# streaks on (the default; measured in docs/configuration.md)
STALE_KEEP = 0.5
STALE_FLOOR = 0.125


@dataclass
class Counts:
    """Transactions sent and reverted."""

    sent: int = 0
    reverted: int = 0

    def add(self, sent: int, reverted: int) -> None:
        self.sent += sent
        self.reverted += reverted

    @property
    def share(self) -> float:
        return self.reverted / self.sent if self.sent else 0.0


@dataclass
class Endings:
    """Which rules end a machine's progress: after a rule's first call that changed the state, almost every later
    transaction of the other rules reverted (a vault's shutdown), far more than before it, and the rule is what those
    reverts follow. Learned from the runs that passed; a rule with a weight of its own is the user's to weigh.

    A revert is blamed on one rule at most (blame): a rule whose first call that changed the state came since the
    reverting rule last went through in the run (or its own last call that went through, for a rule never seen going
    through twice in a run: a second close), the earliest of them not ruled out. A rule is ruled out for another once
    that other went through after its first call that changed the state, in any run: a bump that buys went through
    after is not what closed them, in runs where the close came before it either. The other rules' transactions after
    the rule that count are those that went through and the reverts blamed on it; a close's own repeats, and buys after
    a close that came before a bump, are not the bump's. A rule ruled out stays so, and a revert keeps only the first
    CAUSES rules not ruled out that it may follow: a revert whose first CAUSES are all ruled out later is no one's.

    With closing on (`closing` in EVMSTATE_FEEDBACK; on by default), also a rule that closes another for good: after its
    first call that changed the state, every fresh transaction of some other rule reverted (fresh: that rule had not
    gone through yet in the run), where before it, or in runs without it, that rule's fresh transactions mostly went
    through, and that rule never went through after it. A vault's shutdown closes deposits and mints but leaves its
    knobs, fees and reports going through, so that the other rules' transactions after it revert far less than SHARE,
    and it is not learned by the share alone: drawn at its plain odds it came in 92 of 100 runs of the vault's bug b
    searches (revm, seeds 0 and 1), in half of those by their sixteenth step, and no deposit or lend went through after
    it. Only fresh transactions count, so a rule that goes through once a run (an initializer, an account's single
    claim) closed by itself is not taken for one closed by another.
    """

    order: list[RuleSpec]
    runs: int = 0
    rare: frozenset[str] = frozenset()
    # the other rules' transactions before the rule's first call that changed the state
    before: dict[str, Counts] = field(default_factory=dict)
    after: dict[str, Counts] = field(default_factory=dict)  # and of the steps after it that went through
    seen: dict[str, int] = field(default_factory=dict)  # runs in which such a call had later transactions
    learned: dict[str, int] = field(default_factory=dict)  # the run at which each rare rule was learned
    closing: bool = False  # also learn the rules that close another (CLOSED_SENT, OPEN_SHARE)
    # (rule, other rule): the other rule's fresh transactions before the rule's first call that changed the state (or in
    # a run without one), and after it; and the runs that had such transactions after it
    fresh_before: dict[tuple[str, str], Counts] = field(default_factory=dict)
    fresh_after: dict[tuple[str, str], Counts] = field(default_factory=dict)
    closed_runs: dict[tuple[str, str], int] = field(default_factory=dict)
    opened_runs: dict[tuple[str, str], int] = field(default_factory=dict)  # runs in which it went through before it
    closes: dict[str, str] = field(default_factory=dict)  # a rule learned by closing -> the rule it closed
    # (rule, the rules whose first call that changed the state came since it last went through, in order, led by the
    # rule itself where it had gone through before in the run; the first CAUSES not ruled out): its reverted
    # transactions
    blame: dict[tuple[str, tuple[str, ...]], int] = field(default_factory=dict)
    went_on: set[tuple[str, str]] = field(default_factory=set)  # (rule, other): the other went through after it
    blamed: dict[str, int] = field(default_factory=dict)  # the other rules' reverts blamed on each rule

    # at least this many runs, and this many transactions after it, with at least SHARE of them
    # reverted and MARGIN more than before it
    MIN_RUNS = 3
    MIN_SENT = 20
    SHARE = 0.9
    MARGIN = 0.3
    # closing: at least this many fresh transactions of the other rule after it, in MIN_RUNS runs, every one reverted;
    # before it, the other rule went through in MIN_RUNS runs, and at most OPEN_SHARE of its fresh transactions reverted
    CLOSED_SENT = 10
    OPEN_SHARE = 0.5
    CAUSES = 3  # the rules a revert may follow, kept in order: a revert whose first three are all ruled out is no one's

    def __post_init__(self) -> None:
        self.learnable = [r.name for r in self.order if r.weight is None]
        for name in self.learnable:
            self.before[name], self.after[name] = Counts(), Counts()

    def learn(self, steps: list[tuple[str, int, int]]) -> None:
        """A run that passed: (rule, transactions sent, reverted) of each step.

        Only the other rules' transactions count: a rule whose own later calls revert (an inbox
        opened once per account) has not ended anything.
        """
        if not LEARN or not self.learnable:
            return
        self.runs += 1
        firsts: dict[str, int] = {}
        for i, (rule, sent, reverted) in enumerate(steps):
            if sent > reverted and rule not in firsts:
                firsts[rule] = i
        for name in self.learnable:
            first = firsts.get(name, len(steps))
            before, after = Counts(), Counts()
            for i, (rule, sent, reverted) in enumerate(steps):
                if rule != name:
                    (before if i < first else after).add(sent, reverted)
            self.before[name].add(before.sent, before.reverted)
            if after.sent:
                self.after[name].add(after.sent - after.reverted, 0)  # the reverts count by blame
                self.seen[name] = self.seen.get(name, 0) + 1
        self._learn_blame(steps, firsts)
        if self.closing:
            self._learn_closing(steps, firsts)
        rare = frozenset(name for name in self.learnable if self.ends_progress(name) or self.closed(name) is not None)
        for name in rare - self.rare:
            self.learned[name] = self.runs
        self.rare = rare

    def _learn_blame(self, steps: list[tuple[str, int, int]], firsts: dict[str, int]) -> None:
        """Which rules each revert may follow, and which rules went through after which; then each rule's blame."""
        last: dict[str, int] = {}  # each rule's latest step that went through
        for i, (rule, sent, reverted) in enumerate(steps):
            if not sent:
                continue
            since = last.get(rule, -1)
            if reverted:
                after = sorted((f, other) for other, f in firsts.items() if since < f < i and other != rule)
                causes = ((rule,) if rule in last else ()) + tuple(other for _, other in after)
                self.blame[(rule, causes)] = self.blame.get((rule, causes), 0) + reverted
            if sent > reverted:
                self.went_on.update((other, rule) for other, f in firsts.items() if f < i)
                last[rule] = i
        # a rule ruled out stays so: each revert keeps the first CAUSES of its causes not ruled out, and reverts with
        # the same ones are counted together, so the record stays as small as the machine's rules make it
        blame: dict[tuple[str, tuple[str, ...]], int] = {}
        for (rule, causes), reverted in self.blame.items():
            kept = tuple(c for c in causes if (c, rule) not in self.went_on)[: self.CAUSES]
            blame[(rule, kept)] = blame.get((rule, kept), 0) + reverted
        self.blame = blame
        self.blamed = {}
        for (rule, causes), reverted in blame.items():
            if causes and causes[0] != rule:
                self.blamed[causes[0]] = self.blamed.get(causes[0], 0) + reverted

    def _learn_closing(self, steps: list[tuple[str, int, int]], firsts: dict[str, int]) -> None:
        """Count each rule's fresh transactions (those of its steps up to its first that went through) before and after
        each learnable rule's first call that changed the state."""
        fresh = [(i, rule, sent, reverted) for i, (rule, sent, reverted) in enumerate(steps)
                 if sent and i <= firsts.get(rule, len(steps))]
        for name in self.learnable:
            first = firsts.get(name, len(steps))
            after_run: set[str] = set()
            for i, rule, sent, reverted in fresh:
                if rule == name:
                    continue
                side = self.fresh_before if i < first else self.fresh_after
                side.setdefault((name, rule), Counts()).add(sent, reverted)
                if i > first:
                    after_run.add(rule)
                elif sent > reverted:
                    self.opened_runs[(name, rule)] = self.opened_runs.get((name, rule), 0) + 1
            for rule in after_run:
                self.closed_runs[(name, rule)] = self.closed_runs.get((name, rule), 0) + 1

    def closed(self, name: str) -> str | None:
        """The rule whose fresh transactions all reverted after this one's first call that changed the state, and mostly
        went through before it (closing on), or None."""
        if not self.closing:
            return None
        for (closer, other), after in self.fresh_after.items():
            if closer != name or after.sent < self.CLOSED_SENT or after.reverted < after.sent:
                continue
            if (closer, other) in self.went_on:
                continue  # the other rule went through after it in some run: something else closed it where it did not
            before = self.fresh_before.get((closer, other))
            runs = min(self.closed_runs.get((closer, other), 0), self.opened_runs.get((closer, other), 0))
            if runs >= self.MIN_RUNS and before is not None and before.share <= self.OPEN_SHARE:
                self.closes[name] = other
                return other
        return None

    def ends_progress(self, name: str) -> bool:
        after, before = self.counted(name), self.before[name]
        enough = self.seen.get(name, 0) >= self.MIN_RUNS and after.sent >= self.MIN_SENT
        return enough and after.share >= self.SHARE and after.share - before.share >= self.MARGIN

    def counted(self, name: str) -> Counts:
        """The other rules' transactions after the rule's first call that changed the state that count: those that went
        through, and the reverts blamed on it."""
        blamed = self.blamed.get(name, 0)
        return Counts(self.after[name].sent + blamed, blamed)

    def why(self, name: str) -> str:
        after, before = self.counted(name), self.before[name]
        other = None if self.ends_progress(name) else self.closes.get(name)
        if other is not None:
            closed, was = self.fresh_after[(name, other)], self.fresh_before[(name, other)]
            return (
                f"{name} (learned at run {self.learned.get(name, self.runs)}: after its first call that changed the "
                f"state, all {closed.sent} of {other}'s first tries reverted, {100 * was.share:.0f}% before it)"
            )
        return (
            f"{name} (learned at run {self.learned.get(name, self.runs)}: after its first call that changed the state, "
            f"{after.reverted} of the other rules' {after.sent} transactions reverted, "
            f"{100 * before.share:.0f}% before it)"
        )


# whether the search learns which rules end progress (a benchmark compares it with the uniform draw)
LEARN = True
