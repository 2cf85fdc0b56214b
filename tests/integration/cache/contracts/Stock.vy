# pragma version ~=0.4.3
# Two checks without a reason in one function: which one failed depends on the state.

paused: public(bool)
stock: public(uint256)


@external
def set_paused(p: bool):
    self.paused = p


@external
def restock(x: uint256):
    self.stock += x


@external
def take(x: uint256):
    assert not self.paused  # dev: paused
    self.stock -= x  # dev: out of stock
