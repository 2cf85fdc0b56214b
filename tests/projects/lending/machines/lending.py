"""A new user's machine for a lending pool: collateral and debt amounts, all of them small."""

from evmstate import reverts, strategy


class LendingMachine:
    value = strategy("uint256", max_value=3)
    amount = strategy("uint256", max_value=3)
    who = strategy("address")

    def __init__(cls, accounts, Lending):
        cls.accounts = accounts
        cls.pool = Lending.deploy({"from": accounts[0]})

    def setup(self):
        self.collateral = {a: 0 for a in self.accounts}
        self.debt = {a: 0 for a in self.accounts}

    def rule_deposit(self, who, value):
        self.pool.deposit({"from": who, "value": value})
        self.collateral[who] += value

    def rule_borrow(self, who, amount):
        if self.debt[who] + amount <= self.collateral[who]:
            self.pool.borrow(amount, {"from": who})
            self.debt[who] += amount
        else:
            with reverts("undercollateralized"):
                self.pool.borrow(amount, {"from": who})

    def rule_repay(self, who, amount):
        amount = min(amount, self.debt[who])
        self.pool.repay(amount, {"from": who})
        self.debt[who] -= amount

    def invariant_totals(self):
        assert self.pool.total_collateral() == sum(self.collateral.values())
        assert self.pool.total_debt() == sum(self.debt.values())
        assert self.pool.total_debt() <= self.pool.total_collateral()
