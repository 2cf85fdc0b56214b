# pragma version ~=0.4.0
"""
@title A reserve auction: an English auction whose clock starts with its first bid
@notice The first bid at or above the reserve price starts the auction, which then runs
        `duration` seconds. Each later bid must rise by at least `min_increment_bps` of the
        highest one; a bid in the last `time_buffer` seconds moves the end to `time_buffer`
        seconds after it (against sniping). Outbid bidders withdraw what they bid; once the
        end has passed anyone settles, and the beneficiary is paid the highest bid. (The rules
        of the reserve auctions NFT marketplaces run.)
"""

event Bid:
    bidder: indexed(address)
    amount: uint256
    end_time: uint256

event Settled:
    winner: indexed(address)
    amount: uint256

beneficiary: public(address)
duration: public(uint256)
time_buffer: public(uint256)
reserve_price: public(uint256)
min_increment_bps: public(uint256)
end_time: public(uint256)  # 0 until the first bid
highest_bidder: public(address)
highest_bid: public(uint256)
settled: public(bool)
pending_returns: public(HashMap[address, uint256])


@deploy
def __init__(beneficiary: address, duration: uint256, time_buffer: uint256, reserve_price: uint256, min_increment_bps: uint256):
    self.beneficiary = beneficiary
    self.duration = duration
    self.time_buffer = time_buffer
    self.reserve_price = reserve_price
    self.min_increment_bps = min_increment_bps


@external
@payable
def bid():
    if self.end_time == 0:
        assert msg.value >= self.reserve_price, "below the reserve price"
        self.end_time = block.timestamp + self.duration
    else:
        assert block.timestamp < self.end_time, "auction ended"
        assert msg.value >= self.highest_bid + self.highest_bid * self.min_increment_bps // 10000, "bid too low"
        self.pending_returns[self.highest_bidder] += self.highest_bid
        if self.end_time - block.timestamp < self.time_buffer:
            self.end_time = block.timestamp + self.time_buffer
    self.highest_bidder = msg.sender
    self.highest_bid = msg.value
    log Bid(bidder=msg.sender, amount=msg.value, end_time=self.end_time)


@external
def withdraw() -> uint256:
    amount: uint256 = self.pending_returns[msg.sender]
    self.pending_returns[msg.sender] = 0
    if amount > 0:
        send(msg.sender, amount)
    return amount


@external
def settle():
    assert self.end_time != 0, "no bids"
    assert block.timestamp >= self.end_time, "auction not ended"
    assert not self.settled, "already settled"
    self.settled = True
    send(self.beneficiary, self.highest_bid)
    log Settled(winner=self.highest_bidder, amount=self.highest_bid)
