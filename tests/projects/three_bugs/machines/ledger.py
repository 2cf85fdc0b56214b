"""The Ledger token against a model of its balances and locks: three bugs, each found on its own.

- lock() overwrites the amount locked before: invariant_locked
- burning a whole balance leaves the supply as it was: invariant_supply
- transferring everything unlocked reverts ("amount is locked"): a revert in rule_transfer
"""

from collections import defaultdict

from evmstate import strategy

MAX_SUPPLY = 2**128


class LedgerMachine:
    amount = strategy("uint256")
    sender = strategy("address")
    receiver = strategy("address")

    def __init__(cls, accounts, Ledger):
        cls.accounts = accounts
        cls.ledger = Ledger.deploy({"from": accounts[0]})

    def setup(self):
        self.balances = defaultdict(int)  # by address: the search draws addresses beyond the accounts too
        self.locks = defaultdict(int)

    def unlocked(self, holder):
        return self.balances[holder] - self.locks[holder]

    def rule_mint(self, receiver, amount):
        amount %= MAX_SUPPLY - sum(self.balances.values()) + 1
        self.ledger.mint(receiver, amount, {"from": self.accounts[0]})
        self.balances[receiver] += amount

    def rule_lock(self, sender, amount):
        amount %= self.unlocked(sender) + 1
        self.ledger.lock(amount, {"from": sender})
        self.locks[sender] += amount

    def rule_transfer(self, sender, receiver, amount):
        amount %= self.unlocked(sender) + 1
        self.ledger.transfer(receiver, amount, {"from": sender})
        self.balances[sender] -= amount
        self.balances[receiver] += amount

    def rule_burn(self, sender, amount):
        amount %= self.unlocked(sender) + 1
        self.ledger.burn(amount, {"from": sender})
        self.balances[sender] -= amount

    def invariant_locked(self):
        for holder, amount in self.locks.items():
            assert self.ledger.locked(holder) == amount

    def invariant_supply(self):
        assert self.ledger.totalSupply() == sum(self.balances.values())
