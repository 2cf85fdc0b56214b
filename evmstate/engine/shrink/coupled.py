"""Values that fail only together, made smaller together: the shrinker's passes for coupled arguments.

The values pass (shrink.py) makes one argument smaller at a time (or a group of equal values of
one strategy). Some programs fail only while two values keep a relation, and stay where they
were found when either moves alone. These passes move them together, each candidate judged as
every other (the first kept wins, in the order below, whoever replays it):

- accounts: the accounts a program uses renamed, in the order it first uses them, to the first
  accounts (a stake by accounts[1] and a claim by accounts[0] become a stake by accounts[0] and a
  claim by accounts[1]), or two of them swapped; an account merged into another the program uses
  (every accounts[2] made accounts[0]), later steps repaired with the comparisons the replay met
  (an address the contract derives from the account: its inbox). Only toward programs whose
  accounts, read in order, are lexicographically smaller, so no two candidates undo each other.
- scan: a number tried from SMALL_TRIED up to SCAN_UP_TO, one after another, the least that
  fails kept: where failing is not monotone (a hash of it that must be small), the values pass's
  bisection stops anywhere. Only a number that is not one of the contracts' own, that its step
  did not compare with itself or a neighbour (a code that must match, a minimum price: no
  smaller one can do), and whose next number up does not fail (else it is a line, not luck);
  only while comparisons are recorded (guidance on, either backend).
- scale (a pass of its own, before balance and values move numbers): every number above
  SCAN_UP_TO of the program, else of one step, scaled down together by one factor, found by
  bisection: two amounts whose product must pass a floor (a pool's first deposit, isqrt(a0 * a1)
  > 1000) and whose ratio sets what a later step gets walk that hyperbola one number at a time,
  each lowering the other's floor; scaled together they reach it in one bisection, and the
  one-at-a-time walk only finishes each number;
- together: two numbers above SCAN_UP_TO of two steps lowered together, the later keeping its
  ratio to the earlier (or one more, for the contract's rounding), its difference, or made equal
  to it: a price and the quote that must match it. The earlier tries its bound, then the
  contracts' own numbers, then bisection. Not a number its step compared with a neighbour.
- trade: two or more equal small numbers of one kind (at most SCAN_UP_TO above their target) set to
  one above it while a large number of another step grows by as many bits as keeps the program
  smaller: a mint and a redeem of 151 shares after a donation of 1006622516, where a donation of
  2013245032 and a share each fail the same way. Neither the scale nor the equal numbers lowered
  together can take them there: the donation must grow for the shares to go down. The values pass
  then bisects the large number down from where the trade left it.
- reroute's rules: a step deleted while another step calls an earlier rule (a mint that needed
  the step before it, where a deposit alone fails the same way).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator, Protocol

from ...domains import SMALL_TRIED, AddressDomain, IntDomain
from . import compared
from .candidates import probe_in_batches
from .edits import deletions
from .outcome import size
from ..recorded import RecordedStep


class Shrinker(Protocol):
    """What these passes use of shrink.Shrinker."""

    best: list[RecordedStep]
    domains: dict[tuple[str, str], Any]
    hints: tuple[int, ...]
    fixed: frozenset[str]
    earlier: dict[str, list[tuple[str, frozenset[str]]]]
    operands: Callable[..., Any] | None
    scanned: set[Any]
    tries: Any
    floors: dict[tuple[int, str, int], tuple[int, int, bool]]

    def first_shorter(self, candidates: Any) -> Any: ...

    def attempt(self, candidate: list[RecordedStep]) -> Any: ...

    def repaired(self, candidate: list[RecordedStep], index: int) -> bool: ...

    def at_boundary(self, index: int, value: int, hints: bool = True) -> bool | None: ...

# the highest number the scan tries (from SMALL_TRIED up): a value that one in 256 is has one
# below it with odds 1 - (255/256)**1024, 98%
SCAN_UP_TO = 1024
# a number this far from its target, or nearer, sitting at a line, is moved along with an earlier one (small_couples)
PINNED_UP_TO = 2**16
# pairs of numbers tried together, at most (the first in program order)
PAIRS = 15
# the contracts' numbers a pair tries, at most, before it bisects
PAIR_HINTS = 8
# numbers scaled together are bisected down to within 1/SCALE_PRECISION of the least that fails (the values pass
# finishes each)
SCALE_PRECISION = 32
# (a group of small numbers, a large number) couples a trade tries, at most
TRADES = 8
# programs of at most this many steps are tried with a step deleted while another calls an earlier rule
RULE_SWAPS_UP_TO = 6
# programs of at most this many steps have their renamed accounts repaired (a replay for the comparisons each),
# the first RENAMES_REPAIRED renames at most
REPAIRED_UP_TO = 12
RENAMES_REPAIRED = 8

Place = tuple[int, str]  # (step index, argument name)


# -- accounts ---------------------------------------------------------------------------------


def account_places(steps: list[RecordedStep], domains: dict[tuple[str, str], Any]) -> list[tuple[int, str, int]]:
    """(step, argument, account index) of every argument an AddressDomain drew as an account, in program order."""
    places = []
    for index, step in enumerate(steps):
        for name, value in step.arguments.items():
            if (
                isinstance(domains.get((step.rule, name)), AddressDomain) and isinstance(value, dict)
                and isinstance(value.get("account"), int)
            ):
                places.append((index, name, value["account"]))
    return places


def renamed(
    steps: list[RecordedStep], domains: dict[tuple[str, str], Any], mapping: dict[int, int]
) -> list[RecordedStep] | None:
    """The program with each account i made mapping[i]; None where an argument's strategy cannot draw the new account.
    """
    out = list(steps)
    for index, name, account in account_places(steps, domains):
        new = mapping.get(account, account)
        if new == account:
            continue
        if not domains[(steps[index].rule, name)].allows(new):
            return None
        out[index] = out[index].with_arguments({name: {"account": new}})
    return out


def account_renames(
    steps: list[RecordedStep], domains: dict[tuple[str, str], Any]
) -> Iterator[tuple[int, list[RecordedStep]]]:
    """(first step changed, program): the accounts renamed in order of first use, then each swap of two, then each
    merged into a lower one.

    Each is smaller than steps: its accounts, read in program order, come first lexicographically.
    """
    places = account_places(steps, domains)
    order = [account for _, _, account in places]
    used = list(dict.fromkeys(order))
    if not used:
        return
    mappings: list[dict[int, int]] = [dict(zip(used, range(len(used))))]
    mappings += [{u: v, v: u} for k, u in enumerate(sorted(used)) for v in sorted(used)[k + 1 :]]
    mappings += [{u: v} for u in sorted(used, reverse=True) for v in sorted(used) if v < u]
    seen: set[tuple[int, ...]] = set()
    for mapping in mappings:
        after = [mapping.get(a, a) for a in order]
        if after >= order or tuple(after) in seen:
            continue
        seen.add(tuple(after))
        candidate = renamed(steps, domains, mapping)
        if candidate is not None:
            first = next(i for (i, _, a), b in zip(places, after) if a != b)
            yield first, candidate


def accounts(shrinker: Shrinker) -> bool:
    """The accounts pass: renames, swaps and merges of the accounts the best program uses, each repaired where it does
    not fail alone.
    """
    changed = False
    while True:
        kept = shrinker.first_shorter((True, c) for _, c in account_renames(shrinker.best, shrinker.domains))
        if kept is None and shrinker.operands is not None and len(shrinker.best) <= REPAIRED_UP_TO:
            # none failed as it stood: each again with a later argument set to what the replay compared it with
            for first, candidate in list(account_renames(shrinker.best, shrinker.domains))[:RENAMES_REPAIRED]:
                if shrinker.repaired(candidate, first):
                    kept = True
                    break
        if kept is None:
            return changed
        changed = True


# -- pairs of numbers -------------------------------------------------------------------------


def number_places(steps: list[RecordedStep], domains: dict[tuple[str, str], Any]) -> list[Place]:
    """Every argument an IntDomain drew, not at the value it shrinks toward, in program order."""
    places = []
    for index, step in enumerate(steps):
        for name, value in step.arguments.items():
            domain = domains.get((step.rule, name))
            if isinstance(domain, IntDomain) and domain.contains(value) and value != domain.target:
                places.append((index, name))
    return places


def moved_along(x: int, y: int, new_x: int) -> list[int]:
    """Where y goes when x goes to new_x: the same ratio (rounded down, and one more), the same difference, equal."""
    ratio = y * new_x // x if x else y
    return list(dict.fromkeys([ratio, ratio + 1, y - (x - new_x), new_x]))


def large(shrinker: Shrinker, place: Place) -> bool:
    step = shrinker.best[place[0]]
    return abs(step.arguments[place[1]] - shrinker.domains[(step.rule, place[1])].target) > SCAN_UP_TO


def pair_candidates(
    steps: list[RecordedStep], domains: dict[tuple[str, str], Any], a: Place, b: Place, new_x: int
) -> Iterator[tuple[bool, list[RecordedStep]]]:
    (i, name_a), (j, name_b) = a, b
    x, y = steps[i].arguments[name_a], steps[j].arguments[name_b]
    domain_b = domains[(steps[j].rule, name_b)]
    for new_y in moved_along(x, y, new_x):
        if new_y != y and domain_b.contains(new_y) and abs(new_y) <= abs(y):
            out = list(steps)
            out[i] = out[i].with_arguments({name_a: new_x})
            out[j] = out[j].with_arguments({name_b: new_y})
            yield True, out


def lower_pair(shrinker: Shrinker, a: Place, b: Place) -> bool:
    """Lower a's number with b's moving along (moved_along): its bound, the contracts' numbers, then by bisection;
    whether it changed.
    """
    length = len(shrinker.best)
    (i, name_a) = a
    domain = shrinker.domains[(shrinker.best[i].rule, name_a)]

    def value() -> int | None:
        return shrinker.best[i].arguments.get(name_a) if len(shrinker.best) == length else None

    def fails(new_x: int) -> bool:
        return (
            value() is not None and domain.contains(new_x)
            and bool(shrinker.first_shorter(pair_candidates(shrinker.best, shrinker.domains, a, b, new_x)))
        )

    x = value()
    if not isinstance(x, int) or x <= domain.target:
        return False  # only toward the bound from above: numbers below 0 are left to the values pass
    tried = [
        domain.target, *sorted(h for h in shrinker.hints if domain.target < h < x and domain.contains(h))[:PAIR_HINTS],
    ]
    below = None  # the highest value tried that did not fail
    for v in tried:
        if fails(v):
            break
        below = v
    else:
        if not fails(x - 1):
            return False
        below = domain.target
    # bisection between the highest that did not fail and the value kept
    while (high := value()) is not None and below is not None and high - below > 1:
        middle = (below + high) // 2
        if not fails(middle):
            below = middle
    return True


def pairs(shrinker: Shrinker) -> bool:
    """The together pass: each two numbers of two steps lowered together, the first PAIRS pairs of numbers above
    SCAN_UP_TO, then the first PAIRS pairs of a number and a later small one that sits at a line (small_couples()).

    (Other numbers up to SCAN_UP_TO the values pass and the scan try one by one.)
    """
    numbers = number_places(shrinker.best, shrinker.domains)
    places = [p for p in numbers if large(shrinker, p)]
    # a number its step compared with itself or a neighbour sits at the contract's line: the values pass tried below it
    free = [p for p in places if not shrinker.at_boundary(p[0], shrinker.best[p[0]].arguments[p[1]])]
    couples = [(a, b) for k, a in enumerate(places) for b in places[k + 1 :] if a[0] != b[0] and a in free][:PAIRS]
    couples += small_couples(shrinker, numbers)
    changed = False
    for a, b in couples:
        if (
            max(a[0], b[0]) >= len(shrinker.best) or a not in number_places(shrinker.best, shrinker.domains)
            or b not in number_places(shrinker.best, shrinker.domains)
        ):
            continue
        changed = lower_pair(shrinker, a, b) or changed
    return changed


def small_couples(shrinker: Shrinker, numbers: list[Place]) -> list[tuple[Place, Place]]:
    """Pairs of numbers where the later is small and sits at a line its step compared it with, and the earlier is not
    at one: the earlier drew the line (a borrow of exactly half a deposit, where the deposit is 30 and the borrow 15).
    One at a time neither moves; together, along their ratio, both do. The contracts' own numbers do not count as lines
    here: small ones are in every contract's code."""
    def offset(place: Place) -> int:
        step = shrinker.best[place[0]]
        return abs(step.arguments[place[1]] - shrinker.domains[(step.rule, place[1])].target)

    def at_line(place: Place) -> bool:
        return bool(shrinker.at_boundary(place[0], shrinker.best[place[0]].arguments[place[1]], hints=False))

    movable = [p for p in numbers if offset(p) > 0]
    pinned = [p for p in movable if offset(p) <= PINNED_UP_TO and at_line(p)]
    if not pinned:
        return []
    return [(a, b) for a in movable if a not in pinned for b in pinned if a[0] < b[0]][:PAIRS]


# -- numbers scaled together ------------------------------------------------------------------


def scale_groups(steps: list[RecordedStep], domains: dict[tuple[str, str], Any]) -> list[list[Place]]:
    """The numbers scaled together: every number of the program above SCAN_UP_TO from its target (and above it), then
    each step's where it has two or more and they are not the program's."""
    places = [
        (i, name) for i, name in number_places(steps, domains)
        if steps[i].arguments[name] - domains[(steps[i].rule, name)].target > SCAN_UP_TO
    ]
    groups = [places] if len(places) > 1 else []
    for index in dict.fromkeys(i for i, _ in places):
        own = [p for p in places if p[0] == index]
        if len(own) > 1 and own != places:
            groups.append(own)
    return groups


def scaled(
    steps: list[RecordedStep], domains: dict[tuple[str, str], Any], group: list[Place], distance: int
) -> list[RecordedStep] | None:
    """steps with the group's numbers scaled so that the farthest from its target is distance from it (the others in
    proportion, rounded down); None where a strategy cannot draw one of them."""
    offsets = {p: steps[p[0]].arguments[p[1]] - domains[(steps[p[0]].rule, p[1])].target for p in group}
    top = max(offsets.values())
    out = list(steps)
    for (index, name), offset in offsets.items():
        domain = domains[(steps[index].rule, name)]
        value = domain.target + offset * distance // top
        if not domain.contains(value):
            return None
        out[index] = out[index].with_arguments({name: value})
    return out


def scale_distances(top: int, fails: Callable[[int], bool]) -> tuple[int, int] | None:
    """Ask fails(distance) for the group's scaled programs, as few times as finds the least distance that fails within
    1/SCALE_PRECISION: half first (one replay where they cannot move together), then its bit length by bisection over
    the powers of two, then bisection. (the highest distance found not to fail, the least found to), or None where half
    does not fail."""
    bad = top // 2
    if bad < 1 or not fails(bad):
        return None
    powers = [1 << k for k in range(1, bad.bit_length()) if 1 << k < bad]
    low, high = -1, len(powers)  # powers[high] fails (high == len: bad itself), powers[low] does not
    while high - low > 1:
        middle = (low + high) // 2
        if fails(powers[middle]):
            high = middle
        else:
            low = middle
    good, bad = (powers[low] if low >= 0 else 0), (powers[high] if high < len(powers) else bad)
    while bad - good > max(1, bad // SCALE_PRECISION):
        middle = (good + bad) // 2
        if fails(middle):
            bad = middle
        else:
            good = middle
    return good, bad


def scale(shrinker: Shrinker) -> bool:
    """The scale pass: each group of numbers (scale_groups()) scaled down together; whether any was."""
    changed = False
    if scale_groups(shrinker.best, shrinker.domains):
        # a number that fails at its target alone goes there first, as the values pass would take it: it needs no
        # scaling (an auction's second bid, 0, beside a reserve the first bid must meet)
        for index, name in reversed(number_places(shrinker.best, shrinker.domains)):
            if index < len(shrinker.best) and large(shrinker, (index, name)):
                step = shrinker.best[index]
                target = shrinker.domains[(step.rule, name)].target
                candidate = [*shrinker.best[:index], step.with_arguments({name: target}), *shrinker.best[index + 1 :]]
                changed = shrinker.first_shorter([(True, candidate)]) is not None or changed
    for group in scale_groups(shrinker.best, shrinker.domains):
        if any(p not in number_places(shrinker.best, shrinker.domains) for p in group) or not any(
            large(shrinker, p) for p in group
        ):
            continue  # an earlier group's scaling took a number to its target, or all within SCAN_UP_TO of theirs
        base = list(shrinker.best)
        top = max(base[i].arguments[n] - shrinker.domains[(base[i].rule, n)].target for i, n in group)

        def build(distance: int, base: list[RecordedStep] = base, group: list[Place] = group) -> Any:
            # scaled from the program the group was taken from, while it stands at its length
            return scaled(base, shrinker.domains, group, distance) if len(shrinker.best) == len(base) else None

        before = shrinker.best
        ends: list[tuple[int, int] | None] = []  # the last run's, with every answer known
        probe_in_batches(
            lambda fails: ends.append(scale_distances(top, fails)), build, shrinker.first_shorter,
            shrinker.tries.workers,
        )
        changed = changed or shrinker.best is not before
        floors = scaled(base, shrinker.domains, group, ends[-1][0]) if ends and ends[-1] and ends[-1][0] else None
        if floors is not None and len(shrinker.best) == len(base):
            # each number's least is expected at or above where it stood scaled down one step less: its values pass
            # bisects from there (IntDomain.minimize's near), not from its bound
            for index, name in group:
                shrinker.floors[(index, name, len(base))] = (
                    shrinker.best[index].arguments[name], floors[index].arguments[name], False,
                )
    return changed


# -- small numbers traded for a larger one ----------------------------------------------------


def trade_groups(steps: list[RecordedStep], domains: dict[tuple[str, str], Any]) -> list[list[Place]]:
    """The numbers more than one and at most SCAN_UP_TO above their target, those of one kind (their domain's key)
    and value together: the largest groups first, then in program order."""
    groups: dict[tuple[Any, int], list[Place]] = {}
    for index, name in number_places(steps, domains):
        value = steps[index].arguments[name]
        domain = domains[(steps[index].rule, name)]
        if 1 < value - domain.target <= SCAN_UP_TO:
            groups.setdefault((domain.key(), value), []).append((index, name))
    return sorted(groups.values(), key=len, reverse=True)


def traded(
    steps: list[RecordedStep], domains: dict[tuple[str, str], Any], group: list[Place], far: Place, shift: int
) -> list[RecordedStep] | None:
    """steps with the group's numbers one above their target and far's distance from its target shifted left by
    shift bits; None where a strategy cannot draw one of them or the program would not be smaller (outcome.size)."""
    out = list(steps)
    for index, name in group:
        domain = domains[(steps[index].rule, name)]
        if not domain.contains(domain.target + 1):
            return None
        out[index] = out[index].with_arguments({name: domain.target + 1})
    index, name = far
    domain = domains[(steps[index].rule, name)]
    grown = domain.target + ((steps[index].arguments[name] - domain.target) << shift)
    if not domain.contains(grown):
        return None
    out[index] = out[index].with_arguments({name: grown})
    return out if size(out) < size(steps) else None


def trade(shrinker: Shrinker) -> bool:
    """The trade pass: a group of two or more equal small numbers (trade_groups()), one of them at a line its step
    compared it with, set to one above their target while a large number of another step grows, the first TRADES
    couples; whether one was kept.

    Each couple tries the large number doubled, then grown by as many bits as the group gives up less one (the most
    that leaves the program smaller), and where that fails, the least shift between the two by bisection: two replays
    for a couple that cannot trade. Where a shift is kept, the number's least is expected above it shifted one bit
    less (shrinker.floors), where the values pass of the next round starts its bisection.
    """
    best = shrinker.best
    larges = [p for p in number_places(best, shrinker.domains) if large(shrinker, p)]
    if not larges:
        return False
    # a group one of whose numbers sits at a line its step compared it with (a redeem of 151 shares that burns 152):
    # the line may move with a number of another step; a number no comparison met (a nonce whose hash must be small)
    # would not
    groups = [
        g for g in trade_groups(best, shrinker.domains)
        if len(g) > 1 and any(shrinker.at_boundary(i, best[i].arguments[name], hints=False) for i, name in g)
    ]
    couples = [(g, far) for g in groups for far in larges if far not in g][:TRADES]
    for group, far in couples:
        base = shrinker.best
        if len(base) != len(best):
            return True
        shifts = [s for s in range(1, 257) if traded(base, shrinker.domains, group, far, s) is not None]
        if not shifts:
            continue

        def kept(shift: int, base: list[RecordedStep] = base, group: list[Place] = group, far: Place = far) -> bool:
            candidate = traded(base, shrinker.domains, group, far, shift)
            return candidate is not None and shrinker.first_shorter([(True, candidate)]) is not None

        low, high = 0, None  # the shift below the least kept (0: none tried with the group lowered), the least kept
        if kept(shifts[0]):
            high = shifts[0]
        elif len(shifts) > 1 and kept(shifts[-1]):
            low, high = shifts[0], shifts[-1]
            while high - low > 1:
                middle = (low + high) // 2
                if kept(middle):
                    high = middle
                else:
                    low = middle
        if high is None:
            continue
        index, name = far
        target = shrinker.domains[(shrinker.best[index].rule, name)].target
        # the group one above its target with the number shifted one bit less did not fail (at shift 0: the values
        # pass's try of the group at its neighbour)
        shrinker.floors[(index, name, len(shrinker.best))] = (
            shrinker.best[index].arguments[name], target + ((base[index].arguments[name] - target) << (high - 1)),
            False,
        )
        return True
    return False


# -- the scan ---------------------------------------------------------------------------------


def scan(shrinker: Shrinker) -> bool:
    """The scan pass: each number not at a boundary its step compared it with tried from SMALL_TRIED up, the least that
    fails kept.

    Only where comparisons are recorded (guidance on): without them a boundary (a minimum price)
    cannot be told from a lucky value, and the scan would pay SCAN_UP_TO replays for each.
    """
    changed = False
    for index, name in number_places(shrinker.best, shrinker.domains):
        if index >= len(shrinker.best) or name not in shrinker.best[index].arguments:
            continue
        step = shrinker.best[index]
        value, domain = step.arguments[name], shrinker.domains[(step.rule, name)]
        target = domain.target
        key = (index, step.rule, name, value)
        if not isinstance(value, int) or value - target <= SMALL_TRIED or key in shrinker.scanned:
            continue
        shrinker.scanned.add(key)
        if shrinker.at_boundary(index, value) is not False:
            continue
        met = shrinker.operands(shrinker.best, index) if shrinker.operands is not None else None
        if met is not None and value in compared.clock_values(met, value, 0):
            # a number the machine waits by, landing the clock on a time a later step compared it with (a delay that
            # must end exactly when an operation is executed): at a line, which the values pass confirmed
            continue
        if not domain.contains(value + 1):
            # its strategy's bound: the least that fails at the top of the range (a mint that must overflow a total
            # with what an earlier mint put there) is at the line the bound draws, not a lucky value
            continue
        if (
            shrinker.attempt(
                [*shrinker.best[:index], step.with_arguments({name: value + 1}), *shrinker.best[index + 1 :]]
            )
            is not None
        ):
            continue  # one more fails too: a line the contract draws (an amount above a balance), not a lucky value

        def candidates(
            index: int = index, name: str = name, value: int = value, target: int = target
        ) -> Iterator[tuple[int, list[RecordedStep]]]:
            for v in range(target + SMALL_TRIED, min(value, target + SCAN_UP_TO + 1)):
                if domain.contains(v):
                    yield (
                        v,
                        [
                            *shrinker.best[:index], shrinker.best[index].with_arguments({name: v}),
                            *shrinker.best[index + 1 :],
                        ],
                    )

        found = shrinker.first_shorter(candidates())
        if found is not None:
            changed = True
            shrinker.scanned.add((index, step.rule, name, found))
    return changed


# -- a step deleted while another calls an earlier rule ---------------------------------------


def rule_swaps(shrinker: Shrinker) -> Iterator[tuple[bool, list[RecordedStep]]]:
    """Each deletable step deleted (with its users) while the step after it, without results, calls a rule Hypothesis
    samples before its own: that step now does the deleted one's work (a donation, then a mint of one share: one
    deposit). A step before it, or one further on, is not tried: on the shrink benchmark's cases they took 259 of
    reroute's 465 replays and nothing off.
    """
    best = shrinker.best
    if len(best) > RULE_SWAPS_UP_TO:
        return
    for d, base, kept in deletions(best, shrinker.fixed):
        for at, k in enumerate(kept):
            step = base[at]
            if k < d or at > 0 and kept[at - 1] > d:
                continue  # not the first step left after the deleted one
            if step.results or step.rule in shrinker.fixed:
                continue
            for other, params in shrinker.earlier.get(step.rule, ()):
                arguments = {n: v for n, v in step.arguments.items() if n in params}
                yield True, [*base[:at], dataclasses.replace(step, rule=other, arguments=arguments), *base[at + 1 :]]
