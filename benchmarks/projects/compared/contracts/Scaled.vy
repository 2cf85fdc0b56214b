# pragma version ~=0.4.3
# The strongbox again, its combination now the argument of the arithmetic: the right combination c
# is the one with 3 * c + 7 == seed, a number the contract never computes (it computes 3 * c + 7
# from what it is given). Planted bug: the caller is never checked, so the combination opens the
# box from any account.

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
    if self.seed != 0 and 3 * _combination + 7 == self.seed:  # the bug: and msg.sender == self.owner
        self.opened_by = msg.sender
