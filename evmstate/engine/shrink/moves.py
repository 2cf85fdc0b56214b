"""Passes that take a step out while another step changes to do its work: merge and reroute.

- last_alone (chunks' first try): the failing step alone, else with a number set to a value its replay compared it
  with (a withdrawal of the whole balance an account holds, where the steps before it built that balance up);

- merge: two steps of one rule whose numbers add up (two deposits of 245 and 255 where one
  total matters; nine withdrawals that together empty an account) become one, the later taking
  the earlier's amount up to its bound (as Hypothesis redistributes between two numbers);
- offset: in a short program, a step deleted while a number of another step, of any rule, takes up
  its amount (a deposit of 3 gone and the withdrawal of the whole balance after it 3 less; a mint of
  1 share gone and the deposit of 1 asset before it 2);
- reroute: delete a step that moved a bundle value (a 3-D Secure completion that made a
  payment authorized) while an argument of the step that produced the value changes so that it
  lands where the deleted step put it; or while the step after it calls an earlier rule
  (coupled.rule_swaps);
- shift (the trade pass, after the trade): a large number given up, to its target or one above it, while a number of
  its kind in another step takes up its amount (a donation of 9.7e47 beside a deposit of 1.2e29, where a withdrawal
  of the whole balance needs a large supply: a deposit of 9.7e47 and a donation of 1, which the scale then takes down
  together with the withdrawal);
- items (the values pass, before a step's arguments are made smaller one at a time): a step's lists of one length lose
  the item at one place together (ids and amounts of a batch transfer, which must be as long as each other: neither
  can lose an item alone);
- balance (the balance pass, each step from the first, before any number is lowered alone; the values pass tries
  it again for a step whose later steps' numbers moved since): two numbers of one kind of a step, far apart, both set
  to their geometric mean (their product held), then lowered together: a pool's first deposit whose product must pass
  a floor has its fewest bits where the two are equal, and one number at a time stops anywhere on the hyperbola.
"""

from __future__ import annotations

import dataclasses
from math import isqrt
from typing import Any, Callable

from ...domains import SMALL_TRIED, AddressDomain, ArrayDomain, Domain, IntDomain
from . import compared, coupled, slices
from .edits import deletion, with_users, without
from .outcome import size
from ..recorded import RecordedStep, ref_of

# programs of at most this many steps are tried with every two steps of one rule merged into one
MERGE_UP_TO = 30
# programs of at most this many steps are tried with a step deleted while another's argument is made simple
REROUTE_UP_TO = 12
# programs of at most this many steps are tried with a step deleted while another step's number takes up its amount
# (its candidates grow with the square of the length and the numbers of two steps: a late pass, on programs the others
# have made short)
OFFSET_UP_TO = 8
# programs of at most this many steps are tried with a step deleted while a small number that later steps share drops
# by one (renumber)
RENUMBER_UP_TO = 12
# programs of at most this many steps are tried with a step deleted while the amounts before it are one more (raise)
RAISE_UP_TO = 8
# programs of at least this many steps are tried first as their failing step alone (chunks)
LAST_ALONE_FROM = 4
# an integer strategy of at least this many values draws amounts an offset moves (below: indices, basis points, flags)
AMOUNT_RANGE = 2**16


def last_alone(shrinker: Any) -> bool:
    """The failing step alone (with the steps whose values it uses and the fixed ones), else with one of its numbers set
    to a value its replay compared it with (a withdrawal of the whole balance an account holds, where the steps before
    built a balance up for it): whether one was kept."""
    best = shrinker.best
    if len(best) < LAST_ALONE_FROM:
        return False
    keep = slices.backward(best, None, shrinker.fixed)  # the slice through bundle values alone
    if len(keep) == len(best):
        return False  # every step is needed by the last or fixed
    candidate = [s for j, s in enumerate(best) if j in keep]
    if shrinker.shorter(candidate):
        return True
    if shrinker.operands is None:
        return False
    last = len(candidate) - 1
    met = shrinker.operands(candidate, last)
    step = candidate[last]
    tried = []
    for name, value in step.arguments.items():
        domain = shrinker.domains.get((step.rule, name))
        if not isinstance(domain, IntDomain) or not isinstance(value, int):
            continue
        word = value % 2**256
        others = list(dict.fromkeys(o for a, o in met.sides if a == word and o not in shrinker.constants))
        for v in others[: compared.REPAIRS]:
            if v != value and domain.contains(v):
                tried.append((v, [*candidate[:last], step.with_arguments({name: v})]))
    return shrinker.first_shorter(tried) is not None


def merge(shrinker: Any) -> bool:
    """Each two steps of one rule merged into the later (merged()), the first kept; whether any was."""
    changed = False
    i = 0
    while i < len(shrinker.best) and len(shrinker.best) <= MERGE_UP_TO:
        j = i + 1
        while j < len(shrinker.best):
            if shrinker.first_shorter((True, c) for c in merged(shrinker, i, j)):
                changed = True
                break
            j += 1
        else:
            i += 1
    return changed


def offset(shrinker: Any) -> bool:
    """Steps deleted while another step's number takes up their amount (offsets()); whether any was."""
    return while_shorter(shrinker, OFFSET_UP_TO, offsets)


def while_shorter(shrinker: Any, up_to: int, candidates: Callable[[Any], Any]) -> bool:
    """The first of candidates(shrinker) that is kept, again and again while the program has at most up_to steps;
    whether any was."""
    changed = False
    while len(shrinker.best) <= up_to and shrinker.first_shorter((True, c) for c in candidates(shrinker)):
        changed = True
    return changed


def offsets(shrinker: Any) -> Any:
    """Each step deleted (with its users) while a number of another step, of any rule, takes up one of its amounts: a
    later number less the amount, then more by it; an earlier number more by it, then less. What a balance, a supply
    or a total holds is often the sum of what steps of different rules moved (a deposit, then a withdrawal of the
    whole balance; a deposit and a mint where one deposit of both amounts does): deleting one step alone changes
    what the other meets, and lowering the other number alone misses the bound it sits at.
    """
    best = shrinker.best
    found: list[tuple[int, list[RecordedStep]]] = []
    for i, step in enumerate(best):
        amounts = sorted({v for name, v in step.arguments.items() if is_amount(shrinker, step, name) and v > 0})
        if not amounts or step.rule in shrinker.fixed:
            continue
        base, kept = deletion(best, i)
        for k, j in enumerate(kept):
            other = base[k]
            if other.rule == step.rule:
                continue  # one rule's amounts: merge moves them
            alike = _alike(shrinker, step, other)
            for name, number in other.arguments.items():
                if not is_amount(shrinker, other, name):
                    continue
                domain = shrinker.domains[(other.rule, name)]
                for amount in amounts:
                    for moved in (number - amount, number + amount) if j > i else (number + amount, number - amount):
                        if domain.contains(moved):
                            found.append((-alike, [*base[:k], other.with_arguments({name: moved}), *base[k + 1 :]]))
    # the steps that act alike first (sorted is stable: the order above among the rest)
    for _, candidate in sorted(found, key=lambda pair: pair[0]):
        yield candidate


def renumber(shrinker: Any) -> bool:
    """Steps deleted while a number later steps share drops by one (renumbered()); whether any was."""
    return while_shorter(shrinker, RENUMBER_UP_TO, renumbered)


def renumbered(shrinker: Any) -> Any:
    """Each step deleted (with its users) while a number that two or more later steps share, at least 1 and at most the
    program's length, is one less in all of them. An id given out by count (the fifth mint's token is 4) and named by
    the steps after it (a stake and an unstake of token 4) moves when one of the steps that counted goes: deleting a
    mint alone leaves the later steps naming a token no one holds, and lowering the id alone leaves it unminted."""
    best = shrinker.best
    for i, step in enumerate(best):
        if step.rule in shrinker.fixed:
            continue
        base, kept = deletion(best, i)
        later = [k for k, j in enumerate(kept) if j > i]
        shared: dict[int, int] = {}
        for k in later:
            for name, value in base[k].arguments.items():
                if _small_number(shrinker, base[k], name, len(best)):
                    shared[value] = shared.get(value, 0) + 1
        for value in sorted(v for v, n in shared.items() if n >= 2):
            candidate = list(base)
            for k in later:
                changes = {
                    name: value - 1 for name, v in base[k].arguments.items()
                    if v == value and _small_number(shrinker, base[k], name, len(best))
                    and shrinker.domains[(base[k].rule, name)].contains(value - 1)
                }
                if changes:
                    candidate[k] = base[k].with_arguments(changes)
            yield candidate


def raise_earlier(shrinker: Any) -> bool:
    """Steps deleted while the amounts of the steps before them are one more (raised()); whether any was."""
    return while_shorter(shrinker, RAISE_UP_TO, raised)


def raised(shrinker: Any) -> Any:
    """Each step deleted (with its users) while every amount of the steps before it is one more. A step that moved a
    price (a gain reported makes a strategy's share worth more) can often be left out where the amounts before it are
    a little larger: the rounding a report and 1 lent with a gain of 2 set up, 2 lent with a gain of 3 set up without
    it. Raising any one of those numbers alone keeps the step; the passes that lower numbers then take back what was
    raised and is not needed."""
    best = shrinker.best
    for i, step in enumerate(best):
        if i == 0 or step.rule in shrinker.fixed:
            continue
        base, kept = deletion(best, i)
        earlier = [k for k, j in enumerate(kept) if j < i]
        candidate = list(base)
        for k in earlier:
            changes = {
                name: v + 1 for name, v in base[k].arguments.items()
                if is_amount(shrinker, base[k], name) and shrinker.domains[(base[k].rule, name)].contains(v + 1)
            }
            if changes:
                candidate[k] = base[k].with_arguments(changes)
        if candidate != base:
            yield candidate


def _small_number(shrinker: Any, step: RecordedStep, name: str, most: int) -> bool:
    """Whether step's argument name is an integer a strategy drew, from 1 to most."""
    value = step.arguments[name]
    return (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= most
        and isinstance(shrinker.domains.get((step.rule, name)), IntDomain)
    )


def _alike(shrinker: Any, a: RecordedStep, b: RecordedStep) -> int:
    """How many arguments two steps share, named alike and equal, amounts aside: a deposit and a mint by one account
    to itself share two, where one's amount is likelier to stand for the other's than a lend's to one strategy."""
    return sum(
        1 for name, value in a.arguments.items()
        if name in b.arguments and b.arguments[name] == value and not is_amount(shrinker, a, name)
    )


def is_amount(shrinker: Any, step: RecordedStep, name: str) -> bool:
    """Whether step's argument name is an amount a strategy drew: an integer of a range of AMOUNT_RANGE values or more
    (not an index among a few contracts, a fee in basis points, a bundle value or a bool)."""
    value = step.arguments[name]
    domain = shrinker.domains.get((step.rule, name))
    return (
        isinstance(domain, IntDomain) and isinstance(value, int) and not isinstance(value, bool)
        and domain.hi - domain.lo >= AMOUNT_RANGE
    )


def merged(shrinker: Any, i: int, j: int) -> list[list[RecordedStep]]:
    """Step i's numbers moved onto step j's (same rule, same other arguments): without step i if nothing is left of it,
    then with what is left."""
    best = shrinker.best
    a, b = best[i], best[j]
    if a.rule != b.rule or a.results or b.results or a.rule in shrinker.fixed:
        return []
    moved = {}
    left = {}
    for name, value in a.arguments.items():
        domain = shrinker.domains.get((a.rule, name))
        other = b.arguments.get(name)
        numbers = isinstance(value, int) and isinstance(other, int)
        if isinstance(domain, IntDomain) and numbers and value > 0 and other >= 0:
            total = min(domain.hi, other + value)
            if total == other:
                return []  # step j's number is at its bound: nothing moves
            moved[name], left[name] = total, value - (total - other)
        elif value != other:
            return []
    if not moved:
        return []
    step_j = b.with_arguments(moved)
    program = [*best[:j], step_j, *best[j + 1 :]]
    kept = [*program[:i], a.with_arguments(left), *program[i + 1 :]]
    return [without(program, {i}), kept] if all(v == 0 for v in left.values()) else [kept]


def reroute(shrinker: Any) -> bool:
    """Delete a step that took a value from one bundle and put it into another, the value's producer now routing it
    there itself."""
    changed = False
    index = len(shrinker.best) - 1
    while index > 0:
        if shrinker.first_shorter((True, c) for c in list(rerouted(shrinker, index))):
            changed = True
        index = min(index - 1, len(shrinker.best) - 1)
    while shrinker.first_shorter(coupled.rule_swaps(shrinker)):
        changed = True
    return changed


def rerouted(shrinker: Any, index: int) -> Any:
    yield from _moved(shrinker, index)
    yield from _handed(shrinker, index)
    best = shrinker.best
    if len(best) <= REROUTE_UP_TO and best[index].rule not in shrinker.fixed:
        # a step that changed a value's state in place (a filtered bundle's payment made
        # authorized), deleted while another step's argument changes so that it needs no change
        gone = with_users(best, index)
        base = without(best, gone)
        taken = best[index].refs()
        # a step before it that made a value the deleted step took: what the deleted step changed in place, that step
        # now makes it so itself (a step that took no value changed nothing another step made: none is tried)
        for k, other in enumerate(base[: index - sum(1 for g in gone if g < index)]):
            if not taken.intersection(other.results):
                continue
            for name, value in other.arguments.items():
                domain = shrinker.domains.get((other.rule, name))
                if domain is None or (isinstance(value, dict) and "ref" in value):
                    continue
                for simple in simple_values(domain, value)[:-1]:
                    yield [*base[:k], other.with_arguments({name: simple}), *base[k + 1 :]]


def _is_party(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and ("account" in value or "actor" in value)


def _handed(shrinker: Any, index: int) -> Any:
    """Delete a step between two parties (a transfer from one account to another), an earlier step by the one now by
    the other, where that step's strategy draws the other: the actor deposits itself rather than being handed an
    account's deposit."""
    best = shrinker.best
    step = best[index]
    if len(best) > REROUTE_UP_TO or step.rule in shrinker.fixed or step.results:
        return
    parties = list({repr(v): v for v in step.arguments.values() if _is_party(v)}.values())
    if len(parties) < 2:
        return
    base = without(best, {index})
    for k in range(index):
        other = base[k]
        for name, value in other.arguments.items():
            if value not in parties:
                continue
            domain = shrinker.domains.get((other.rule, name))
            for party in parties:
                drawn = not isinstance(domain, AddressDomain) or domain.value_of(domain.word_of(party) or 0) == party
                if party != value and drawn:
                    yield [*base[:k], other.with_arguments({name: party}), *base[k + 1 :]]


def _moved(shrinker: Any, index: int) -> Any:
    best = shrinker.best
    step = best[index]
    refs = [(k, label) for k, v in step.arguments.items() if (label := ref_of(v)) is not None]
    results = step.results
    if len(refs) != 1 or len(results) != 1 or step.rule in shrinker.fixed:
        return
    taken, moved = refs[0][1], results[0]
    producer = next((i for i in range(index) if taken in best[i].results), None)
    if producer is None:
        return
    # the producer's value is named as the deleted step named it; later uses follow the name
    renamed = [moved if label == taken else label for label in best[producer].results]
    base = list(best)
    base[producer] = dataclasses.replace(base[producer], results=tuple(renamed))
    base = without(base, {index})
    if any(taken in s.refs() for s in base):
        return  # the value is also used as it was elsewhere: not a plain move
    step_p = base[producer]
    for name, value in step_p.arguments.items():
        domain = shrinker.domains.get((step_p.rule, name))
        if domain is None or (isinstance(value, dict) and "ref" in value):
            continue
        for simple in simple_values(domain, value):
            yield [*base[:producer], step_p.with_arguments({name: simple}), *base[producer + 1 :]]


def simple_values(domain: Domain, value: Any) -> list[Any]:
    """A few values of a domain to try in place of value: its smallest, and value itself."""
    seen: list[Any] = []

    def collect(v: Any, repair: bool = False) -> bool:
        if v not in seen:
            seen.append(v)
        return False  # never "fails": minimize() walks down through its simplest candidates

    domain.minimize(value, collect)
    return [v for v in seen[:3] if v != value] + [value]


def balance(shrinker: Any, index: int) -> bool:
    """Step index's first two numbers of one kind (one domain key), above their target and apart, one of them more than
    coupled.SCAN_UP_TO above it, set both to the least whose square reaches their product (their offsets from the
    target), where that does not make the program larger; kept, the two are lowered together (the values pass's
    bisection of equal numbers). Whether it was kept. Each keep lowers the larger of the two, so it cannot cycle; tried
    once on a program (shrinker.settled_numbers).

    Where a failure needs a product above a floor (a pool's first deposit, isqrt(a0 * a1) > 1000), lowering one number
    at a time stops at any point of the hyperbola, each the least given the other: (1, 1002001), 21 bits, or (2278,
    440); equal numbers on it have the fewest bits, (1001, 1001). Where the numbers are not coupled so, the try costs
    one replay.
    """
    step = shrinker.best[index]
    numbers: dict[Any, list[str]] = {}
    for name, value in step.arguments.items():
        domain = shrinker.domains.get((step.rule, name))
        if isinstance(domain, IntDomain) and isinstance(value, int) and not isinstance(value, bool):
            if value > domain.target:
                numbers.setdefault(domain.key(), []).append(name)
    pair = next((names[:2] for names in numbers.values() if len(names) > 1), None)
    settled = (index, f"balance {pair}", tuple(s.key for s in shrinker.best))
    if pair is None or settled in shrinker.settled_numbers:
        return False
    shrinker.settled_numbers.add(settled)
    domain = shrinker.domains[(step.rule, pair[0])]
    x, y = (step.arguments[n] - domain.target for n in pair)
    mean = isqrt(x * y)
    mean += mean * mean < x * y
    if x == y or max(x, y) <= coupled.SCAN_UP_TO or not domain.contains(domain.target + mean):
        return False
    length = len(shrinker.best)

    def build(value: int) -> list[RecordedStep] | None:
        if len(shrinker.best) != length:
            return None
        own = shrinker.best[index]
        return [*shrinker.best[:index], own.with_arguments({n: value for n in pair}), *shrinker.best[index + 1 :]]

    candidate = build(domain.target + mean)
    if candidate is None or size(candidate) > size(shrinker.best):
        return False
    # where the scale left the two (coupled.scale: scaled one step less, they did not fail), their mean is a floor of
    # the least the two reach together: bisected from there
    floors = [shrinker.floors.get((index, n, length)) for n in pair]
    near = (
        domain.target + isqrt((floors[0][1] - domain.target) * (floors[1][1] - domain.target))
        if all(f is not None and f[0] == step.arguments[n] and f[1] > domain.target for f, n in zip(floors, pair))
        else None
    )
    if shrinker.first_shorter([(True, candidate)]) is None:
        return False
    least = lower_together(shrinker, [(index, n) for n in pair], domain, domain.target + mean, build, near)
    if len(shrinker.best) == length and isinstance(least, int) and least - domain.target > 2:
        # each number's own least, given the other there, is expected just below where they reach together: bisected
        # from there (the contracts' numbers below it still tried)
        for n in pair:
            shrinker.floors[(index, n, length)] = (
                least, least - max(2, (least - domain.target) // coupled.SCALE_PRECISION), False,
            )
    return True


def equal_values(shrinker: Any) -> bool:
    """Arguments of one strategy holding the same value in several places (an account that deposits, then withdraws; a
    step's two amounts balance() made equal), made smaller together; whether any group was. A group's numbers asked
    again on a program of the same length (another number moved) are bisected from the least found before, without the
    contracts' numbers and small values below it, as the values pass does one number (shrinker.floors)."""
    groups: dict[tuple[Any, str], list[tuple[int, str]]] = {}
    for index, step in enumerate(shrinker.best):
        for name, value in step.arguments.items():
            domain = shrinker.domains.get((step.rule, name))
            if domain is not None and not (isinstance(value, dict) and "ref" in value):
                groups.setdefault((domain.key(), compared.value_key(value)), []).append((index, name))
    changed = False
    for places in groups.values():
        if len(places) < 2 or any(i >= len(shrinker.best) for i, _ in places):
            continue
        index, name = places[0]
        value = shrinker.best[index].arguments[name]
        domain = shrinker.domains[(shrinker.best[index].rule, name)]

        def fails(candidate_value: Any, places: list[tuple[int, str]] = places) -> list[RecordedStep] | None:
            if any(i >= len(shrinker.best) for i, _ in places):
                return None
            candidate = list(shrinker.best)
            for i, n in places:
                candidate[i] = candidate[i].with_arguments({n: candidate_value})
            return candidate

        before = shrinker.passes[shrinker.current].kept
        if not at_line(shrinker, places, domain, value, fails):
            lower_together(shrinker, places, domain, value, fails)
        changed = changed or shrinker.passes[shrinker.current].kept > before
    return changed


def at_line(shrinker: Any, places: list[tuple[int, str]], domain: Domain, value: Any, build: Any) -> bool:
    """Whether equal numbers far from their target (over SMALL_TRIED) sit where the first's step compared it (with
    itself, an equal value, or one beside it: a code that must match), and one nearer their target no longer fails: then
    none lower is tried, as for one number at a line (the values pass's compared moves)."""
    if not isinstance(domain, IntDomain) or not isinstance(value, int) or abs(value - domain.target) <= SMALL_TRIED:
        return False
    if not shrinker.at_boundary(places[0][0], value, hints=False):
        return False
    nearer = build(value - 1 if value > domain.target else value + 1)
    return nearer is not None and shrinker.first_shorter([(True, nearer)]) is None


def lower_together(
    shrinker: Any, places: list[tuple[int, str]], domain: Domain, value: Any, build: Any, near: int | None = None
) -> Any:
    """The equal numbers at places lowered together from value (build(v): the program with them v), bisected from near
    when given, else from the least found before on a program of this length where they stand there (shrinker.floors);
    that least noted and returned."""
    index, name = places[0]
    key = (index, f"equal {places}", len(shrinker.best))
    floor = shrinker.floors.get(key)
    floor = floor if floor is not None and floor[0] == value else None
    if floor is not None:
        shrinker.minimize_value(domain, value, build, None, floor[1], ())
    else:
        shrinker.minimize_value(domain, value, build, None, near)
    least = shrinker.best[index].arguments.get(name) if index < len(shrinker.best) else None
    if isinstance(domain, IntDomain) and isinstance(least, int) and abs(least - domain.target) > 2:
        distance = abs(least - domain.target)
        step = max(2, distance // coupled.SCALE_PRECISION) * (1 if least > domain.target else -1)
        shrinker.floors[(index, f"equal {places}", len(shrinker.best))] = (least, least - step, True)
    return least


def items(shrinker: Any, index: int) -> bool:
    """Step index's lists (arguments drawn as arrays) of one length, two or more, with the item at one place deleted
    from each together, the last place first, while the program fails so; whether any was. A list made shorter alone
    is the values pass's (ArrayDomain.minimize): where the contract needs the lists as long as each other, that never
    fails the same way."""
    if index >= len(shrinker.best):
        return False
    step = shrinker.best[index]
    lengths: dict[int, list[str]] = {}
    for name, value in step.arguments.items():
        domain = shrinker.domains.get((step.rule, name))
        if isinstance(domain, ArrayDomain) and isinstance(value, list) and len(value) > domain.lo:
            lengths.setdefault(len(value), []).append(name)
    changed = False
    for length, names in lengths.items():
        if len(names) < 2:
            continue
        settled = (index, f"items {names}", tuple(s.key for s in shrinker.best))
        if settled in shrinker.settled_numbers:
            continue
        shrinker.settled_numbers.add(settled)
        for place in range(length - 1, -1, -1):
            if index >= len(shrinker.best):
                return changed
            own = shrinker.best[index]
            lists = [own.arguments[n] for n in names]
            if any(place >= len(v) or len(v) - 1 < shrinker.domains[(own.rule, n)].lo for n, v in zip(names, lists)):
                continue
            shorter = own.with_arguments({n: v[:place] + v[place + 1 :] for n, v in zip(names, lists)})
            changed = shrinker.shorter([*shrinker.best[:index], shorter, *shrinker.best[index + 1 :]]) or changed
    return changed


# (number given up, number taking up its amount) couples the shift tries, at most
SHIFTS = 6


def shift(shrinker: Any) -> bool:
    """The trade pass's second move: a number over coupled.SCAN_UP_TO above its target set to the target, or one above
    it, while a number of its kind (its domain's key) in another step grows by what it gave up, where that leaves the
    program smaller; the largest numbers first, the first SHIFTS couples. Whether one was kept.

    Neither number can move alone where a later step needs their sum (a withdrawal of the whole balance) and one of
    them large (a supply whose product with the withdrawal must pass 2**256): the scale and the values pass then take
    the one left large down with the numbers it is coupled to.
    """
    steps, domains = shrinker.best, shrinker.domains
    numbers = [
        (index, name, value, domain)
        for index, step in enumerate(steps)
        for name, value in step.arguments.items()
        if isinstance(domain := domains.get((step.rule, name)), IntDomain) and isinstance(value, int)
        and not isinstance(value, bool)
    ]
    givers = sorted(
        (n for n in numbers if n[2] - n[3].target > coupled.SCAN_UP_TO), key=lambda n: n[2] - n[3].target, reverse=True
    )

    def candidates() -> Any:
        tried = 0
        for index, name, value, domain in givers:
            for other, taker, held, kind in numbers:
                if other == index or kind.key() != domain.key() or tried >= SHIFTS:
                    continue
                tried += 1
                for left in (domain.target, domain.target + 1):
                    moved = value - left
                    if not (domain.contains(left) and kind.contains(held + moved)):
                        continue
                    out = list(steps)
                    out[index] = out[index].with_arguments({name: left})
                    out[other] = out[other].with_arguments({taker: held + moved})
                    if size(out) < size(steps):
                        yield (index, other), out

    return shrinker.first_shorter(candidates()) is not None
