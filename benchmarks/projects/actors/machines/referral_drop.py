"""The drop's promise: one token per address, however it was claimed."""

from evmstate import reverts, strategy


class ReferralDropMachine:
    # receivers that call back from the token's hook: with the call they are paid for, and with another
    settings = {"actors": ["reenters-erc721", "reenters-other"]}
    who = strategy("address")
    referrer = strategy("address")

    def __init__(cls, ReferralDrop):
        cls.drop = ReferralDrop.deploy()

    def setup(self):
        self.claimed = set()

    def rule_claim(self, who):
        if who in self.claimed:
            with reverts("claimed"):
                self.drop.claim({"from": who})
            return
        self.drop.claim({"from": who})
        self.claimed.add(who)

    def rule_claim_with_referral(self, who, referrer):
        if who in self.claimed or referrer == who:
            with reverts("claimed" if who in self.claimed else "self referral"):
                self.drop.claim_with_referral(referrer, {"from": who})
            return
        self.drop.claim_with_referral(referrer, {"from": who})
        self.claimed.add(who)

    def invariant_one_each(self):
        assert self.drop.minted() == len(self.claimed)
        for who in self.claimed:
            assert self.drop.balance_of(who) == 1
