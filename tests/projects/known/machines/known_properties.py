from hypothesis import given

from evmstate import strategy


@given(x=strategy("uint256"))
def test_never_called_returns_42(Known, x):
    assert Known.deploy().never_called() == 42
