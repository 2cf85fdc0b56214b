"""The bank's promise: the balances it records are what its holders deposited and moved, and are
backed by the ether it holds."""

from evmstate import reverts, strategy


class GuardedBankMachine:
    # holders that call back when paid: with the call they are paid for, and with another of theirs
    settings = {"actors": ["reenters", "reenters-other"]}
    holder = strategy("address")
    to = strategy("address")
    amount = strategy("uint256", max_value="10 ether")

    def __init__(cls, GuardedBank):
        cls.bank = GuardedBank.deploy()

    def setup(self):
        self.balances = {}

    def rule_deposit(self, holder, amount):
        if amount > holder.balance():
            return  # no holder sends more ether than it has
        self.bank.deposit({"from": holder, "value": amount})
        self.balances[holder] = self.balances.get(holder, 0) + amount

    def rule_transfer(self, holder, to, amount):
        held = self.balances.get(holder, 0)
        if amount > held:
            with reverts("not enough"):
                self.bank.transfer(to, amount, {"from": holder})
            return
        self.bank.transfer(to, amount, {"from": holder})
        self.balances[holder] = held - amount
        self.balances[to] = self.balances.get(to, 0) + amount

    def rule_withdraw(self, holder):
        self.bank.withdraw({"from": holder})
        self.balances[holder] = 0

    def invariant_balances_backed(self):
        recorded = {holder: self.bank.balances(holder) for holder in self.balances}
        assert recorded == self.balances
        # solvency: what a holder leaves in the bank by its own re-entry (a deposit made inside its withdrawal, zeroed
        # after it) is ether the bank keeps, not a balance it owes
        assert sum(recorded.values()) <= self.bank.balance()
