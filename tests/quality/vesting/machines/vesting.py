"""Vesting grants: a decorator-style machine whose planted bug needs three steps."""

from evmstate import Bundle, StateMachine, consumes, invariant, reverts, route, rule, strategy

amounts = strategy("uint256", min_value=1, max_value=10**6)
periods = strategy("uint256", max_value=1000)


class VestingMachine(StateMachine):
    active = Bundle("active")
    revoked = Bundle("revoked")

    def __init__(cls, accounts, chain, Vesting):
        cls.accounts, cls.chain = accounts, chain
        cls.vesting = Vesting.deploy({"from": accounts[0]})

    def setup(self):
        self.claimed = 0

    @rule(beneficiary=strategy("address"), amount=amounts, delay=periods, cliff=periods, duration=periods)
    def grant(self, beneficiary, amount, delay, cliff, duration):
        duration, cliff = duration + 1, min(cliff, duration)
        grant_id = self.vesting.grant(beneficiary, amount, delay, cliff, duration, {"from": self.accounts[0]}).return_value
        return route(self.active, (grant_id, beneficiary))

    @rule(seconds=periods)
    def sleep(self, seconds):
        self.chain.sleep(seconds)

    @rule(grant=active)
    def claim(self, grant):
        grant_id, beneficiary = grant
        self.claimed += self.vesting.claim(grant_id, {"from": beneficiary}).return_value

    @rule(grant=consumes(active))
    def revoke(self, grant):
        self.vesting.revoke(grant[0], {"from": self.accounts[0]})
        return route(self.revoked, grant)

    @rule(grant=revoked)
    def claim_revoked(self, grant):
        grant_id, beneficiary = grant
        with reverts("Revoked"):
            self.vesting.claim(grant_id, {"from": beneficiary})

    @invariant()
    def claimed_total(self):
        assert self.vesting.total_claimed() == self.claimed
