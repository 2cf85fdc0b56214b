"""The dictionary: what it holds, and how strategy() draws mix it in."""

from __future__ import annotations

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from evmstate import strategy
from evmstate.search.dictionary import Dictionary, source_literals, using

RARE = 84843314297726


def known(weight: float, literals=(RARE,)) -> Dictionary:
    """A dictionary of the given literals, frozen as the machine's __init__ would leave it."""
    d = Dictionary(weight)
    for v in literals:
        d.literals.append(v)
    d.literals.sort()
    d.freeze()
    return d


def test_source_literals_read_every_base_and_separator():
    text = "X: constant(uint256) = 84_843_314_297_726\nY: constant(bytes4) = 0xdeadbeef\n# 0b101 in a comment\nz: uint8 = 0o17\nv = a.b1"
    assert {RARE, 0xDEADBEEF, 0b101, 0o17} <= source_literals(text)
    assert 1 not in source_literals("v = a.b1")  # part of a name, not a literal


def drawn_with(dictionary: Dictionary | None, strat, n: int = 40) -> list:
    out: list = []

    @settings(max_examples=n, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        with using(dictionary):
            out.append(data.draw(strat))

    collect()
    return out


def test_weight_zero_makes_the_same_choices_as_a_plain_draw():
    for abi_type in ("uint256", "int8", "bytes4"):
        plain = drawn_with(None, strategy(abi_type))
        assert drawn_with(known(0.0), strategy(abi_type)) == plain, abi_type
        assert drawn_with(known(0.5, literals=(RARE, 7, -7, 0xDEADBEEF << 224)), strategy(abi_type)) != plain, abi_type  # the dictionary changes them when on


def test_a_dictionary_value_is_found_where_plain_draws_never_are():
    with using(known(0.25)):
        assert find(strategy("uint256"), lambda v: v == RARE, settings=settings(max_examples=200, database=None, derandomize=True)) == RARE


def test_draws_shrink_toward_plain_draws_then_the_smallest_dictionary_value():
    # nearly every draw takes the dictionary's value, yet the shrunk example is the plain minimum
    # where a plain draw fails too
    d = known(0.99, literals=(RARE, RARE + 1))
    assert set(drawn_with(d, strategy("uint256", min_value=1001), n=20)) & {RARE, RARE + 1}
    with using(d):
        assert find(strategy("uint256", min_value=1001), lambda v: True, settings=settings(database=None, derandomize=True)) == 1001
    # where only a dictionary value fails, toward the smallest one that does
    with using(known(0.5, literals=(5, RARE, RARE + 1))):
        assert find(strategy("uint256"), lambda v: v in (RARE, RARE + 1), settings=settings(database=None, derandomize=True, max_examples=500)) == RARE


def test_bounds_hold_for_dictionary_values():
    values = drawn_with(known(1.0, literals=(-5, 3, 7, 1000, RARE)), strategy("uint256", min_value=4, max_value=999), n=60)
    assert values and all(4 <= v <= 999 for v in values) and 7 in values


def test_observed_values_and_produced_addresses_last_one_run():
    from evmstate.evm.base import ExecResult

    d = known(1.0)
    produced = 0xD13311AED2C5BF3621611C3C77C14B7DCF13B64F
    result = ExecResult(success=True, output=b"", gas_used=0, storage_writes=((b"\x01" * 20, 0, produced), (b"\x01" * 20, 1, 77)))
    d.observe(result)
    assert d.ints_between(0, 100) == ([], [], [77])
    assert d.produced_addresses() == ([], [], [produced.to_bytes(20, "big")])
    d.reset()  # the next run starts from what __init__ left
    assert d.ints_between(0, 100) == ([], [], []) and d.produced_addresses() == ([], [], [])
