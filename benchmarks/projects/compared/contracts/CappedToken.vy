# pragma version ~=0.4.3
# A capped token: the minter mints up to the cap; once the supply reaches the cap minting is
# over for good. Holders transfer and burn.

minter: public(address)
cap: public(uint256)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
minting_finished: public(bool)


@deploy
def __init__():
    self.minter = msg.sender
    self.cap = 1_000_000 * 10**18


@external
def mint(to: address, amount: uint256):
    assert msg.sender == self.minter, "minter only"
    assert not self.minting_finished, "minting is over"
    new_supply: uint256 = self.totalSupply + amount
    assert new_supply <= self.cap, "over the cap"
    self.balanceOf[to] += amount
    if new_supply >= self.cap:
        self.minting_finished = True
    else:
        self.totalSupply = new_supply


@external
def transfer(to: address, amount: uint256) -> bool:
    self.balanceOf[msg.sender] -= amount
    self.balanceOf[to] += amount
    return True


@external
def burn(amount: uint256):
    self.balanceOf[msg.sender] -= amount
    self.totalSupply -= amount
