"""The vault's balances against a model; nothing here pauses it, reads its events or asks for its floor."""

from evmstate import reverts, strategy


class VaultMachine:
    amount = strategy("uint256", max_value=100)
    account = strategy("address")

    def __init__(cls, accounts, Vault):
        cls.vault = Vault.deploy({"from": accounts[0]})

    def setup(self):
        self.balances = {}

    def rule_deposit(self, account, amount):
        self.vault.deposit(amount, {"from": account})
        self.balances[account] = self.balances.get(account, 0) + amount

    def rule_withdraw(self, account, amount):
        if self.balances.get(account, 0) >= amount:
            self.vault.withdraw(amount, {"from": account})
            self.balances[account] = self.balances.get(account, 0) - amount
        else:
            with reverts("insufficient"):
                self.vault.withdraw(amount, {"from": account})

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.vault.balances(account) == balance

    def invariant_total(self):
        assert self.vault.total() == sum(self.balances.values())
