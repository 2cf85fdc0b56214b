"""A claim code the contract derives and keeps to itself: a claim must pass back the exact number
an earlier call stored. The machine never learns the code; the dictionary sees it stored."""

from evmstate import TransactionReverted, reverts, strategy


class ClaimsMachine:
    code = strategy("uint256")

    def __init__(cls, Claims):
        cls.claims = Claims.deploy()

    def setup(self):
        self.registered = False
        self.paid = False

    def rule_register(self):
        if self.registered:
            with reverts("already registered"):
                self.claims.register()
        else:
            self.claims.register()
            self.registered = True

    def rule_claim(self, code):
        try:
            self.claims.claim(code)
        except TransactionReverted:
            return  # a wrong code: the machine cannot tell the right one in advance
        assert self.registered and not self.paid, "a claim was paid twice"
        self.paid = True

    def invariant_claimed(self):
        assert self.claims.claimed() == int(self.paid)
