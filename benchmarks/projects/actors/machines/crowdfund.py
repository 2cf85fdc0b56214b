"""The crowdfund's promise: after the deadline, a goal reached pays the beneficiary, a goal missed
pays every funder back."""

from evmstate import reverts, strategy

GOAL = 10 * 10**18
DURATION = 7 * 24 * 3600


class CrowdfundMachine:
    funder = strategy("address")
    amount = strategy("uint256", min_value=1, max_value="5 ether")

    def __init__(cls, Crowdfund, accounts, chain):
        cls.chain = chain
        cls.beneficiary = accounts[9]
        cls.fund = Crowdfund.deploy(accounts[9], GOAL, DURATION, {"from": accounts[0]})
        cls.deadline = cls.fund.deadline()

    def setup(self):
        self.ended = False
        self.paid = {}  # what each funder put in, and has not been paid back

    def rule_participate(self, funder, amount):
        if self.ended or self.chain.time() >= self.deadline:
            with reverts("the crowdfund has ended"):
                self.fund.participate({"from": funder, "value": amount})
            return
        self.fund.participate({"from": funder, "value": amount})
        self.paid[funder] = self.paid.get(funder, 0) + amount

    def rule_end(self):
        if not self.ended:
            self.chain.sleep(max(0, self.deadline - self.chain.time()))
            self.ended = True
        if sum(self.paid.values()) >= GOAL:
            before = self.beneficiary.balance()
            self.fund.finalize()
            assert self.beneficiary.balance() - before == sum(self.paid.values())
        else:
            before = {f: f.balance() for f in self.paid}
            self.fund.refund()
            for f, value in self.paid.items():
                assert f.balance() - before[f] == value, f"{f} was not paid back"
        self.paid = {}

    def invariant_holds_what_it_owes(self):
        assert self.fund.balance() == sum(self.paid.values())
