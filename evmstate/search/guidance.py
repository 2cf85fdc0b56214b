"""Coverage guidance: runs that reach code no run reached before are kept and extended.

A Hypothesis backend (a PrimitiveProvider, Hypothesis's documented interface for alternative
backends) serves the choices of each new run. Most runs start by replaying choices of a kept
run, then draw afresh: either the kept run's choices up to the step where it last reached new
code, or only the steps of it that reached new code (a kept run's other steps are often
idle, and without them more of the new run is fresh). The new run starts where the kept one
broke through and tries the next steps from there. The rest are plain Hypothesis runs. A
run is kept when one of its steps made progress: reached a branch, or a jump destination, that
no earlier run of the machine reached, stored a small value a slot never held, or reached a state
no run reached (feedback.py says which and why, and why hit counts and states are off by default).
The kept run extended is the newest half the time; otherwise one drawn uniformly, or, with states
on, with the weight of the rarest state it reached (1 / the runs that reached it), as AFLFast gives
rarely reached paths more energy.

Extending pays only while it leads somewhere. Four runs in five extend a kept run right after
the corpus grew; with each run that keeps nothing the share falls, halved after PATIENCE runs
(a third after twice as many, and so on), and the others are plain Hypothesis runs. A bug that
needs one call many times in a run and nothing new on the way (a mint that breaks the supply
once one account holds more than all the rest) is found by plain runs, where it is found at
all: a run that replays a kept one inherits its swarm (engine/swarm.py), and the kept runs are those
that reached every branch, with every rule enabled. Extending those at four runs in five, the
search found such a bug in 200 runs on none of 10 seeds where Hypothesis found it on 2; with
the share falling, on 5 (benchmarks/hypothesis_parity.py, py-evm). Once the search is climbing
(a kept run stored a stage never held, or a run that extended a kept run made progress) it is
patient for longer, CLIMBING_PATIENCE runs: each rung of a ladder is a rare draw in a run that got as far as the
rung below, and tens of runs may pass between two (machines/ladder.py: up to 55).

Comparison operands land as input-to-state replacements, as AFL++'s CmpLog and Redqueen use
them: when a step's call compared an argument for equality with another value (`x == 3 * base +
7`, the right side computed from what an earlier call stored), later runs replay the run up to
that step and repeat the step with the argument's choice replaced by the other side (then by its
neighbours). The repeated call meets the same state, so the comparison now holds. Each value is
tried once per machine, and at most REPLACEMENTS new ones a run. An argument compared after
simple arithmetic (`3 * x + 7 == base`) comes with the value solved for it, not the other side
(evm/pyevm/solving.py derive()). A number computed from an argument and tested for zero (`assets:
uint256 = shares * total_assets // supply`, then `assert assets > 0`) comes with the largest argument that
makes it zero (zero_tested()), tried once per rule: a redeem of 1 share, refused once a share is worth less
than an asset, where another rule's argument met 1 long before. An order is met the same way where it was
failed: a step whose calls all reverted, the last order an argument met being the check it failed (a burn of
more than a balance, a redeem of more shares than held, a loss larger than what a strategy holds), is repeated
with the argument at that bound (then one below it). The repeated call goes through in the state where the draw
was refused: all of a balance, all a strategy holds lost. One such step of a run is queued, and a run takes the
newest at odds of AT_BOUND.

Why a provider rather than target() scores: Hypothesis's target phase climbs by changing one
choice at a time, so a run that reached a rare branch at step 10 gets one new try per run at
the next rare branch; replaying the prefix and drawing the other 40 steps afresh gets 40
(benchmarks/search.py measures both). Everything stays within Hypothesis: the choices the
provider returns are recorded like any other, so a failure found this way is replayed,
shrunk and saved by Hypothesis's own engine with its own provider, and `--seed` reproduces
the run (the provider's random choices come from the machine's seed).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, HypothesisProvider, PrimitiveProvider

# share of runs drawn by Hypothesis alone, so that plain exploration never stops
FRESH = 0.2
# runs without progress after which the share of runs that extend a kept run is halved: until
# the search climbs, and once it does (see above)
PATIENCE = 20
CLIMBING_PATIENCE = 100
# share of extending runs that replay only the kept run's steps that reached new code
DISTILLED = 0.5
# share of the other extending runs that restart from an earlier choice than the last discovery
EARLIER = 0.25
# input-to-state replacements queued at most per run, and values tried at most per machine
REPLACEMENTS = 4
TRIED = 4096
PENDING = 64  # replacements waiting to run at most
# a step whose calls all reverted after an argument failed an order (a burn of more than a balance, a redeem of more
# shares than held): runs that repeat it with the argument at that bound, as Redqueen meets an order. One such step of a
# run is queued, the newest BOUNDED kept waiting; a run takes one at odds of AT_BOUND while any waits
BOUNDED = 8
AT_BOUND = 0.25
# runs queued when a run raised an optimize method's best value, its choices up to that step with one change, then
# fresh steps; run before any other, and replaced by those of a higher best. The step that raised it comes first: each
# of its numbers at its bounds, 1, one between it and its bound, times and divided by each of GROWTH; the run with
# only its steps that raised a best; that step moved earlier (the steps between left out); a copy of an earlier step
# made again before it; then the run's other numbers, larger and smaller, as far as CLIMBS allows
CLIMBS = 24
GROWTH = (2, 16, 2**16)
MOVES = 3  # runs that move the step that raised the best earlier, beside the one right after the first step
COPIES = 2  # runs that copy an earlier step before the one that raised the best
WIDE = 2**32
WORD = 2**256


Choice = tuple[str, dict[str, Any], Any]  # (kind, constraints, value) of one draw


@dataclass
class Stats:
    """How the guided search went: runs extended from a kept run, runs kept."""

    runs: int = 0
    extended: int = 0
    kept: int = 0
    replaced: int = 0  # runs that repeated a step with an argument replaced by what it was compared with
    at_bound: int = 0  # runs that repeated a reverted step with an argument at the bound it failed
    replayed: int = 0  # queued runs replayed whole
    climbed: int = 0  # runs that changed the run that raised an optimize method's best value


@dataclass
class Entry:
    """A kept run: its choices up to its last step that reached new code, and where those steps are."""

    choices: list[Choice]
    head: int  # choices drawn before the first step
    spans: list[tuple[int, int]]  # the choices of each step that reached new code, its own or its parent's
    states: frozenset[Any] = frozenset()  # the states (feedback.py) it reached up to its last step that made progress

    def distilled(self) -> list[Choice]:
        return self.choices[: self.head] + [c for start, end in self.spans for c in self.choices[start:end]]


@dataclass
class Guide:
    """One machine's guided search: the kept runs, and the run being drawn now."""

    seed: int
    corpus: list[Entry] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)
    # runs replayed whole before any other, in order (a mutant's replay of the saved corpus)
    queued: list[Entry] = field(default_factory=list)
    # how rare the rarest of some states is (Progress.rarity); None: kept runs are extended uniformly
    rarity: Callable[[frozenset[Any]], float] | None = None

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)
        self.current: GuidedProvider | None = None
        self._cut: int | None = None
        self._head: int | None = None  # choices drawn before the first step
        self._step = 0  # where the current step's choices start
        self._novel: list[tuple[int, int]] = []  # the current run's steps that reached new code
        self._states: frozenset[Any] = frozenset()  # the states the current run reached up to its last progress
        self._inherited: list[tuple[int, int]] = []  # the steps of the replayed choices that did
        self._idle = 0  # runs since the corpus last grew
        self._extending = False  # the current run replays a kept run
        self.climbing = False  # a kept run reached a new stage, or extended a kept run (or a saved corpus was loaded)
        self._stage = False  # the current run stored a small value never held
        self.replaying = False  # the current run replays a queued run
        # (step start, end, equalities of an argument) of this run
        self._met: list[tuple[int, int, list[tuple[int, int]]]] = []
        # (step start, end, (argument, the largest that makes a number derived from it zero), the step's rule)
        self._zeros: list[tuple[int, int, list[tuple[int, int]], str | None]] = []
        self._zeros_tried: set[tuple[str | None, int]] = set()  # (rule, value) tried once each
        self.pending: list[tuple[list[Choice], list[tuple[int, int]]]] = []  # replacements to run next
        self._failed_orders: list[tuple[int, int, int, int]] = []  # (step start, end, argument, bound) of this run
        # reverted steps repeated at their bound, the newest last
        self.bounded: list[tuple[list[Choice], list[tuple[int, int]]]] = []
        self._tried: set[int] = set()
        self._climb: int | None = None  # the choices up to the step that raised an optimize method's best, this run
        self._climb_step = 0  # where that step's choices start
        self._starts: list[int] = []  # where each step of the current run starts
        self._raises: list[tuple[int, int]] = []  # the current run's steps that raised a best
        self.climbs: list[list[Choice]] = []  # runs that change the run that raised the newest best, to run first

    def plan(self) -> tuple[list[Choice], list[tuple[int, int]]]:
        """The choices a new run replays before drawing afresh (none for a plain run), and its steps that reached new
        code.
        """
        self.stats.runs += 1
        self.replaying = bool(self.queued)
        if self.queued:
            entry = self.queued.pop(0)
            self.stats.replayed += 1
            return list(entry.choices), list(entry.spans)
        if self.climbs:
            self.stats.climbed += 1
            self._extending = True
            return self.climbs.pop(0), []
        if self.bounded and self.random.random() < AT_BOUND:
            self.stats.at_bound += 1
            self._extending = True
            return self.bounded.pop()
        if self.pending:
            self.stats.replaced += 1
            self._extending = True
            return self.pending.pop(0)
        patience = CLIMBING_PATIENCE if self.climbing else PATIENCE
        share = (1 - FRESH) * patience / (patience + self._idle)
        self._idle += 1
        self._extending = bool(self.corpus) and self.random.random() >= 1 - share
        if not self._extending:
            return [], []
        self.stats.extended += 1
        # the newest kept run went furthest most often: extend it half the time
        entry = self.corpus[-1] if self.random.random() < 0.5 else self._pick()
        if self.random.random() < DISTILLED:
            distilled = entry.distilled()
            return distilled, [(entry.head, len(distilled))]
        cut = len(entry.choices)
        if self.random.random() < EARLIER:
            cut = self.random.randint(0, cut)
        return entry.choices[:cut], [(a, b) for a, b in entry.spans if b <= cut]

    def _pick(self) -> Entry:
        """A kept run to extend: one that reached a state few runs reached, more often (AFLFast's energy); uniformly
        where no states are known. A run whose states are not known (one saved by an earlier search: corpus.py keeps
        choices only) counts as one that reached a state no other run did, as every kept run did before."""
        rarity, corpus = self.rarity, self.corpus
        if rarity is None or not any(e.states for e in corpus):
            return self.random.choice(corpus)
        return self.random.choices(corpus, [rarity(e.states) if e.states else 1.0 for e in corpus])[0]

    def begin(self, provider: "GuidedProvider", inherited: list[tuple[int, int]]) -> None:
        self.current = provider
        self._met, self._zeros = [], []
        self._failed_orders = []
        self._cut = self._head = None
        self._stage = False
        self._step = 0
        self._starts = []
        self._raises = []
        self._novel = []
        self._states = frozenset()
        self._inherited = inherited

    def step_started(self) -> None:
        if self.current is not None:
            self._step = len(self.current.record)
            self._starts.append(self._step)
            if self._head is None:
                self._head = self._step

    def reached_new_code(self, stage: bool = False, states: frozenset[Any] | None = None) -> None:
        """The step that just ended made progress (new code, a new hit count, a new stored value or state: a stage):
        keep the run up to here; states: those the run reached so far.
        """
        if self.current is not None:
            self._stage = self._stage or stage
            if states is not None:
                self._states = states
            self._cut = len(self.current.record)
            self._novel.append((self._step, self._cut))

    def raised(self) -> None:
        """The step that just ended raised an optimize method's best value: keep the run up to here, and climb from it
        (runs that make one of its numbers larger, queued when it ends)."""
        self.reached_new_code(stage=True)
        if self.current is not None:
            self._climb, self._climb_step = len(self.current.record), self._step
            self._raises.append((self._step, self._climb))

    def _queue_climbs(self, record: list[Choice], step: int, starts: list[int], raises: list[tuple[int, int]]) -> None:
        """Queue runs that replay record (up to the step that raised a best, which starts at step) with one change, in
        place of those queued for an earlier, lower best."""
        r = self.random
        # the wide numbers: an argument's value, not a rule's index or a swarm's choice
        numbers = [
            i for i, (kind, c, _) in enumerate(record) if kind == "integer" and (c.get("max_value") or WIDE) >= WIDE
        ]
        own, others = [i for i in numbers if i >= step], [i for i in numbers if i < step]
        r.shuffle(others)
        runs: list[list[Choice]] = []
        for i in own:  # the raising step's numbers at their boundaries, and grown and shrunk
            kind, constraints, value = record[i]
            low, high, top, bottom = _bounds(constraints, value)
            tried = {value}
            wider = [top, bottom, 1, r.randint(value, max(value, top))]
            wider += [v for g in GROWTH for v in (min(top, max(value, 1) * g), max(bottom, value // g))]
            for other in wider:
                if other not in tried and (low is None or other >= low) and (high is None or other <= high):
                    tried.add(other)
                    runs.append(record[:i] + [(kind, constraints, other)] + record[i + 1 :])
        head = starts[0] if starts else step
        if len(raises) > 1:  # only the steps that raised a best (the others may have spent what the last one needed)
            runs.insert(1 if runs else 0, record[:head] + [c for a, b in raises for c in record[a:b]])
        earlier = [(a, b) for a, b in zip(starts, starts[1:] + [step]) if b <= step and a < b]
        # the raising step moved earlier: right after the first step, and after a few others (the steps between out)
        cuts = sorted({earlier[0][1]} | {b for _, b in r.sample(earlier, min(MOVES, len(earlier)))}) if earlier else []
        for cut in cuts:
            if cut < step:
                runs.append(record[:cut] + record[step:])
        for a, b in r.sample(earlier, min(COPIES, len(earlier))):  # a call made once more before the raising step
            runs.append(record[:step] + record[a:b] + record[step:])
        for i in others:  # the run's other numbers: each made larger and smaller
            kind, constraints, value = record[i]
            _, _, top, bottom = _bounds(constraints, value)
            growth = r.choice(GROWTH)
            larger, times = r.randint(value, max(value, top)), min(top, max(value, 1) * growth)
            for other in (larger, times, max(bottom, value // growth)):
                if other != value:
                    runs.append(record[:i] + [(kind, constraints, other)] + record[i + 1 :])
        self.climbs = runs[:CLIMBS]

    def compared(self, equalities: list[tuple[int, int]]) -> None:
        """The step that just ended compared these arguments for equality with these values: (argument, other side)."""
        if self.current is not None:
            self._met.append((self._step, len(self.current.record), list(equalities)))

    def zero_tested(self, zeros: list[tuple[int, int]], rule: str | None) -> None:
        """The step that just ended, of rule, tested for zero a number computed from an argument: (argument, the
        largest argument for which it is zero)."""
        if self.current is not None:
            self._zeros.append((self._step, len(self.current.record), list(zeros), rule))

    def failed_order(self, argument: int, bound: int) -> None:
        """The step that just ended had all its calls revert, the last order an argument met was with bound."""
        if self.current is not None and bound:  # an amount refused at nothing (a holder of none) has no bound to meet
            self._failed_orders.append((self._step, len(self.current.record), argument, bound))

    def _at_bound(self) -> None:
        """Queue one of the current run's reverted steps, repeated with its argument at the bound it failed (or one
        below, where that was tried)."""
        record = self.current.record if self.current is not None else []
        start, end, argument, bound = self.random.choice(self._failed_orders)
        for value in (bound, bound - 1):
            if value in self._tried or not 0 <= value < WORD:
                continue
            step = _replaced(record[start:end], argument, value)
            if step is not None:
                self._tried.add(value)
                self.bounded.append((record[:end] + step, [(end, end + len(step))]))
                del self.bounded[:-BOUNDED]
                return

    def _replace(self) -> None:
        """Queue the current run's steps that met an equality, repeated with the argument replaced by the other side
        (and its neighbours).
        """
        record = self.current.record if self.current is not None else []
        queued = 0
        for start, end, zeros, rule in self._zeros:
            for argument, value in zeros:
                if queued >= REPLACEMENTS or len(self.pending) >= PENDING or (rule, value) in self._zeros_tried:
                    continue
                step = _replaced(record[start:end], argument, value)
                if step is not None:
                    self._zeros_tried.add((rule, value))
                    self.pending.append((record[:end] + step, [(end, end + len(step))]))
                    queued += 1
        for start, end, equalities in self._met:
            for argument, other in equalities:
                for value in (other, other + 1, other - 1):
                    if (
                        queued >= REPLACEMENTS or len(self.pending) >= PENDING or value in self._tried
                        or not 0 <= value < WORD
                    ):
                        continue
                    step = _replaced(record[start:end], argument, value)
                    if step is not None:
                        self._tried.add(value)
                        self.pending.append((record[:end] + step, [(end, end + len(step))]))
                        queued += 1
        if len(self._tried) > TRIED:
            self._tried.clear()
        if len(self._zeros_tried) > TRIED:
            self._zeros_tried.clear()

    def run_finished(self) -> None:
        """The run ended: keep it if it made progress (runs Hypothesis drew itself are not ours)."""
        current = self.current
        if self._met or self._zeros:
            self._replace()
            self._met, self._zeros = [], []
        if self._failed_orders:
            self._at_bound()
            self._failed_orders = []
        if current is not None and self._climb is not None:
            self._queue_climbs(current.record[: self._climb], self._climb_step, self._starts, self._raises)
        self._climb = None
        if current is not None and self._cut is not None and self._cut > 0:
            head = self._head if self._head is not None else 0
            # the replayed steps count only as far as the run followed the kept one
            inherited = [(a, b) for a, b in self._inherited if a >= head and b <= current.replayed]
            spans = sorted(set(inherited) | {(a, b) for a, b in self._novel if a >= head})
            self.corpus.append(Entry(current.record[: self._cut], head, spans, self._states))
            self.stats.kept += 1
            self._idle = 0
            self.climbing = self.climbing or self._extending or self._stage
        self.current = None
        self._cut = None


def _bounds(constraints: dict[str, Any], value: int) -> tuple[int | None, int | None, int, int]:
    """An integer choice's (min_value, max_value, the largest value to try, the smallest)."""
    low, high = constraints.get("min_value"), constraints.get("max_value")
    top = high if high is not None else max(value, 1) * 2**64
    bottom = low if low is not None else min(value, 0)
    return low, high, top, bottom


def _replaced(step: list[Choice], argument: int, value: int) -> list[Choice] | None:
    """The step's choices with the integer choice that drew argument (as a calldata word) set to value, or None when
    none did or value does not fit.
    """
    for i, (kind, constraints, drawn) in enumerate(step):
        if kind != "integer" or drawn % WORD != argument:
            continue
        low, high = constraints.get("min_value"), constraints.get("max_value")
        fitted = value - WORD if drawn < 0 and value >= WORD // 2 else value  # a signed argument
        if (low is not None and fitted < low) or (high is not None and fitted > high):
            return None
        return step[:i] + [(kind, constraints, fitted)] + step[i + 1 :]
    return None


class GuidedProvider(PrimitiveProvider):
    """Replays a kept run's choices, then draws as Hypothesis would."""

    lifetime = "test_case"
    guide: Guide  # set on the subclass made for each machine

    def __init__(self, conjecturedata: Any, /) -> None:
        super().__init__(conjecturedata)
        fresh = HypothesisProvider(conjecturedata)
        self._fresh: dict[str, Callable[..., Any]] = {
            "boolean": fresh.draw_boolean,
            "integer": fresh.draw_integer,
            "float": fresh.draw_float,
            "string": fresh.draw_string,
            "bytes": fresh.draw_bytes,
        }
        self._plan, inherited = self.guide.plan()
        self.record: list[Choice] = []
        self.replayed = 0  # how many of the planned choices this run took
        self._inner = False
        # set by the engine around a step's draw of its rule: moves a fresh draw off a rule drawn rarely
        # (engine/swarm.py)
        self.avoid: Any = None
        self.guide.begin(self, inherited)

    _plan: list[Choice]

    def _draw(self, kind: str, constraints: dict[str, Any]) -> Any:
        if self._inner:
            # Hypothesis's provider drawing for itself (e.g. a weighted integer's sampler):
            # part of the outer draw, which is what is recorded and replayed
            return self._fresh[kind](**constraints)
        i = len(self.record)
        plan = self._plan
        if i < len(plan):
            planned_kind, planned_constraints, value = plan[i]
            if planned_kind != kind or planned_constraints != constraints:
                # the program went another way than the kept run's: draw afresh from here
                self._plan = plan = []
        if i < len(plan):
            self.replayed = i + 1
        else:
            self._inner = True
            try:
                value = self._fresh[kind](**constraints)
            finally:
                self._inner = False
            if self.avoid is not None and kind == "integer":
                value = self.avoid(constraints, value, self.guide.random)
        self.record.append((kind, constraints, value))
        return value

    def draw_boolean(self, **constraints: Any) -> bool:  # type: ignore[override]
        return self._draw("boolean", constraints)

    def draw_integer(self, **constraints: Any) -> int:  # type: ignore[override]
        return self._draw("integer", constraints)

    def draw_float(self, **constraints: Any) -> float:  # type: ignore[override]
        return self._draw("float", constraints)

    def draw_string(self, **constraints: Any) -> str:  # type: ignore[override]
        return self._draw("string", constraints)

    def draw_bytes(self, **constraints: Any) -> bytes:  # type: ignore[override]
        return self._draw("bytes", constraints)


_names = itertools.count()


def register(guide: Guide) -> str:
    """Make guide's provider available to Hypothesis; returns the backend name for settings(backend=...)."""
    name = f"evmstate-guided-{next(_names)}"
    AVAILABLE_PROVIDERS[name] = type("GuidedProvider", (GuidedProvider,), {"guide": guide})
    return name


def unregister(name: str) -> None:
    AVAILABLE_PROVIDERS.pop(name, None)
