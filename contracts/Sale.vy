# pragma version ~=0.4.3
# Units sold at the owner's price plus a fee. A buyer names a quote, the most it will pay; a quote
# of at least the price buys one unit. Planted bug: a quote of exactly the price is refused.

FEE_BPS: constant(uint256) = 30
MIN_PRICE: constant(uint256) = 1_000_000
MAX_PRICE: constant(uint256) = 10**30

owner: public(address)
base_price: public(uint256)
bought: public(HashMap[address, uint256])


@deploy
def __init__():
    self.owner = msg.sender


@external
def set_price(_price: uint256):
    assert msg.sender == self.owner, "not the owner"
    assert _price >= MIN_PRICE and _price <= MAX_PRICE, "price out of range"
    self.base_price = _price


@external
def buy(_quote: uint256):
    assert self.base_price != 0, "not for sale"
    price: uint256 = self.base_price + self.base_price * FEE_BPS // 10_000
    assert _quote > price, "quote below price"  # the bug: should be _quote >= price
    self.bought[msg.sender] += 1
