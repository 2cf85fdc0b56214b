# pragma version ~=0.4.3

limit: public(uint256)


@deploy
def __init__(_limit: uint256):
    assert _limit > 0  # dev: zero limit
    self.limit = 100 // _limit
