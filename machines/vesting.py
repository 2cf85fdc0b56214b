"""Vesting with a one-year cliff: the beneficiary must never hold more than has vested.

No rule moves the clock: the time that passes between calls is drawn before each step (see
[fuzz] max_time_delay), and the planted bug shows only at a release after the cliff, a year
after the grant. The waits jump to the time the contract compares block.timestamp with.
"""

from evmstate import reverts

YEAR = 365 * 86400


class VestingMachine:
    cliff = YEAR

    def __init__(cls, accounts, chain, Vesting):
        cls.chain, cls.owner, cls.beneficiary = chain, accounts[0], accounts[1]
        cls.vesting = Vesting.deploy(cls.cliff, 4 * YEAR, {"from": accounts[0]})

    def setup(self):
        self.granted_at = None
        self.received = 0

    def rule_grant(self):
        if self.granted_at is None:
            self.vesting.grant(self.beneficiary, {"from": self.owner, "value": "4 ether"})
            self.granted_at = self.chain.time()
        else:
            with reverts("already granted"):
                self.vesting.grant(self.beneficiary, {"from": self.owner, "value": "4 ether"})

    def rule_release(self):
        before = self.beneficiary.balance()
        if self.granted_at is None or self.chain.time() < self.granted_at + self.cliff:
            with reverts():
                self.vesting.release({"from": self.owner})
            return
        self.vesting.release({"from": self.owner})
        self.received += self.beneficiary.balance() - before

    def invariant_no_more_than_vested(self):
        if self.granted_at is not None:
            elapsed = self.chain.time() - self.granted_at
            assert self.received <= 4 * 10**18 * elapsed // (4 * YEAR), "released more than has vested"
