"""The native loop's fresh integers (search/native/choices.py) have the shape of Hypothesis's own draws of the same range.

An unsigned 256-bit argument drawn by Hypothesis is within [0, 256] about 1 time in 12; the native loop once drew 4 in
9 there, and the puzzle's levels whose answers are none of 0 .. 256 (machines/puzzle.py) went all but untried.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from evmstate.search.native.choices import fresh_integer, integer_cdf, integer_quantile

RANGES = [(0, 2**256 - 1), (-(2**127), 2**127 - 1)]
DRAWS = 2000


def shares(values: list[int]) -> tuple[float, float, float]:
    """(within [-256, 256], below zero, within [-2**32, 2**32]) of values."""
    n = len(values)
    return (
        sum(abs(v) <= 256 for v in values) / n, sum(v < 0 for v in values) / n, sum(abs(v) < 2**32 for v in values) / n,
    )


def hypothesis_draws(lo: int, hi: int) -> list[int]:
    """DRAWS values of integers(lo, hi) as Hypothesis's generate phase draws them (through its public API)."""
    drawn: list[int] = []

    @settings(max_examples=DRAWS // 20, database=None, phases=["generate"])
    @given(st.data())
    def collect(data: st.DataObject) -> None:
        drawn.extend(data.draw(st.integers(lo, hi)) for _ in range(20))

    collect()
    return drawn


@pytest.mark.parametrize("lo, hi", RANGES)
def test_fresh_integers_have_the_shape_of_hypothesis_draws_of_the_same_range(lo: int, hi: int) -> None:
    draw, r = fresh_integer(lo, hi), random.Random(0)
    native = shares([draw(r) for _ in range(DRAWS)])
    own = shares(hypothesis_draws(lo, hi))
    for ours, theirs in zip(native, own):
        assert abs(ours - theirs) < 0.07, (native, own)


def test_an_unsigned_word_is_small_about_one_draw_in_twelve_and_rarely_drawn_twice() -> None:
    draw, r = fresh_integer(0, 2**256 - 1), random.Random(1)
    values = [draw(r) for _ in range(DRAWS)]
    small = sum(v <= 256 for v in values) / DRAWS
    assert 0.05 < small < 0.16  # 4 in 9 before
    assert len(set(values)) > 0.7 * DRAWS


@given(st.floats(min_value=1e-3, max_value=1 - 1e-3))  # beyond, the value is clamped to ±2**1023
def test_the_quantile_inverts_the_cumulative_share(u: float) -> None:
    x = integer_quantile(u)
    assert integer_cdf(x) == pytest.approx(u, rel=1e-6, abs=1e-9)


def test_the_cumulative_share_is_symmetric_and_spans_zero_to_one() -> None:
    assert integer_cdf(0) == pytest.approx(0.5)
    assert integer_cdf(-(2**255)) == pytest.approx(1 - integer_cdf(2**255))
    assert integer_cdf(-(2**1000)) < 1e-3 and integer_cdf(2**1000) > 1 - 1e-3
    # the uniform part: equal shares for equal steps within [-256, 256]
    assert integer_cdf(100) - integer_cdf(0) == pytest.approx(integer_cdf(200) - integer_cdf(100))
