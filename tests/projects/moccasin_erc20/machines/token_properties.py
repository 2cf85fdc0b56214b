"""tests/test_fuzz.py's property tests, ported: the token is injected (deployed once, the chain
reverted after every example), users are the funded accounts, boa.reverts is reverts."""

from evmstate import given, reverts, strategy

INITIAL_SUPPLY = 1000 * 10**18


@given(sender=strategy("address"), receiver=strategy("address"), amount=strategy("uint256", max_value=INITIAL_SUPPLY))
def test_fast_transfer_moves_exactly_the_amount(accounts, token, sender, receiver, amount):
    token.transfer(sender, INITIAL_SUPPLY, {"from": accounts[0]})
    before = token.balanceOf(sender) + (token.balanceOf(receiver) if receiver != sender else 0)
    token.fast_transfer(receiver, amount, {"from": sender})
    after = token.balanceOf(sender) + (token.balanceOf(receiver) if receiver != sender else 0)
    assert after == before


@given(spender=strategy("address"), allowed=strategy("uint256", max_value=INITIAL_SUPPLY), amount=strategy("uint256", max_value=INITIAL_SUPPLY))
def test_burn_for_needs_the_allowance(accounts, token, spender, allowed, amount):
    owner = accounts[0]
    token.approve(spender, allowed, {"from": owner})
    if amount > allowed:
        with reverts():
            token.burn_for(owner, amount, {"from": spender})
    else:
        token.burn_for(owner, amount, {"from": spender})
        assert token.allowance(owner, spender) == allowed - amount
