from decimal import Decimal

import pytest
from hypothesis import find, given, settings, strategies as st

from evmstate import Account, StrategyError, strategy


@pytest.mark.parametrize(
    "type_str, check",
    [
        ("uint8", lambda v: 0 <= v <= 255),
        ("uint256", lambda v: 0 <= v < 2**256),
        ("int8", lambda v: -128 <= v <= 127),
        ("int256", lambda v: -(2**255) <= v < 2**255),
        ("bool", lambda v: isinstance(v, bool)),
        ("bytes1", lambda v: isinstance(v, bytes) and len(v) == 1),
        ("bytes32", lambda v: isinstance(v, bytes) and len(v) == 32),
        ("bytes", lambda v: isinstance(v, bytes) and len(v) <= 64),
        ("string", lambda v: isinstance(v, str) and len(v) <= 64),
        ("decimal", lambda v: isinstance(v, Decimal) and v == round(v, 10)),
        ("uint256[3]", lambda v: isinstance(v, list) and len(v) == 3),
        ("uint8[]", lambda v: isinstance(v, list) and len(v) <= 8 and all(0 <= x <= 255 for x in v)),
        ("(uint8,bool)", lambda v: isinstance(v, tuple) and 0 <= v[0] <= 255 and isinstance(v[1], bool)),
        ("(uint8,(bool,bytes2))[2]", lambda v: len(v) == 2 and len(v[0][1][1]) == 2),
    ],
)
def test_each_abi_type_draws_valid_values(type_str, check):
    @settings(max_examples=30)
    @given(strategy(type_str))
    def inner(value):
        assert check(value), value

    inner()


def test_values_shrink_toward_zero():
    assert find(strategy("uint256"), lambda v: True) == 0
    assert find(strategy("int128"), lambda v: True) == 0
    assert find(strategy("uint256", min_value=5), lambda v: True) == 5
    assert find(strategy("uint256"), lambda v: v >= 1000) == 1000
    assert find(strategy("bytes"), lambda v: True) == b""


def test_bounds_accept_amount_strings():
    @settings(max_examples=30)
    @given(strategy("uint256", min_value="1 gwei", max_value="1 ether"))
    def inner(value):
        assert 10**9 <= value <= 10**18

    inner()


def test_exclude_and_unique():
    @settings(max_examples=30)
    @given(strategy("uint8", max_value=3, exclude=[0, 2]), strategy("uint8[]", unique=True, min_length=2))
    def inner(v, arr):
        assert v in (1, 3)
        assert len(set(arr)) == len(arr) >= 2

    inner()


def test_addresses_come_from_the_project_accounts(project):
    accounts = project.accounts
    assert find(strategy("address"), lambda a: True) == accounts[0]

    @settings(max_examples=30)
    @given(strategy("address", length=3, exclude=accounts[1]))
    def inner(a):
        assert isinstance(a, Account)
        assert a in (accounts[0], accounts[2])

    inner()


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (("uint7",), {}, "integer sizes run from 8 to 256"),
        (("bytes33",), {}, "bytes1 to bytes32"),
        (("float",), {}, "unknown ABI type 'float'"),
        (("uint256",), {"max_length": 3}, "max_length does not apply to uint256"),
        (("uint8",), {"max_value": 256}, "outside uint8's range"),
        (("uint8",), {"min_value": 5, "max_value": 4}, "greater than max_value"),
        (("uint256",), {"max_value": "1 bitcoin"}, "unknown unit"),
        (("bytes",), {"min_length": 4, "max_length": 2}, "greater than max_length"),
        (("uint256[0]",), {}, "must be a positive integer"),
        (("(uint256,bool",), {}, "unknown ABI type|unbalanced"),
        ((42,), {}, "takes an ABI type name"),
    ],
)
def test_invalid_types_and_bounds_fail_at_definition(args, kwargs, message):
    with pytest.raises(StrategyError, match=message):
        strategy(*args, **kwargs)


def test_strategies_compose_with_hypothesis():
    doubled = strategy("uint8").map(lambda v: v * 2)
    assert find(doubled, lambda v: v > 10) == 12
    assert find(st.one_of(strategy("bool"), strategy("uint8")), lambda v: True) is False


def test_decimal_bounds_are_exactly_vypers():
    """int168 scaled by 10**10, to the last digit: rounded bounds would draw values no contract takes."""
    top = Decimal("18707220957835557353007165858768422651595.9365500927")
    bottom = Decimal("-18707220957835557353007165858768422651595.9365500928")
    assert find(strategy("decimal"), lambda d: d >= top) == top
    assert find(strategy("decimal"), lambda d: d <= bottom) == bottom
    with pytest.raises(StrategyError, match="must lie within"):
        strategy("decimal", max_value=top + Decimal("1E-10"))


@pytest.mark.parametrize(
    "type_str, bounds, check",
    [
        ("uint256[]", {"max_value": 3, "max_length": 5}, lambda v: len(v) <= 5 and all(0 <= x <= 3 for x in v)),
        ("int8[2]", {"min_value": -1, "max_value": 1}, lambda v: len(v) == 2 and all(-1 <= x <= 1 for x in v)),
        ("uint8[][2]", {"max_value": "2 wei", "exclude": 1}, lambda v: all(x in (0, 2) for row in v for x in row)),
        ("address[]", {"length": 2, "max_length": 3}, lambda v: len(v) <= 3 and len(set(v)) <= 2),
        # unique over items that are arrays or tuples themselves (unhashable lists)
        ("uint8[2][]", {"unique": True, "max_value": 1}, lambda v: len({tuple(x) for x in v}) == len(v) <= 4),
        ("(uint8,bool)[]", {"unique": True}, lambda v: len(set(v)) == len(v)),
    ],
)
def test_an_array_takes_its_items_bounds(type_str, bounds, check):
    """strategy("uint256[]", max_value=3): each item at most 3; the length bounds and unique stay the array's."""

    @settings(max_examples=40)
    @given(strategy(type_str, **bounds))
    def inner(value):
        assert check(value), value

    inner()


def test_an_array_refuses_bounds_its_items_do_not_take():
    with pytest.raises(StrategyError, match=r"places does not apply to uint256\[\]; it takes .*max_value"):
        strategy("uint256[]", places=2)
    with pytest.raises(StrategyError, match=r"max_value does not apply to \(uint8,bool\)\[\]"):
        strategy("(uint8,bool)[]", max_value=2)
