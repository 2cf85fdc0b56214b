from evmstate import given, strategy


@given(input_number=strategy("uint256"))
def test_echo(Echo, accounts, input_number):
    echo = Echo.deploy({"from": accounts[0]})
    assert echo.echo(input_number) == input_number
