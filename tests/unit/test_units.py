from decimal import Decimal

import pytest

from evmstate import UnitError, to_wei


@pytest.mark.parametrize(
    "amount, wei",
    [
        (5, 5),
        ("1 ether", 10**18),
        ("0.5 ether", 5 * 10**17),
        ("10 gwei", 10**10),
        ("  3 WEI ", 3),
        ("42", 42),
        (1e18, 10**18),
        (Decimal("7"), 7),
    ],
)
def test_amounts_convert_to_wei(amount, wei):
    assert to_wei(amount) == wei


@pytest.mark.parametrize(
    "amount, message",
    [
        ("1 bitcoin", "unknown unit 'bitcoin'"),
        ("0.5 wei", "not a whole number of wei"),
        ("abc ether", "is not a number"),
        ("1 2 3", "cannot read"),
        (True, "bool"),
        ([1], "expected an int or a string"),
        (0.5, "not a whole number of wei"),
    ],
)
def test_bad_amounts_say_what_is_wrong(amount, message):
    with pytest.raises(UnitError, match=message):
        to_wei(amount)
