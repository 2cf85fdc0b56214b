"""The vault's balances against a model; nothing here pauses it, reads its events or asks for its floor.

A withdrawal takes part of what the account holds, all of it, or more (which must revert), each
by its own rule, as a handler bounds its amounts: a drawn amount is seldom exactly the balance.
"""

from evmstate import reverts, strategy


class VaultMachine:
    amount = strategy("uint256", max_value=100)
    account = strategy("address", length=2)  # two accounts tell the balances apart, and meet again often

    def __init__(cls, accounts, Vault):
        cls.vault = Vault.deploy({"from": accounts[0]})

    def setup(self):
        self.balances = {}

    def rule_deposit(self, account, amount):
        self.vault.deposit(amount, {"from": account})
        self.balances[account] = self.balances.get(account, 0) + amount

    def rule_withdraw(self, account, amount):
        balance = self.balances.get(account, 0)
        if balance == 0:
            return  # nothing to take part of
        amount %= balance  # less than the balance
        self.vault.withdraw(amount, {"from": account})
        self.balances[account] = balance - amount

    def rule_withdraw_all(self, account):
        self.vault.withdraw(self.balances.get(account, 0), {"from": account})
        self.balances[account] = 0

    def rule_withdraw_too_much(self, account, amount):
        with reverts("insufficient"):
            self.vault.withdraw(self.balances.get(account, 0) + 1 + amount, {"from": account})

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.vault.balances(account) == balance

    def invariant_total(self):
        assert self.vault.total() == sum(self.balances.values())
