"""Values set from what the contract compared them with: the moves that cost a replay or two where bisection costs
dozens.

A replay with the comparisons recorded (Trials.operands: Feedback.everywhere) tells, for every
argument the contract compared (calldata, or the value a call sends), what it was compared with;
and for the block's time and number, what time the contract compared the clock with, and when.
The least value that fails is often one of those: an amount set to the balance or the stored
value it was compared with, a code set to the one it must equal, a wait set so that the clock
reaches the time the contract compared it with (an auction's end), one past it or one before it. So before a
number is bisected (and long before the scan tries numbers one by one) these are tried, smallest
first; a number at such a line then costs one replay to confirm (the next one down does not fail).
A candidate that no longer fails as it stands is repaired the same way (repairs()): an argument of
its changed step or a later one set to what the candidate's replay compared it with.
"""

from __future__ import annotations

import json
from typing import Any

from ...domains import AddressDomain, IntDomain
from ..recorded import RecordedStep
from .outcome import Met

# values a move tries for one argument or wait, at most
TRIED = 6
# comparison operands a repair tries, at most
REPAIRS = 6


def number_values(met: Any, domain: IntDomain, value: int) -> list[int]:
    """The values value was compared with, or one either side, no farther from the domain's target than value: nearest
    first."""
    word = value % 2**256
    target = domain.target
    found: set[int] = set()
    for a, other in met.sides:
        if a != word:
            continue
        for v in (other - 1, other, other + 1):
            v = v if v < 2**255 or domain.lo >= 0 else v - 2**256  # a signed argument's word
            if domain.contains(v) and abs(v - target) <= abs(value - target):
                found.add(v)
    return sorted(found, key=lambda v: abs(v - target))[:TRIED]


def clock_values(met: Any, value: int, which: int) -> list[int]:
    """What value (a wait, or a number a rule waits by) becomes when the clock it moves lands on a time the contract
    compared it with (which: 0 the time, 1 the block number), one past it or one before it (a deadline checked a second
    early): no longer than value, shortest first."""
    found: set[int] = set()
    for clock, other in (met.times if which == 0 else met.blocks):
        behind = clock - other  # how far past the compared time the clock was
        for v in (value - behind - 1, value - behind, value - behind + 1):
            if 0 <= v <= value:
                found.add(v)
    return sorted(found)[:TRIED]


Candidates = list[tuple[bool, list[RecordedStep]]]


def wait_candidates(best: list[RecordedStep], index: int, met: Any, which: int) -> tuple[bool, Candidates]:
    """(whether step index's wait (which: 0 its seconds, 1 its blocks) already lands on a time compared, the program
    with it set
    shorter to land on one)."""
    delay = best[index].delay
    at, shorter = False, []
    for v in clock_values(met, delay[which], which) if delay[which] else ():
        if v == delay[which]:
            at = True
            continue
        set_to = (v, delay[1]) if which == 0 else (delay[0], v)
        shorter.append((True, [s.with_delay(set_to) if j == index else s for j, s in enumerate(best)]))
    return at, shorter


def number_candidates(
    best: list[RecordedStep], index: int, name: str, value: int, domain: IntDomain, met: Any
) -> tuple[bool, Candidates]:
    """(whether the number is one it was compared with, or a wait landing on a compared time; the program with it set to
    a
    nearer one of those)."""
    # compared with an equal value (a code that must match, an amount of the whole balance): at a line as well
    at, shorter, seen = value % 2**256 in met.matched, [], set()
    for v in [*number_values(met, domain, value), *clock_values(met, value, 0)]:
        if v == value:
            at = True
        elif v not in seen and domain.contains(v):
            seen.add(v)
            shorter.append((True, [*best[:index], best[index].with_arguments({name: v}), *best[index + 1 :]]))
    return at, shorter


def repairs(
    best: list[RecordedStep],
    candidate: list[RecordedStep],
    index: int,
    met: Any,
    unmoved: set[tuple[int, int]],
    domains: dict[tuple[str, str], Any],
    constants: frozenset[int] = frozenset(),
) -> Any:
    """(True, program): candidate (step index changed from best) with one argument of that step or a later one set to
    the other side of a comparison its replay met (met) and best's did not (unmoved), nor one of the numbers the
    contracts' code holds (constants), as Redqueen does. A comparison with a constant of the code is a line the
    contract draws whatever the changed step did: on a path the change opened (an isqrt of a smaller product compares
    it with 2**72, 2**40 and 2**24), a small argument equal to the value compared matches by chance."""
    kept = best[index].arguments if index < len(best) else {}
    # a renamed account takes the numbers compared with what it holds (its whole balance, up or down); where a number
    # changed, the step's other numbers only go down: else two of them could take turns going up
    renamed = index < len(candidate) and any(
        isinstance(domains.get((candidate[index].rule, n)), AddressDomain)
        for n, v in candidate[index].arguments.items()
        if n in kept and kept[n] != v
    )
    for j in range(index, len(candidate)):
        for name, value in candidate[j].arguments.items():
            # the changed step's own other arguments only (a withdrawal's amount, its owner renamed): not what changed
            if j == index and (name not in kept or kept[name] != value):
                continue
            domain = domains.get((candidate[j].rule, name))
            if isinstance(domain, AddressDomain):
                values = addresses_compared(domain, value, [e for e in met.equalities if e not in unmoved])
            elif isinstance(domain, IntDomain) and isinstance(value, int):
                word = value % 2**256
                others = list(
                    dict.fromkeys(o for a, o in met.sides if a == word and (a, o) not in unmoved and o not in constants)
                )[:REPAIRS]
                values = [v for other in others for v in (other, other + 1, other - 1) if domain.contains(v)]
            else:
                continue
            if j == index and not renamed:
                target = domain.target if isinstance(domain, IntDomain) else None
                values = [v for v in values if target is not None and abs(v - target) < abs(value - target)]
            for v in values:
                if v != value:
                    yield True, [*candidate[:j], candidate[j].with_arguments({name: v}), *candidate[j + 1 :]]


def untried(
    candidate: list[RecordedStep], repairs: Any, index: int, tried: set[tuple[int, str, str]]
) -> list[tuple[list[RecordedStep], set[tuple[int, str, str]]]]:
    """The repairs of candidate (from repairs()) that set an argument to a value no repair in tried did, each with what
    it changed: (step, argument, value)."""
    out = []
    for _, repair in repairs:
        changed = {
            (j, name, json.dumps(value, sort_keys=True, separators=(",", ":")))
            for j in range(index, len(repair))
            for name, value in repair[j].arguments.items()
            if j >= len(candidate) or candidate[j].arguments.get(name) != value
        }
        if not changed <= tried:
            out.append((repair, changed))
    return out


def addresses_compared(domain: AddressDomain, value: Any, equalities: list[tuple[int, int]]) -> list[Any]:
    """The values an address argument could take from the equalities a replay met with it on one side, once each, in the
    order met."""
    word = domain.word_of(value)
    if word is None:
        return []
    found: list[Any] = []
    for a, other in equalities:
        v = domain.value_of(other) if a == word else None
        if v is not None and v not in found:
            found.append(v)
    return found[:REPAIRS]


def value_key(value: Any) -> str:
    """An argument's recorded value as a key."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def repaired_once(shrinker: Any, candidate: list[RecordedStep], index: int, name: str) -> bool:
    """repaired(), unless the number was lowered to this same value before on a program of this length and no repair
    failed: in a pool whose first deposit's amount at 0 reverts, the later deposit's repairs are the same values (the
    pool's arithmetic on that deposit alone) in every round, and the replay that looks for them costs twice a replay."""
    key = (index, name, len(shrinker.best), value_key(candidate[index].arguments.get(name)))
    if key in shrinker.unrepaired:
        return False
    if repaired(shrinker, candidate, index):
        return True
    shrinker.unrepaired.add(key)
    return False


def repaired(shrinker: Any, candidate: list[RecordedStep], index: int) -> bool:
    """The candidate (step index changed) with one argument of that step or a later one replaced by the other side of a
    comparison its replay met it in, as Redqueen does; whether one was kept (the shrinker's repaired()).

    A quote that matched a price computed from the changed step no longer matches: the
    replay compared the quote with the new price, which is the value to try. An address
    compared for equality (an inbox the contract derives from the account that changed)
    takes the other side. An argument no comparison met is left as it is, and so is a comparison the best program's
    replay met too (a constant of the contract's arithmetic, which the change did not move).
    """
    if shrinker.operands is None:
        return False
    met = shrinker.operands(candidate, index)
    before = shrinker.operands(shrinker.best, index) if index < len(shrinker.best) else Met()
    unmoved = set(before.sides) | set(before.equalities)
    found = repairs(shrinker.best, candidate, index, met, unmoved, shrinker.domains, shrinker.constants)
    tried = shrinker._repairs_tried
    if tried is None:
        return bool(shrinker.first_shorter(found))
    # a later argument set to a value an earlier repair of this number's move set it to, and the program did not
    # fail: the operand stayed where it was while the number moved, so it is not what the move needs (an AMM's
    # later deposit compared with the pool's own numbers, whatever the first deposit's amounts)
    fresh = untried(candidate, found, index, tried)
    kept = shrinker.first_shorter((k, c) for k, (c, _) in enumerate(fresh))
    for _, changed in fresh if kept is None else fresh[: kept + 1]:
        tried.update(changed)
    return kept is not None
