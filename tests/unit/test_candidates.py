"""Candidates tried a batch at a time keep what trying them one at a time keeps (engine/shrink/candidates.py)."""

from __future__ import annotations

from copy import deepcopy

import pytest

from evmstate.engine.shrink.candidates import probe_in_batches
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink.passes import Minimized, Shrinker
from evmstate.domains import ArrayDomain, BytesDomain, IntDomain

from .batches import Batches

# failing sets that are not monotone (a parity, a window, one value), as contracts make them
PREDICATES = {
    "at least": lambda v: v >= 123_456_789,
    "odd and large": lambda v: v >= 1_000 and v % 2 == 1,
    "a window": lambda v: 77 <= v <= 91 or v >= 10**30,
    "one value": lambda v: v == 98_765_432_123,
}


def one_at_a_time(domain, value, fails):
    asked, kept = [], []

    def answer(v, repair=False):
        asked.append(deepcopy(v))  # a list minimize() keeps may change under it later
        if fails(v):
            kept.append(deepcopy(v))
            return True
        return False

    domain.minimize(value, answer)
    return asked, kept


def in_batches(domain, value, fails, width):
    asked, kept = [], []

    def first(candidates):
        for k, (v,) in candidates:  # as a Tries does: the answers after the first kept are dropped
            asked.append(deepcopy(v))
            if fails(v):
                kept.append(deepcopy(v))
                return k
        return None

    def batched(candidates):
        batch = list(candidates)  # every candidate of the batch is made before any answer
        assert 0 < len(batch) <= width
        return first(iter(batch))

    probe_in_batches(lambda oracle: domain.minimize(value, oracle), lambda v: [v], batched, width)
    return asked, kept


@pytest.mark.parametrize("name", sorted(PREDICATES))
@pytest.mark.parametrize("width", [1, 2, 3, 8])
def test_a_number_is_minimized_in_batches_exactly_as_one_question_at_a_time(name, width):
    fails = PREDICATES[name]
    start = 98_765_432_123 if name == "one value" else 2**200 + 1
    assert in_batches(IntDomain(0, 2**256 - 1), start, fails, width) == one_at_a_time(IntDomain(0, 2**256 - 1), start, fails)


@pytest.mark.parametrize("width", [1, 2, 5])
def test_bytes_and_lists_are_minimized_in_batches_as_one_at_a_time(width):
    data = {"bytes": "00ff3c1d" * 4}

    def starts_high(v):
        return bytes.fromhex(v["bytes"])[:1] >= b"\x01"

    assert in_batches(BytesDomain(1, 32), data, starts_high, width) == one_at_a_time(BytesDomain(1, 32), data, starts_high)
    items = [5, 900, 3, 77, 1000]

    def has_big(v):
        return any(x >= 500 for x in v)

    domain = ArrayDomain(IntDomain(0, 1000), 0, None)
    assert in_batches(domain, items, has_big, width) == one_at_a_time(domain, items, has_big)


def test_the_passes_keep_the_same_programs_in_batches():
    """A program of steps with numbers; it fails while the numbers of the steps of rule "a" add up to 300 or more."""
    program = [RecordedStep("a" if i % 3 else "b", {"x": (i * 37) % 200}) for i in range(24)]

    def attempt(steps):
        return Minimized(steps, [str(s) for s in steps], AssertionError()) if sum(s.arguments["x"] for s in steps if s.rule == "a") >= 300 else None

    domains = {("a", "x"): IntDomain(0, 200), ("b", "x"): IntDomain(0, 200)}
    kept = {}
    for width in (1, 2, 4):
        history: list = []
        shrinker = Shrinker(program, attempt, domains=domains, tries=Batches(width) if width > 1 else None, progress=history.append)
        outcome = shrinker.run()
        kept[width] = (outcome.found.steps, history)
    assert kept[1] == kept[2] == kept[4]
    assert len(kept[1][0]) == 2 and sum(s.arguments["x"] for s in kept[1][0]) == 300
