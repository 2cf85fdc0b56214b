"""Claim codes the contract derives and keeps to itself: a claim must pass back the exact number
an earlier call stored. The machine never learns the code; the dictionary sees it stored."""

from evmstate import TransactionReverted, reverts, strategy


class ClaimsMachine:
    who = strategy("address")
    code = strategy("uint256")

    def __init__(cls, Claims):
        cls.claims = Claims.deploy()

    def setup(self):
        self.registered = set()
        self.paid = set()

    def rule_register(self, who):
        if who in self.registered:
            with reverts("already registered"):
                self.claims.register({"from": who})
        else:
            self.claims.register({"from": who})
            self.registered.add(who)

    def rule_claim(self, who, code):
        try:
            self.claims.claim(code, {"from": who})
        except TransactionReverted:
            return  # a wrong code: the machine cannot tell a right one in advance
        assert who in self.registered and who not in self.paid, "a claim was paid twice"
        self.paid.add(who)

    def invariant_claimed(self):
        assert self.claims.claimed() == len(self.paid)
