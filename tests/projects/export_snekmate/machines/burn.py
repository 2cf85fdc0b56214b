"""The BurnToken (snekmate's erc20) against a model of balances and allowances."""

from evmstate import reverts, strategy

SUPPLY = 1000 * 10**18


class BurnMachine:
    amount = strategy("uint256", max_value="1000 ether")
    owner = strategy("address")
    spender = strategy("address")

    def __init__(cls, accounts, BurnToken):
        cls.accounts = accounts
        cls.token = BurnToken.deploy(SUPPLY, {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = SUPPLY
        self.allowances = {}

    def rule_approve(self, owner, spender, amount):
        self.token.approve(spender, amount, {"from": owner})
        self.allowances[(owner, spender)] = amount

    def rule_burn_for(self, spender, owner, amount):
        allowed = self.allowances.get((owner, spender), 0)
        if allowed < amount or self.balances[owner] < amount:
            with reverts():
                self.token.burn_for(owner, amount, {"from": spender})
            return
        self.token.burn_for(owner, amount, {"from": spender})
        self.allowances[(owner, spender)] = allowed - amount
        self.balances[owner] -= amount

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.token.balanceOf(account) == balance
        assert self.token.totalSupply() == sum(self.balances.values())
