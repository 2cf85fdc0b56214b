"""A capped token, from its specification: the supply is the sum of the balances, never above
the cap; minting past the cap, or after the cap was reached, is refused."""

from evmstate import reverts, strategy


class CappedTokenMachine:
    holder = strategy("address", length=4)
    amount = strategy("uint256")
    to = strategy("address", length=4)

    def __init__(cls, accounts, CappedToken):
        cls.minter = accounts[0]
        cls.token = CappedToken.deploy({"from": accounts[0]})

    def setup(self):
        self.balances = {}
        self.finished = False

    def rule_mint(self, holder, amount):
        cap = 10**24
        if self.finished or sum(self.balances.values()) + amount > cap:
            with reverts():
                self.token.mint(holder, amount, {"from": self.minter})
            return
        self.token.mint(holder, amount, {"from": self.minter})
        self.balances[holder] = self.balances.get(holder, 0) + amount
        self.finished = sum(self.balances.values()) == cap

    def rule_transfer(self, holder, to, amount):
        if amount > self.balances.get(holder, 0):
            with reverts():
                self.token.transfer(to, amount, {"from": holder})
            return
        self.token.transfer(to, amount, {"from": holder})
        self.balances[holder] = self.balances.get(holder, 0) - amount
        self.balances[to] = self.balances.get(to, 0) + amount

    def rule_burn(self, holder, amount):
        if amount > self.balances.get(holder, 0):
            with reverts():
                self.token.burn(amount, {"from": holder})
            return
        self.token.burn(amount, {"from": holder})
        self.balances[holder] = self.balances.get(holder, 0) - amount

    def invariant_supply(self):
        assert self.token.totalSupply() == sum(self.balances.values()), "supply is not the sum of the balances"
        assert self.token.minting_finished() == self.finished, "minting_finished wrong"
