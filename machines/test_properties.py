"""Property tests: each example runs on a fresh chain (reverted after every example)."""

from evmstate import given, reverts, strategy


@given(amount=strategy("uint256", max_value="100 ether"), receiver=strategy("address"))
def test_transfer_moves_exactly_the_amount(Token, accounts, amount, receiver):
    token = Token.deploy("T", "T", 18, "100 ether", {"from": accounts[0]})
    before = token.balanceOf(receiver)
    token.transfer(receiver, amount, {"from": accounts[0]})
    if receiver == accounts[0]:
        assert token.balanceOf(receiver) == before
    else:
        assert token.balanceOf(receiver) == before + amount


@given(amount=strategy("uint256", min_value=1, max_value="1 ether"))
def test_withdraw_beyond_deposit_reverts(Depositer, accounts, amount):
    depositer = Depositer.deploy({"from": accounts[0]})
    with reverts("Insufficient balance"):
        depositer.withdraw_from(amount, {"from": accounts[1]})
