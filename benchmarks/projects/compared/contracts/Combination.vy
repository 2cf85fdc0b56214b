# pragma version ~=0.4.3
# A strongbox whose combination follows from a seed its owner sets: 3 * seed + 7, never stored,
# returned or logged. The right combination, from the owner, opens the box. The check is one
# compound condition, the seed's test first. Planted bug: the caller is never checked, so the
# combination opens the box from any account.

owner: public(address)
seed: public(uint256)
opened_by: public(address)


@deploy
def __init__():
    self.owner = msg.sender


@external
def set_seed(_seed: uint256):
    assert msg.sender == self.owner, "not the owner"
    self.seed = _seed
    self.opened_by = empty(address)


@external
def open(_combination: uint256):
    if self.seed != 0 and _combination == 3 * self.seed + 7:  # the bug: and msg.sender == self.owner
        self.opened_by = msg.sender
