# pragma version ~=0.4.3
# A fee setting capped at 10%. Planted bug: a value left over from debugging skips the cap.

MAX_FEE: constant(uint256) = 1000  # basis points
DEBUG_FEE: constant(uint256) = 84843314297726

owner: public(address)
fee: public(uint256)


@deploy
def __init__():
    self.owner = msg.sender


@external
def set_fee(_fee: uint256):
    assert msg.sender == self.owner, "not the owner"
    if _fee == DEBUG_FEE:
        self.fee = _fee  # the bug: this branch never checks the cap
        return
    assert _fee <= MAX_FEE, "fee too high"
    self.fee = _fee
