"""Shrinking that knows programs: delete steps and make values smaller on the recorded program itself.

Hypothesis shrinks the choices that generated a program, knowing nothing of steps, bundles or
waits; on EVM steps each of its tries replays the whole program. This shrinker works on the
recorded program, where a step names the values it uses, and replays each candidate from a
checkpoint before the first step it changes (replayer.py), so a candidate costs only its
changed suffix. Its passes, repeated until none makes progress:

- chunks: the failing step alone first (with the steps whose values it uses), else with a number set to a value its
  replay compared it with; then the steps it needs through storage (slices.py: a backward slice); then delete runs of
  steps, longest first (half the program, a quarter, ...), as delta debugging does; a step goes together with every
  step that uses a value it produced;
- singles: delete each step (with its users), or else only its wait; then each wait alone again (a deleted step's
  wait passes on to the step after it, which the sweep down has passed): the values' candidates then carry the waits
  the program ends with, and are found replayed when the next round asks them again;
- rules: a step's rule replaced by one Hypothesis samples earlier that takes some of the same
  arguments (as Hypothesis shrinks a rule's choice toward the first);
- order: two neighbouring steps swapped so that the rule sampled first comes first;
- scale: the program's large numbers scaled down together (coupled.scale);
- balance: equal numbers of one strategy lowered together; then, each step from the first, two numbers of one kind far
  apart set to their geometric mean and lowered together (moves.balance);
- values: each argument drawn by strategy() made as small as it can be while the program still fails, the last step's
  first: toward 0 (or the bound nearest it), the first account, empty or zero bytes, fewer items; a number by
  bisection down to the least that still fails;
- accounts, scan, together, trade: values coupled to others, moved together (coupled.py): the accounts
  a program uses renamed or merged, a number that fails only at scattered values tried from the bottom
  up, two numbers lowered keeping their ratio or difference, equal ones lowered while a large one grows, a large one
  given up while one of its kind in another step takes up its amount (moves.shift);
- merge: two steps of one rule whose numbers add up (two deposits of 245 and 255 where one total matters) become one,
  the later taking the earlier's amount up to its bound (as Hypothesis redistributes between two numbers);
- waits: waits made longer where that lets steps go (waits.py); then each wait made
  none where the program still fails, else bisected down to the least that still fails;
- pairs: delete two steps together (while the program is short: PAIRS_UP_TO);
- offset: delete a step while a number of another step, of any rule, takes up its amount (a deposit of 3 gone, the
  withdrawal of the whole balance after it 3 less; while the program is short: moves.OFFSET_UP_TO);
- renumber: delete a step while a small number that later steps share is one less in all of them (an id given out by
  count, named by the steps after it: while the program is short, moves.RENUMBER_UP_TO);
- raise: delete a step while every amount before it is one more (a report that made a share worth more, left out
  where a little more was lent and gained: while the program is short, moves.RAISE_UP_TO);
- later: move a step later while the amounts it moves past are 1 (a gain after a deposit and lending of 1, where before
  them it needed 3: while the program is short, reorders.LATER_UP_TO);
- reroute: delete a step that moved a bundle value (a 3-D Secure completion that made a payment authorized) while an
  argument of the step that produced the value changes so that it lands where the deleted step put it; or while
  another step calls an earlier rule.

A candidate counts only if every step's preconditions, bundle filters and routes hold where it
stands, as Hypothesis could have run it, and it fails with the same signature.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Sequence

from ...domains import SMALL_TRIED, Domain, IntDomain
from . import compared, coupled, moves, reorders, slices, waits
from .. import delays
from .budget import Budget, OutOfBudget, StopReason, cost
from .candidates import InOrder, Tries, probe_in_batches
# shrink.without, ...: part of its interface
from .edits import Minimized, fits, relabel, shorten_waits, with_users, without  # noqa: F401
from ..recorded import RecordedStep
from .outcome import Met, Outcome, PassStats, size

# shrink.passes' interface, as before
__all__ = ["Met", "Minimized", "Outcome", "OutOfBudget", "PassStats", "Shrinker", "StopReason"]


# programs of at most this many steps are tried without every pair of steps ("minimal ... that delete up to two")
PAIRS_UP_TO = 12
# about in order of what each took off the programs per replay over benchmarks/shrink.py's cases (its --passes table, a
# step taken off counted as 64 bits): the passes that delete or merge steps, needing few replays each, first; then
# waits, reroutes, accounts; then the numbers: scale (many in one bisection), balance (two of a step, or equal ones, in
# one), values (one at a time; values before reroute left the vault case a step longer); rules and order, which
# took nothing off there; pairs, offset and renumber late, on programs already short (their candidates grow with the
# square of the length); the trade after every move that only lowers numbers; the scan last, within its budget share
PASSES = (
    "chunks", "singles", "merge", "waits", "reroute", "accounts", "scale", "balance", "values", "rules", "order",
    "pairs", "offset", "renumber", "raise", "later", "together", "trade", "scan",
)
# the passes that are moves of their own (moves.py, reorders.py), by name; the others: the Shrinker's methods
MOVES = {
    "merge": moves.merge, "offset": moves.offset, "renumber": moves.renumber, "raise": moves.raise_earlier,
    "reroute": moves.reroute, "later": reorders.later,
}


class ScanSpent(Exception):
    """Raised inside the scan when it has spent its share of the budget (budget.SCAN_SHARE)."""


class Shrinker:
    """The passes over one failing program, given attempt(candidate): its replay when it fails the same way, else None.

    domains maps (rule, argument) to the Domain of the strategy that drew it. Steps whose rule is
    in fixed always stay. budget: what shrinking may spend (budget.py): each candidate is charged
    its cost in the order the passes try them, whoever replays it, before it is replayed.
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
        budget: Budget | None = None,
        progress: Callable[[int], None] = lambda steps: None,
        hints: tuple[int, ...] = (),
        constants: frozenset[int] = frozenset(),
        operands: Callable[[list[RecordedStep], int], Met] | None = None,
        tries: Tries | None = None,
        accesses: Callable[[list[RecordedStep]], list[slices.Accesses] | None] | None = None,
    ) -> None:
        self.best = list(steps)
        self.earlier = earlier or {}  # rule -> (rule sampled before it, the arguments it takes), ...
        self.rank = rank or {}  # rule -> its place in Hypothesis's order
        self.hints = hints  # numbers the contracts know
        self.constants = constants  # every number their code holds (literals, pushed values): a repair never takes one
        # the comparison operands a candidate's replay met (its arguments' other sides), for repairs
        self._operands = operands
        self.operands = self.met if operands is not None else None
        self._met: set[Any] = set()  # the replays for comparisons charged already
        self.accesses = accesses  # the slots each step of a program read and wrote, in one replay (slices.py)
        self.sliced: set[tuple[str, ...]] = set()  # the programs tried as their backward slice
        self._attempt = attempt
        self.fixed = fixed
        self.domains = domains or {}
        self.budget = budget or Budget()
        self.scan_left = self.budget.scan_allowance()
        self.progress = progress
        self.found: Minimized | None = None
        self.passes = {name: PassStats() for name in PASSES}
        self.current = PASSES[0]
        self.pairs_done = False
        self.tries = tries or InOrder()  # who replays a pass's candidates (candidates.py)
        self.scanned: set[Any] = set()  # the numbers the scan pass tried below: (step, rule, argument, value)
        # at_boundary()'s operands, by the steps up to the one asked
        self.boundaries: dict[tuple[str, ...], frozenset[int]] = {}
        # pass -> the best program (its steps' keys) when the pass last ran to its end and changed nothing: it would
        # again
        self.settled: dict[str, tuple[str, ...]] = {}
        # (step, argument, the best program's steps) of each number the values pass could not make smaller there
        self.settled_numbers: set[tuple[int, str, tuple[str, ...]]] = set()
        # (step, argument, program length) -> (its value, the value its least is expected at or above, whether the
        # values pass found that value its least before): where the scale left a number, or the least the values pass
        # found for it before another number moved (IntDomain.minimize's near)
        self.floors: dict[tuple[int, str, int], tuple[int, int, bool]] = {}
        # (step, argument, program length, value) of each value a number was lowered to whose repairs (repaired()) did
        # not fail: an earlier round's, while other numbers moved, are not replayed again
        self.unrepaired: set[tuple[int, str, int, str]] = set()
        self.rounds = 0
        self.tried: set[str] = set()  # the passes that ran, in any round
        self._in_order = 0  # inside first_shorter: its candidates are charged there, in order
        # while one number is made smaller: the repairs tried for it, (step, argument, value), none of which failed
        self._repairs_tried: set[tuple[int, str, str]] | None = None

    # -- candidates ----------------------------------------------------------------------

    def charge(self, work: int) -> None:
        """Spend work of the budget (and of the scan's share, in the scan); OutOfBudget, or ScanSpent, when there is no
        room for it."""
        self.room(work)
        self.spend(work)

    def spend(self, work: int) -> None:
        self.budget.spent += work
        if self.current == "scan":
            self.scan_left -= work
        self.passes[self.current].work += work

    def room(self, work: int) -> None:
        """Raise as charge() would for work more, spending nothing."""
        if self.current == "scan" and work > self.scan_left:
            raise ScanSpent()
        self.budget.check(work)

    def attempt(self, candidate: list[RecordedStep]) -> Minimized | None:
        if not fits(self.domains, candidate):
            # within its strategies' bounds: a pass that moves numbers (merge, together) never reports one they rule out
            return None
        if not self._in_order:
            self.charge(cost(candidate, self.best))
        self.passes[self.current].runs += 1
        return self._attempt(candidate)

    def met(self, candidate: list[RecordedStep], index: int) -> Met:
        """The comparisons candidate's steps from index on met (a replay of it whole, charged once)."""
        assert self._operands is not None
        key = (tuple(s.key for s in candidate), index)
        if key not in self._met:
            self.charge(len(candidate) + 1)
            self._met.add(key)
        return self._operands(candidate, index)

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
        """The tag of the first (tag, candidate), made from the best program, that shorter() keeps trying them in order;
        None if none.

        Each candidate is charged in that order, up to the one kept, as one process trying them
        one by one would charge them (helpers may replay some beyond it: those are not charged).
        """
        best = self.best
        costs: list[int] = []  # of the candidates handed over, in order
        stop: list[Exception] = []

        def accept(result: Minimized | None) -> bool:
            return result is not None and len(result.steps) <= len(best) and result.steps != best

        def charged() -> Any:
            for tag, c in candidates:
                if c == best or not fits(self.domains, c):
                    continue  # a number its strategy could not draw is never replayed, nor charged
                work = cost(c, best)
                try:
                    self.room(sum(costs) + work)
                except (OutOfBudget, ScanSpent) as exc:
                    stop.append(exc)  # one process would stop before replaying it
                    return
                costs.append(work)
                yield (len(costs) - 1, tag), c

        before = self.tries.elsewhere
        self._in_order += 1
        try:
            found = self.tries.first(charged(), self.attempt, accept)
        finally:
            self._in_order -= 1
            self.passes[self.current].runs += self.tries.elsewhere - before  # those replayed by helpers
        for work in costs if found is None else costs[: found[0][0] + 1]:
            self.spend(work)  # each found room before its replay
        if found is None:
            if stop:
                raise stop[0]
            return None
        self.keep(found[1])
        return found[0][1]

    # -- the passes ----------------------------------------------------------------------

    def run(self) -> Outcome:
        stopped = None
        try:
            changed = True
            while changed:
                changed = False
                self.rounds += 1
                for name in PASSES:
                    changed = self._run_pass(name) or changed
            final = self._relabelled()
            if final is not None:
                self.found = final
        except OutOfBudget as exc:
            stopped = exc.reason
        except KeyboardInterrupt:
            if self.found is None:
                raise
            stopped = StopReason.INTERRUPTED
        minimality = (
            "" if stopped else "minimal among programs that delete up to two steps" if self.pairs_done else "1-minimal"
        )
        return Outcome(
            self.found, minimality, self.passes, stopped, work=self.budget.spent, rounds=self.rounds,
            tried=tuple(p for p in PASSES if p in self.tried),
        )

    def _run_pass(self, name: str) -> bool:
        """One pass, unless it changed nothing when it last ran on this same program; whether it changed it."""
        key = tuple(s.key for s in self.best)
        if self.settled.get(name) == key:
            return False
        self.current = name
        self.tried.add(name)
        started, before = time.perf_counter(), size(self.best)
        try:
            move = MOVES.get(name)
            changed = bool(move(self) if move is not None else getattr(self, f"_{name}")())
        finally:
            stats, after = self.passes[name], size(self.best)
            stats.seconds += time.perf_counter() - started
            stats.steps += before[0] - after[0]
            stats.bits += before[1] - after[1]
        if not changed and tuple(s.key for s in self.best) == key:
            self.settled[name] = key
        return changed

    def _deletable(self, index: int) -> bool:
        return self.best[index].rule not in self.fixed

    def _chunks(self) -> bool:
        changed = moves.last_alone(self)
        changed = slices.sliced(self) or changed
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
                if self.shorter(
                    [
                        *self.best[:index], dataclasses.replace(step, rule=other, arguments=arguments),
                        *self.best[index + 1 :],
                    ]
                ):
                    changed = True
                    break
        return changed

    def _order(self) -> bool:
        """Neighbouring steps swapped so that the rule Hypothesis samples first comes first, where the program still
        fails."""
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

    def _scale(self) -> bool:
        # several large numbers scaled down together (coupled.scale): one bisection where one at a time each lowers the
        # other's floor
        return coupled.scale(self)

    def _balance(self) -> bool:
        # equal numbers lowered together, then a step's two numbers on a hyperbola set to its fewest bits: before any
        # number is lowered alone, so that a later step's numbers are lowered with the earlier ones already small
        changed = moves.equal_values(self)
        for index in range(len(self.best)):
            if index < len(self.best):
                changed = moves.balance(self, index) or changed
        return changed

    def _values(self) -> bool:
        changed = False
        # the last step first: its candidates replay from the latest checkpoint, and an earlier
        # number bisected while later ones are still large is bisected again once they are small
        # (a donation that needs to exceed a mint of 1206693 shares, then of 1)
        for index in range(len(self.best) - 1, -1, -1):
            if index >= len(self.best):
                continue
            # again where a later step's numbers moved since the balance pass tried this step's
            changed = moves.balance(self, index) or changed
            changed = moves.items(self, index) or changed  # lists of one length shortened together
            step = self.best[index]
            for name, value in step.arguments.items():
                domain = self.domains.get((step.rule, name))
                if domain is None or (isinstance(value, dict) and "ref" in value):
                    continue
                # a number made as small as it could be on this same program before (an earlier round, which another
                # number's move then ended) would be again: its candidates are the same
                settled = (index, name, tuple(s.key for s in self.best))
                if settled in self.settled_numbers:
                    continue
                kept = self._minimize_argument(index, name, value, domain)
                if not kept:
                    self.settled_numbers.add(settled)
                changed = changed or kept
                if index >= len(self.best):
                    break
        return changed

    def minimize_value(
        self, domain: Domain, value: Any, build: Callable[[Any], Any], repaired: Callable[[Any], bool] | None = None,
        near: int | None = None, hints: tuple[int, ...] | None = None,
    ) -> None:
        """domain.minimize(value) over the programs build(v) makes, its questions answered a batch at a time
        (candidates.py). hints: the contracts' numbers to try (None: all of them)."""
        tried = self.hints if hints is None else hints

        def minimize(fails: Callable[..., bool]) -> Any:
            if near is not None and isinstance(domain, IntDomain):
                return domain.minimize(value, fails, tried, near)
            return domain.minimize(value, fails, tried)

        probe_in_batches(minimize, build, self.first_shorter, self.tries.workers, repaired)

    def _minimize_argument(self, index: int, name: str, value: Any, domain: Domain) -> bool:
        """Make one argument as small as its domain allows while the program still fails; whether it changed."""

        def fails(candidate_value: Any) -> list[RecordedStep] | None:
            if index >= len(self.best):
                return None
            step = self.best[index]
            return [*self.best[:index], step.with_arguments({name: candidate_value}), *self.best[index + 1 :]]

        before = self.passes[self.current].kept
        self._repairs_tried = set()
        try:
            return self._minimize_number(index, name, value, domain, fails, before)
        finally:
            self._repairs_tried = None
            least = self.best[index].arguments.get(name) if index < len(self.best) else None
            if isinstance(domain, IntDomain) and isinstance(least, int) and abs(least - domain.target) > 2:
                # the least given the other numbers as they stand: when another moves, it is expected near here
                sign = 1 if least > domain.target else -1
                distance = abs(least - domain.target)
                self.floors[(index, name, len(self.best))] = (
                    least, least - sign * max(2, distance // coupled.SCALE_PRECISION), True,
                )

    def _minimize_number(
        self, index: int, name: str, value: Any, domain: Domain, fails: Callable[[Any], Any], before: int
    ) -> bool:
        if self._compared(index, name, value, domain):
            # at a line the contract draws, at a value it compared the argument with
            return self.passes[self.current].kept > before
        if index < len(self.best):
            value = self.best[index].arguments.get(name, value)
        # a number within SMALL_TRIED of its target moves too little to be worth a replay that looks for comparisons to
        # repair
        near = isinstance(domain, IntDomain) and isinstance(value, int) and abs(value - domain.target) <= SMALL_TRIED
        floor = self.floors.get((index, name, len(self.best)))
        floor = floor if floor is not None and floor[0] == value else None
        self.minimize_value(
            domain, value, fails,
            (lambda candidate: self._repaired_once(candidate, index, name)) if self.operands is not None and not near
            else None,
            floor[1] if floor is not None else None,
            # a least found before: the contracts' numbers below it were tried then, and did not fail
            () if floor is not None and floor[2] else None,
        )
        return self.passes[self.current].kept > before

    def _compared(self, index: int, name: str, value: Any, domain: Domain) -> bool:
        """A number set to what its step's replay compared it with (compared.py), smallest first, where the program
        still fails;
        whether it then sits at a line: the next number toward its target does not fail (nothing to bisect)."""
        operands = self.operands
        if (
            operands is None or not isinstance(domain, IntDomain) or not isinstance(value, int)
            or abs(value - domain.target) <= SMALL_TRIED
        ):
            return False
        at, nearer_ones = compared.number_candidates(self.best, index, name, value, domain, operands(self.best, index))
        floor = self.floors.get((index, name, len(self.best)))
        if floor is not None and floor[0] == value and floor[2]:
            # its least found in an earlier round: the values compared below where it is expected were tried then, and
            # did not fail (as the contracts' numbers below it)
            nearer_ones = [
                (tag, c) for tag, c in nearer_ones
                if abs(c[index].arguments[name] - domain.target) >= abs(floor[1] - domain.target)
            ]
        kept = self.first_shorter(nearer_ones)
        if kept is None and not at:
            return False
        if index >= len(self.best) or not isinstance(v := self.best[index].arguments.get(name), int):
            return False
        nearer = v - 1 if v > domain.target else v + 1
        if v == domain.target or not domain.contains(nearer):
            return True
        if kept is None and any(c[index].arguments.get(name) == nearer for _, c in nearer_ones):
            return True  # the next one down was among those compared, and did not fail
        return not self.shorter(
            [*self.best[:index], self.best[index].with_arguments({name: nearer}), *self.best[index + 1 :]]
        )

    def _repaired_once(self, candidate: list[RecordedStep], index: int, name: str) -> bool:
        return compared.repaired_once(self, candidate, index, name)

    def repaired(self, candidate: list[RecordedStep], index: int) -> bool:
        return compared.repaired(self, candidate, index)

    def at_boundary(self, index: int, value: int, hints: bool = True) -> bool | None:
        """Whether step index of the best program compared one of its arguments with value, a neighbour of it or itself
        (a minimum price, a code that must match), or value is one of the contracts' own numbers: the number sits where
        the contract draws a line (hints=False: the contracts' numbers do not count). None: no comparisons are
        recorded."""
        if self.operands is None or index >= len(self.best):
            return None
        if hints and any(value + d in self.hints for d in (-1, 0, 1)):
            return True
        key = tuple(s.key for s in self.best[: index + 1])
        if key not in self.boundaries:
            if len(self.boundaries) > 256:
                self.boundaries.clear()
            met = self.operands(self.best[: index + 1], index)
            others = {*met.operands, *(o for _, o in met.sides)}
            self.boundaries[key] = frozenset([*(o + d for o in others for d in (-1, 0, 1)), *met.matched])
        return value in self.boundaries[key]

    def _accounts(self) -> bool:
        return coupled.accounts(self)

    def _together(self) -> bool:
        return len(self.best) <= PAIRS_UP_TO and coupled.pairs(self)

    def _trade(self) -> bool:
        return len(self.best) <= PAIRS_UP_TO and (coupled.trade(self) or moves.shift(self))

    def _scan(self) -> bool:
        kept = self.passes["scan"].kept
        try:
            return coupled.scan(self)
        except ScanSpent:
            # its share is spent: what it kept stands (a later round's scan stops at once)
            return self.passes["scan"].kept > kept

    def _waits(self) -> bool:
        return waits.waits(self, self._singles)

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

    def _relabelled(self) -> Minimized | None:
        """The best program with its bundle values numbered from 0 again, replayed for its lines."""
        if self.found is None:
            return None
        final = self._attempt(relabel(self.best))
        if final is not None and len(final.steps) == len(self.best):
            return final
        return self.found
