"""The fuzz tests `mox test` runs (titanoboa and Hypothesis)."""

import boa
from boa.test.strategies import strategy
from hypothesis import given, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from script.deploy import INITIAL_SUPPLY, deploy

USERS = [boa.env.generate_address() for _ in range(5)]


@settings(max_examples=100)
@given(sender_seed=strategy("uint8", max_value=4), receiver_seed=strategy("uint8", max_value=4), amount=strategy("uint256", max_value=INITIAL_SUPPLY))
def test_fast_transfer_moves_exactly_the_amount(sender_seed, receiver_seed, amount):
    token = deploy()
    sender, receiver = USERS[sender_seed], USERS[receiver_seed]
    token.transfer(sender, INITIAL_SUPPLY)
    before = token.balanceOf(sender) + (token.balanceOf(receiver) if receiver != sender else 0)
    with boa.env.prank(sender):
        token.fast_transfer(receiver, amount)
    after = token.balanceOf(sender) + (token.balanceOf(receiver) if receiver != sender else 0)
    assert after == before


@given(spender_seed=strategy("uint8", max_value=4), allowed=strategy("uint256", max_value=INITIAL_SUPPLY), amount=strategy("uint256", max_value=INITIAL_SUPPLY))
def test_burn_for_needs_the_allowance(spender_seed, allowed, amount):
    token = deploy()
    spender = USERS[spender_seed]
    token.approve(spender, allowed)
    with boa.env.prank(spender):
        if amount > allowed:
            with boa.reverts():
                token.burn_for(boa.env.eoa, amount)
        else:
            token.burn_for(boa.env.eoa, amount)
            assert token.allowance(boa.env.eoa, spender) == allowed - amount


class SupplyFuzzer(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.token = deploy()
        self.holders = [boa.env.eoa, *USERS]

    @rule(sender_seed=strategy("uint8", max_value=5), receiver_seed=strategy("uint8", max_value=5), amount=strategy("uint256", max_value=INITIAL_SUPPLY))
    def transfer(self, sender_seed, receiver_seed, amount):
        sender, receiver = self.holders[sender_seed], self.holders[receiver_seed]
        if amount > self.token.balanceOf(sender):
            return
        with boa.env.prank(sender):
            self.token.transfer(receiver, amount)

    @rule(minter_seed=strategy("uint8", max_value=5))
    def super_mint(self, minter_seed):
        with boa.env.prank(self.holders[minter_seed]):
            self.token.super_mint()

    @invariant()
    def total_supply_is_the_sum_of_balances(self):
        assert self.token.totalSupply() == sum(self.token.balanceOf(h) for h in self.holders)


test_supply = SupplyFuzzer.TestCase
