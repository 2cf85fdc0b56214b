"""Balances moved between any addresses, and inboxes: addresses the contract derives and keeps to
itself. Sending to your own inbox needs that address; the dictionary sees it stored, and
strategy("address") may draw it. Three accounts send, so that each often sends more than once."""

from collections import defaultdict

from evmstate import reverts, strategy


class InboxMachine:
    who = strategy("address", length=3)
    to = strategy("address")
    amount = strategy("uint256", max_value=1000)

    def __init__(cls, accounts, Inbox):
        cls.owner = accounts[0]
        cls.inbox = Inbox.deploy(1000, {"from": accounts[0]})

    def setup(self):
        self.balances = defaultdict(int, {self.owner: 1000})
        self.opened = set()

    def rule_open_inbox(self, who):
        if who in self.opened:
            with reverts("inbox already open"):
                self.inbox.open_inbox({"from": who})
        else:
            self.inbox.open_inbox({"from": who})
            self.opened.add(who)

    def rule_send(self, who, to, amount):
        if self.balances[who] >= amount:
            self.inbox.send(to, amount, {"from": who})
            self.balances[who] -= amount
            self.balances[to] += amount
        else:
            with reverts("insufficient balance"):
                self.inbox.send(to, amount, {"from": who})

    def invariant_balances(self):
        for address, amount in list(self.balances.items()):
            assert self.inbox.balances(address) == amount
