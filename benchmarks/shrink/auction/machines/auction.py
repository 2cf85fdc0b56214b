"""A reserve auction against a model of its rules: which bids it takes, by how much a bid must rise, when it ends.

The first bid at or above the reserve starts a day's auction; a bid in its last 15 minutes
extends it to 15 minutes after that bid. No rule moves the clock: evmstate's waits between steps
do ([fuzz] max_time_delay).
"""

from evmstate import reverts, strategy

DURATION = 86400
BUFFER = 15 * 60
RESERVE = 10**17  # 0.1 ether
INCREMENT_BPS = 500  # 5%


class AuctionMachine:
    bidder = strategy("address")
    amount = strategy("uint256", max_value="50 ether")

    def __init__(cls, accounts, chain, Auction):
        cls.chain, cls.beneficiary = chain, accounts[9]
        cls.auction = Auction.deploy(accounts[9], DURATION, BUFFER, RESERVE, INCREMENT_BPS, {"from": accounts[0]})

    def setup(self):
        self.end = None  # no bid yet
        self.highest, self.leader = 0, None
        self.owed = {}
        self.settled = False

    def rule_bid(self, bidder, amount):
        now = self.chain.time()
        if self.end is None:
            if amount < RESERVE:
                with reverts("below the reserve price"):
                    self.auction.bid({"from": bidder, "value": amount})
                return
            self.auction.bid({"from": bidder, "value": amount})
            self.end = now + DURATION
        elif now >= self.end:
            with reverts("auction ended"):
                self.auction.bid({"from": bidder, "value": amount})
            return
        elif amount < self.highest + self.highest * INCREMENT_BPS // 10_000:
            with reverts("bid too low"):
                self.auction.bid({"from": bidder, "value": amount})
            return
        else:
            self.auction.bid({"from": bidder, "value": amount})
            self.owed[self.leader] = self.owed.get(self.leader, 0) + self.highest
            self.end = max(self.end, now + BUFFER)
        self.highest, self.leader = amount, bidder

    def rule_withdraw(self, bidder):
        tx = self.auction.withdraw({"from": bidder})
        assert tx.return_value == self.owed.pop(bidder, 0), "paid back other than was owed"

    def rule_settle(self):
        if self.end is None:
            with reverts("no bids"):
                self.auction.settle()
        elif self.chain.time() < self.end:
            with reverts("auction not ended"):
                self.auction.settle()
        elif self.settled:
            with reverts("already settled"):
                self.auction.settle()
        else:
            self.auction.settle()
            self.settled = True

    def invariant_holds_every_bid(self):
        held = 0 if self.settled else self.highest
        assert self.auction.balance() == held + sum(self.owed.values()), "the auction holds other than the bids it owes"

    def invariant_end(self):
        assert self.auction.end_time() == (self.end or 0), "the end time moved otherwise"
