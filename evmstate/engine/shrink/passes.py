"""Shrinking that knows programs: delete steps and make values smaller on the recorded program itself.

Hypothesis shrinks the choices that generated a program, knowing nothing of steps, bundles or
waits; on EVM steps each of its tries replays the whole program. This shrinker works on the
recorded program, where a step names the values it uses, and replays each candidate from a
checkpoint before the first step it changes (replayer.py), so a candidate costs only its
changed suffix. Its passes, repeated until none makes progress:

- chunks: delete runs of steps, longest first (half the program, a quarter, ...), as delta
  debugging does; a step goes together with every step that uses a value it produced;
- singles: delete each step (with its users), or else only its wait; then each wait alone
  again (a deleted step's wait passes on to the step after it, which the sweep down has passed):
  the values' candidates then carry the waits the program ends with, and are found replayed
  when the next round asks them again;
- rules: a step's rule replaced by one Hypothesis samples earlier that takes some of the same
  arguments (as Hypothesis shrinks a rule's choice toward the first);
- order: two neighbouring steps swapped so that the rule sampled first comes first;
- values: each argument drawn by strategy() made as small as it can be while the program
  still fails, the last step's first: toward 0 (or the bound nearest it), the first account,
  empty or zero bytes, fewer items; a number by bisection down to the least that still fails;
- accounts, scan, together: values coupled to others, moved together (coupled.py): the accounts
  a program uses renamed or merged, a number that fails only at scattered values tried from the
  bottom up, two numbers lowered keeping their ratio or difference;
- merge: two steps of one rule whose numbers add up (two deposits of 245 and 255 where one
  total matters) become one, the later taking the earlier's amount up to its bound (as
  Hypothesis redistributes between two numbers);
- waits: waits made longer where that lets steps go (LONGER_WAITS); then each wait made
  none where the program still fails, else bisected down to the least that still fails;
- pairs: delete two steps together (while the program is short: PAIRS_UP_TO);
- reroute: delete a step that moved a bundle value (a 3-D Secure completion that made a
  payment authorized) while an argument of the step that produced the value changes so that it
  lands where the deleted step put it; or while another step calls an earlier rule.

A candidate counts only if every step's preconditions, bundle filters and routes hold where it
stands, as Hypothesis could have run it, and it fails with the same signature.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ...domains import AddressDomain, Domain, IntDomain
from . import coupled
from .. import delays
from .candidates import InOrder, Tries, probe_in_batches
# shrink.without, ...: part of its interface
from .edits import Minimized, fits, relabel, shorten_waits, with_users, without  # noqa: F401
from ..recorded import RecordedStep, ref_of


# how many times longer every wait is made when looking for steps a longer wait makes unneeded
LONGER_WAITS = (2, 16)
# programs of at most this many steps are tried without every pair of steps: "minimal among
# programs that delete up to two steps"
PAIRS_UP_TO = 12
# programs of at most this many steps are tried with every two steps of one rule merged into one
MERGE_UP_TO = 30
# comparison operands a repair tries, at most
REPAIRS = 6
PASSES = ("chunks", "singles", "rules", "order", "values", "accounts", "scan", "together", "merge", "waits", "pairs", "reroute")


class OutOfBudget(Exception):
    """Raised inside the shrinker when its time is up: the best program so far stands."""


@dataclass
class Met:
    """The comparisons a replay met that feed a branch, one side an argument: the other sides, the (argument, other side) of
    equalities, the arguments compared with an equal value (those too that feed a branch through an AND: Feedback.matched),
    and the (argument, other side) of every one."""

    operands: list[int] = field(default_factory=list)
    equalities: list[tuple[int, int]] = field(default_factory=list)
    matched: list[int] = field(default_factory=list)  # arguments compared with an equal value
    sides: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class PassStats:
    """How one pass spent its time: candidates replayed, seconds, candidates kept."""

    runs: int = 0
    seconds: float = 0.0
    kept: int = 0


class StopReason(enum.Enum):
    """Why shrinking ended before its passes ran out of moves."""

    BUDGET = "budget"  # the shrink budget
    INTERRUPTED = "interrupted"  # Ctrl-C (or a signal taken as one), with a failing program in hand


@dataclass
class Outcome:
    """What the shrinker ended with: the best failing program (None when nothing changed), how minimal, how it went."""

    found: Minimized | None
    minimality: str  # "1-minimal", "minimal among programs that delete up to two steps", or "" when stopped early
    passes: dict[str, PassStats] = field(default_factory=dict)
    stopped: StopReason | None = None
    left_out: int = 0  # candidates that met an error of the machine or a limit of evmstate, not the failure
    left_out_first: str | None = None

    @property
    def replays(self) -> int:
        return sum(p.runs for p in self.passes.values())


class Shrinker:
    """The passes over one failing program, given attempt(candidate): its replay when it fails the same way, else None.

    domains maps (rule, argument) to the Domain of the strategy that drew it. Steps whose rule is
    in fixed always stay. deadline: a time.monotonic() after which the best program so far stands.
    """

    def __init__(
        self,
        steps: Sequence[RecordedStep],
        attempt: Callable[[list[RecordedStep]], Minimized | None],
        *,
        fixed: frozenset[str] = frozenset(),
        domains: dict[tuple[str, str], Domain] | None = None,
        earlier: dict[str, list[tuple[str, frozenset[str]]]] | None = None,
        rank: dict[str, int] | None = None,
        deadline: float | None = None,
        progress: Callable[[int], None] = lambda steps: None,
        hints: tuple[int, ...] = (),
        operands: Callable[[list[RecordedStep], int], Met] | None = None,
        tries: Tries | None = None,
    ) -> None:
        self.best = list(steps)
        self.earlier = earlier or {}  # rule -> (rule sampled before it, the arguments it takes), ...
        self.rank = rank or {}  # rule -> its place in Hypothesis's order
        self.hints = hints  # numbers the contracts know
        # the comparison operands a candidate's replay met (its arguments' other sides), for repairs
        self.operands = operands
        self.domains = domains or {}
        self._attempt = lambda candidate: attempt(candidate) if fits(self.domains, candidate) else None  # within its strategies' bounds
        self.fixed = fixed
        self.deadline = deadline
        self.progress = progress
        self.found: Minimized | None = None
        self.passes = {name: PassStats() for name in PASSES}
        self.current = PASSES[0]
        self.pairs_done = False
        self.tries = tries or InOrder()  # who replays a pass's candidates (candidates.py)
        self.scanned: set[Any] = set()  # the numbers the scan pass tried below: (step, rule, argument, value)
        self.boundaries: dict[tuple[str, ...], frozenset[int]] = {}  # at_boundary()'s operands, by the steps up to the one asked

    # -- candidates ----------------------------------------------------------------------

    def attempt(self, candidate: list[RecordedStep]) -> Minimized | None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfBudget()
        self.passes[self.current].runs += 1
        return self._attempt(candidate)

    def keep(self, result: Minimized) -> None:
        self.best, self.found = result.steps, result
        self.passes[self.current].kept += 1
        self.progress(len(self.best))

    def shorter(self, candidate: list[RecordedStep]) -> bool:
        """Try a candidate no longer than the best; keep it when it still fails. Whether it was kept."""
        if candidate == self.best:
            return False
        result = self.attempt(candidate)
        if result is None or len(result.steps) > len(self.best) or result.steps == self.best:
            return False
        self.keep(result)
        return True

    def first_shorter(self, candidates: Any) -> Any:
        """The tag of the first (tag, candidate), made from the best program, that shorter() keeps trying them in order; None if none."""
        best = self.best

        def accept(result: Minimized | None) -> bool:
            return result is not None and len(result.steps) <= len(best) and result.steps != best

        before = self.tries.elsewhere
        try:
            found = self.tries.first(((tag, c) for tag, c in candidates if c != best and fits(self.domains, c)), self.attempt, accept)
        finally:
            self.passes[self.current].runs += self.tries.elsewhere - before  # those replayed by helpers
        if found is None:
            return None
        self.keep(found[1])
        return found[0]

    # -- the passes ----------------------------------------------------------------------

    def run(self) -> Outcome:
        stopped = None
        try:
            changed = True
            while changed:
                changed = False
                for name in PASSES:
                    self.current = name
                    started = time.perf_counter()
                    try:
                        changed = getattr(self, f"_{name}")() or changed
                    finally:
                        self.passes[name].seconds += time.perf_counter() - started
            final = self._relabelled()
            if final is not None:
                self.found = final
        except OutOfBudget:
            stopped = StopReason.BUDGET
        except KeyboardInterrupt:
            if self.found is None:
                raise
            stopped = StopReason.INTERRUPTED
        minimality = "" if stopped else "minimal among programs that delete up to two steps" if self.pairs_done else "1-minimal"
        return Outcome(self.found, minimality, self.passes, stopped)

    def _deletable(self, index: int) -> bool:
        return self.best[index].rule not in self.fixed

    def _chunks(self) -> bool:
        changed = False
        size = len(self.best) // 2
        while size >= 2:
            start = self.first_shorter(self._chunk_deletions(size, 0))
            while start is not None:
                changed = True  # the same place now holds later steps: try it again
                start = self.first_shorter(self._chunk_deletions(size, start))
            size //= 2
        return changed

    def _chunk_deletions(self, size: int, start: int) -> Any:
        for at in range(start, len(self.best) - size + 1, size):
            drop: set[int] = set()
            for i in range(at, at + size):
                if self._deletable(i):
                    drop |= with_users(self.best, i)
            if drop:
                yield at, without(self.best, drop)

    def _singles(self) -> bool:
        changed = False
        index = self.first_shorter(self._single_deletions(len(self.best) - 1))
        while index is not None:
            changed = True
            index = self.first_shorter(self._single_deletions(min(index - 1, len(self.best) - 1)))
        # a deleted step's wait passes on to the next step, which the sweep down has passed: its wait alone, again
        while self.first_shorter(self._wait_removals()) is not None:
            changed = True
        return changed

    def _wait_removals(self) -> Any:
        for index in range(len(self.best) - 1, -1, -1):
            if self.best[index].delay != delays.NO_DELAY:
                yield index, [s.with_delay(delays.NO_DELAY) if j == index else s for j, s in enumerate(self.best)]

    def _single_deletions(self, start: int) -> Any:
        """Each step from start down, deleted (with its users), or else only its wait."""
        for index in range(start, -1, -1):
            if self._deletable(index):
                yield index, without(self.best, with_users(self.best, index))
                if self.best[index].delay != delays.NO_DELAY:
                    yield index, [s.with_delay(delays.NO_DELAY) if j == index else s for j, s in enumerate(self.best)]

    def _rules(self) -> bool:
        changed = False
        for index in range(len(self.best)):
            if index >= len(self.best):
                break
            step = self.best[index]
            if step.results or not self._deletable(index):
                continue
            for other, params in self.earlier.get(step.rule, ()):
                arguments = {k: v for k, v in step.arguments.items() if k in params}
                if self.shorter([*self.best[:index], dataclasses.replace(step, rule=other, arguments=arguments), *self.best[index + 1 :]]):
                    changed = True
                    break
        return changed

    def _order(self) -> bool:
        """Neighbouring steps swapped so that the rule Hypothesis samples first comes first, where the program still fails."""
        changed = False
        rank = self.rank
        for index in range(len(self.best) - 1):
            if index + 1 >= len(self.best):
                break
            a, b = self.best[index], self.best[index + 1]
            if rank.get(b.rule, 0) >= rank.get(a.rule, 0) or b.refs() & set(a.results):
                continue
            if not (self._deletable(index) and self._deletable(index + 1)):
                continue
            # each keeps its own wait: the swap changes only which call comes first
            if self.shorter([*self.best[:index], b, a, *self.best[index + 2 :]]):
                changed = True
        return changed

    def _values(self) -> bool:
        changed = self._equal_values()
        # the last step first: its candidates replay from the latest checkpoint, and an earlier
        # number bisected while later ones are still large is bisected again once they are small
        # (a donation that needs to exceed a mint of 1206693 shares, then of 1)
        for index in range(len(self.best) - 1, -1, -1):
            if index >= len(self.best):
                continue
            step = self.best[index]
            for name, value in step.arguments.items():
                domain = self.domains.get((step.rule, name))
                if domain is None or (isinstance(value, dict) and "ref" in value):
                    continue
                kept = self._minimize_argument(index, name, value, domain)
                changed = changed or kept
                if index >= len(self.best):
                    break
        return changed

    def _equal_values(self) -> bool:
        """Arguments of one strategy holding the same value in several steps (an account that deposits, then withdraws), made smaller together."""
        groups: dict[tuple[Any, str], list[tuple[int, str]]] = {}
        for index, step in enumerate(self.best):
            for name, value in step.arguments.items():
                domain = self.domains.get((step.rule, name))
                if domain is not None and not (isinstance(value, dict) and "ref" in value):
                    groups.setdefault((domain.key(), _value_key(value)), []).append((index, name))
        changed = False
        for _, places in groups.items():
            if len(places) < 2:
                continue
            index, name = places[0]
            if index >= len(self.best) or any(i >= len(self.best) for i, _ in places):
                continue
            value = self.best[index].arguments[name]
            domain = self.domains[(self.best[index].rule, name)]

            def fails(candidate_value: Any, places: list[tuple[int, str]] = places) -> list[RecordedStep] | None:
                if any(i >= len(self.best) for i, _ in places):
                    return None
                candidate = list(self.best)
                for i, n in places:
                    candidate[i] = candidate[i].with_arguments({n: candidate_value})
                return candidate

            before = self.passes[self.current].kept
            self._minimize_value(domain, value, fails)
            changed = changed or self.passes[self.current].kept > before
        return changed

    def _minimize_value(self, domain: Domain, value: Any, build: Callable[[Any], Any], repaired: Callable[[Any], bool] | None = None) -> None:
        """domain.minimize(value) over the programs build(v) makes, its questions answered a batch at a time (candidates.py)."""
        probe_in_batches(lambda fails: domain.minimize(value, fails, self.hints), build, self.first_shorter, self.tries.workers, repaired)

    def _minimize_argument(self, index: int, name: str, value: Any, domain: Domain) -> bool:
        """Make one argument as small as its domain allows while the program still fails; whether it changed."""

        def fails(candidate_value: Any) -> list[RecordedStep] | None:
            if index >= len(self.best):
                return None
            step = self.best[index]
            return [*self.best[:index], step.with_arguments({name: candidate_value}), *self.best[index + 1 :]]

        before = self.passes[self.current].kept
        self._minimize_value(domain, value, fails, (lambda candidate: self.repaired(candidate, index)) if self.operands is not None else None)
        return self.passes[self.current].kept > before

    def repaired(self, candidate: list[RecordedStep], index: int) -> bool:
        """The candidate (step index changed) with one later argument replaced by the other side of a comparison its replay
        met it in, as Redqueen does.

        A quote that matched a price computed from the changed step no longer matches: the
        replay compared the quote with the new price, which is the value to try. An address
        compared for equality (an inbox the contract derives from the account that changed)
        takes the other side. An argument no comparison met is left as it is.
        """
        if self.operands is None:
            return False
        met = self.operands(candidate, index)
        return bool(self.first_shorter(self._fixes(candidate, index, met)))

    def _fixes(self, candidate: list[RecordedStep], index: int, met: Met) -> Any:
        for j in range(index + 1, len(candidate)):
            for name, value in candidate[j].arguments.items():
                domain = self.domains.get((candidate[j].rule, name))
                if isinstance(domain, AddressDomain):
                    values = _addresses_compared(domain, value, met.equalities)
                elif isinstance(domain, IntDomain) and isinstance(value, int):
                    word = value % 2**256
                    others = list(dict.fromkeys(o for a, o in met.sides if a == word))[:REPAIRS]
                    values = [v for other in others for v in (other, other + 1, other - 1) if domain.contains(v)]
                else:
                    continue
                for v in values:
                    if v != value:
                        yield True, [*candidate[:j], candidate[j].with_arguments({name: v}), *candidate[j + 1 :]]

    def at_boundary(self, index: int, value: int) -> bool | None:
        """Whether step index of the best program compared one of its arguments with value, a neighbour of it or itself (a minimum
        price, a code that must match), or value is one of the contracts' own numbers: the number sits where the contract draws a
        line. None: no comparisons are recorded."""
        if self.operands is None or index >= len(self.best):
            return None
        if any(value + d in self.hints for d in (-1, 0, 1)):
            return True
        key = tuple(s.key for s in self.best[: index + 1])
        if key not in self.boundaries:
            if len(self.boundaries) > 256:
                self.boundaries.clear()
            met = self.operands(self.best[: index + 1], index)
            self.boundaries[key] = frozenset([*(o + d for o in met.operands for d in (-1, 0, 1)), *met.matched])
        return value in self.boundaries[key]

    def _accounts(self) -> bool:
        return coupled.accounts(self)

    def _together(self) -> bool:
        return len(self.best) <= PAIRS_UP_TO and coupled.pairs(self)

    def _scan(self) -> bool:
        return coupled.scan(self)

    def _merge(self) -> bool:
        changed = False
        i = 0
        while i < len(self.best) and len(self.best) <= MERGE_UP_TO:
            j = i + 1
            while j < len(self.best):
                if self.first_shorter((True, c) for c in self._merged(i, j)):
                    changed = True
                    break
                j += 1
            else:
                i += 1
        return changed

    def _merged(self, i: int, j: int) -> list[list[RecordedStep]]:
        """Step i's numbers moved onto step j's (same rule, same other arguments): without step i if nothing is left of it, then with what is left."""
        a, b = self.best[i], self.best[j]
        if a.rule != b.rule or a.results or b.results or not self._deletable(i):
            return []
        moved = {}
        left = {}
        for name, value in a.arguments.items():
            domain = self.domains.get((a.rule, name))
            other = b.arguments.get(name)
            if isinstance(domain, IntDomain) and isinstance(value, int) and isinstance(other, int) and value > 0 and other >= 0:
                total = min(domain.hi, other + value)
                if total == other:
                    return []  # step j's number is at its bound: nothing moves
                moved[name], left[name] = total, value - (total - other)
            elif value != other:
                return []
        if not moved:
            return []
        step_j = b.with_arguments(moved)
        program = [*self.best[:j], step_j, *self.best[j + 1 :]]
        kept = [*program[:i], a.with_arguments(left), *program[i + 1 :]]
        return [without(program, {i}), kept] if all(v == 0 for v in left.values()) else [kept]

    def _waits(self) -> bool:
        changed = False
        # A wait left as drawn (or as short as fails with the steps around it) can leave steps
        # needed only because the wait is short (ten rewards funded where one would do, had
        # the clock run longer). With every wait longer, the same deletions are tried again;
        # the bisection below takes the waits back down.
        for factor in LONGER_WAITS:
            if all(s.delay == delays.NO_DELAY for s in self.best):
                break
            longer = self.attempt([s.with_delay(delays.scale(s.delay, factor)) for s in self.best])
            if longer is None:
                continue
            saved = self.best, self.found
            self.best, self.found = longer.steps, longer
            self._singles()
            if len(self.best) < len(saved[0]):
                changed = True
            else:
                self.best, self.found = saved  # nothing went: the waits stay as they were
        shorter = shorten_waits(self.best, self.attempt)
        if shorter is not None and shorter.steps != self.best:
            self.keep(shorter)
            changed = True
        return changed

    def _pairs(self) -> bool:
        if len(self.best) > PAIRS_UP_TO:
            self.pairs_done = False
            return False
        changed = False
        at = self.first_shorter(self._pair_deletions(0, 1))
        while at is not None:
            changed = True
            at = self.first_shorter(self._pair_deletions(*at))  # the same (i, j) now names other steps
        self.pairs_done = True
        return changed

    def _pair_deletions(self, start_i: int, start_j: int) -> Any:
        for i in range(start_i, len(self.best)):
            for j in range(start_j if i == start_i else i + 1, len(self.best)):
                if self._deletable(i) and self._deletable(j):
                    yield (i, j), without(self.best, with_users(self.best, i) | with_users(self.best, j))

    def _reroute(self) -> bool:
        """Delete a step that took a value from one bundle and put it into another, the value's producer now routing it there itself."""
        changed = False
        index = len(self.best) - 1
        while index > 0:
            if self.first_shorter((True, c) for c in list(self._rerouted(index))):
                changed = True
            index = min(index - 1, len(self.best) - 1)
        while self.first_shorter(coupled.rule_swaps(self)):
            changed = True
        return changed

    def _rerouted(self, index: int) -> Any:
        yield from self._moved(index)
        if len(self.best) <= PAIRS_UP_TO and self._deletable(index):
            # a step that changed a value's state in place (a filtered bundle's payment made
            # authorized), deleted while another step's argument changes so that it needs no change
            base = without(self.best, with_users(self.best, index))
            for k, other in enumerate(base):
                for name, value in other.arguments.items():
                    domain = self.domains.get((other.rule, name))
                    if domain is None or (isinstance(value, dict) and "ref" in value):
                        continue
                    for simple in _simple_values(domain, value)[:-1]:
                        yield [*base[:k], other.with_arguments({name: simple}), *base[k + 1 :]]

    def _moved(self, index: int) -> Any:
        step = self.best[index]
        refs = [(k, label) for k, v in step.arguments.items() if (label := ref_of(v)) is not None]
        results = step.results
        if len(refs) != 1 or len(results) != 1 or not self._deletable(index):
            return
        taken, moved = refs[0][1], results[0]
        producer = next((i for i in range(index) if taken in self.best[i].results), None)
        if producer is None:
            return
        # the producer's value is named as the deleted step named it; later uses follow the name
        renamed = [moved if label == taken else label for label in self.best[producer].results]
        base = list(self.best)
        base[producer] = dataclasses.replace(base[producer], results=tuple(renamed))
        base = without(base, {index})
        if any(_uses(s, taken) for s in base):
            return  # the value is also used as it was elsewhere: not a plain move
        step_p = base[producer]
        for name, value in step_p.arguments.items():
            domain = self.domains.get((step_p.rule, name))
            if domain is None or (isinstance(value, dict) and "ref" in value):
                continue
            for simple in _simple_values(domain, value):
                yield [*base[:producer], step_p.with_arguments({name: simple}), *base[producer + 1 :]]

    def _relabelled(self) -> Minimized | None:
        """The best program with its bundle values numbered from 0 again, replayed for its lines."""
        if self.found is None:
            return None
        final = self._attempt(relabel(self.best))
        if final is not None and len(final.steps) == len(self.best):
            return final
        return self.found


def _addresses_compared(domain: AddressDomain, value: Any, equalities: list[tuple[int, int]]) -> list[Any]:
    """The values an address argument could take from the equalities a replay met with it on one side, once each, in the order met."""
    word = domain.word_of(value)
    if word is None:
        return []
    found: list[Any] = []
    for a, other in equalities:
        v = domain.value_of(other) if a == word else None
        if v is not None and v not in found:
            found.append(v)
    return found[:REPAIRS]


def _uses(step: RecordedStep, label: str) -> bool:
    return label in step.refs()


def _simple_values(domain: Domain, value: Any) -> list[Any]:
    """A few values of a domain to try in place of value: its smallest, and value itself."""
    seen: list[Any] = []

    def collect(v: Any, repair: bool = False) -> bool:
        if v not in seen:
            seen.append(v)
        return False  # never "fails": minimize() walks down through its simplest candidates

    domain.minimize(value, collect)
    return [v for v in seen[:3] if v != value] + [value]


def _value_key(value: Any) -> str:
    """An argument's recorded value as a key."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
