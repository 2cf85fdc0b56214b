"""tests/test_fuzz.py's SupplyFuzzer, ported: the token comes from deployments.py, the holders are
the funded accounts, and {"from": ...} sends where boa.env.prank did."""

from evmstate import StateMachine, invariant, rule, strategy

INITIAL_SUPPLY = 1000 * 10**18


class SupplyMachine(StateMachine):
    def __init__(cls, accounts, token):
        cls.token = token
        cls.holders = list(accounts)

    @rule(sender=strategy("address"), receiver=strategy("address"), amount=strategy("uint256", max_value=INITIAL_SUPPLY))
    def transfer(self, sender, receiver, amount):
        if amount > self.token.balanceOf(sender):
            return
        self.token.transfer(receiver, amount, {"from": sender})

    @rule(minter=strategy("address"))
    def super_mint(self, minter):
        self.token.super_mint({"from": minter})

    @invariant()
    def total_supply_is_the_sum_of_balances(self):
        assert self.token.totalSupply() == sum(self.token.balanceOf(h) for h in self.holders)
