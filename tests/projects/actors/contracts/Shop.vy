# pragma version ~=0.4.0
open_: public(bool)
sold: public(uint256)

@deploy
def __init__():
    self.open_ = True

@external
def buy(n: uint256):
    assert self.open_, "closed"
    self.sold += n

@external
def restock(n: uint256):
    assert self.open_, "closed"
    self.sold -= min(n, self.sold)

@external
def shutdown():
    assert self.open_, "closed"
    self.open_ = False
