"""A shallow bug nearly every run meets, and a deeper one behind three steps of other rules.

- rule_send_all sends a whole balance, which Ledger.transfer refuses ("amount is locked"): a revert at the first call of
  the rule, drawn at eight steps in ten
- lock() overwrites the amount locked before: invariant_locked, after a mint and two locks

Copied into a project's machines/ by tests/cli/test_keep_going.py and benchmarks/keep_going.py (it is kept out of
machines/ so that the three-bug campaign sees three bugs).
"""

from evmstate import strategy


class ShallowMachine:
    amount = strategy("uint256")
    settings = {"weights": {"rule_send_all": 8}}

    def __init__(cls, accounts, Ledger):
        cls.accounts = accounts
        cls.ledger = Ledger.deploy({"from": accounts[0]})

    def setup(self):
        self.balance = self.locked = 0

    def rule_send_all(self, amount):
        sender = self.accounts[2]
        self.ledger.mint(sender, amount % 2**64 + 1, {"from": self.accounts[0]})
        self.ledger.transfer(self.accounts[3], self.ledger.balanceOf(sender), {"from": sender})

    def rule_mint(self, amount):
        amount %= 2**64
        self.ledger.mint(self.accounts[1], amount, {"from": self.accounts[0]})
        self.balance += amount

    def rule_lock(self, amount):
        amount %= self.balance - self.locked + 1
        self.ledger.lock(amount, {"from": self.accounts[1]})
        self.locked += amount

    def invariant_locked(self):
        assert self.ledger.locked(self.accounts[1]) == self.locked
