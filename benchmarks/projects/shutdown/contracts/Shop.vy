# pragma version ~=0.4.0
"""
@title A shop that can be shut down for good
@notice Past 2,000 units sold, a volume rebate is owed on every later sale; the rebate is booked
        twice (the planted bug), which only a long run of sales before the shutdown reaches.
"""

open_: public(bool)
sold: public(uint256)
rebates: public(uint256)
rebates_paid: public(uint256)


@deploy
def __init__():
    self.open_ = True


@external
def buy(n: uint256):
    assert self.open_, "closed"
    self.sold += n
    if self.sold >= 2000:
        self.rebates += n
        self.rebates_paid += 2 * n


@external
def restock(n: uint256):
    assert self.open_, "closed"
    assert n <= self.sold, "more than was sold"
    self.sold -= n


@external
def shutdown():
    assert self.open_, "closed"
    self.open_ = False
