"""A bug every run meets at its first step: rule_send_all sends a whole balance, which Ledger.transfer refuses.

Copied into a project's machines/ by benchmarks/keep_going.py (--case hits): a campaign counts every later run that
meets it under the one failure it reports.
"""

from evmstate import strategy


class WholeMachine:
    amount = strategy("uint256")

    def __init__(cls, accounts, Ledger):
        cls.accounts = accounts
        cls.ledger = Ledger.deploy({"from": accounts[0]})

    def rule_send_all(self, amount):
        sender = self.accounts[2]
        self.ledger.mint(sender, amount % 2**64 + 1, {"from": self.accounts[0]})
        self.ledger.transfer(self.accounts[3], self.ledger.balanceOf(sender), {"from": sender})
