# pragma version ~=0.4.3
# A capped token whose holders lock part of their balance. Three bugs are planted, each on a path of
# its own (see machines/ledger.py): lock() overwrites, burn() of a whole balance returns before the
# supply, transfer() refuses the whole unlocked balance.

MAX_SUPPLY: constant(uint256) = 2**128

balanceOf: public(HashMap[address, uint256])
locked: public(HashMap[address, uint256])
totalSupply: public(uint256)
holders: public(uint256)
owner: address


@deploy
def __init__():
    self.owner = msg.sender


@external
def mint(_to: address, _amount: uint256):
    assert msg.sender == self.owner, "only the owner mints"
    assert self.totalSupply + _amount <= MAX_SUPPLY, "cap reached"
    if self.balanceOf[_to] == 0 and _amount > 0:
        self.holders += 1
    self.balanceOf[_to] += _amount
    self.totalSupply += _amount


@external
def lock(_amount: uint256):
    assert self.balanceOf[msg.sender] - self.locked[msg.sender] >= _amount, "not enough unlocked"
    # planted: the lock replaces the one before instead of adding to it
    self.locked[msg.sender] = _amount


@external
def transfer(_to: address, _amount: uint256):
    unlocked: uint256 = self.balanceOf[msg.sender] - self.locked[msg.sender]
    # planted: < where <= was meant, so the whole unlocked balance cannot be sent (a transfer of nothing passes, as
    # ERC-20 wants)
    assert _amount < unlocked or _amount == 0, "amount is locked"
    self.balanceOf[msg.sender] -= _amount
    self.balanceOf[_to] += _amount


@external
def burn(_amount: uint256):
    assert self.balanceOf[msg.sender] - self.locked[msg.sender] >= _amount, "amount is locked"
    if _amount == self.balanceOf[msg.sender] and _amount > 0:
        self.balanceOf[msg.sender] = 0
        self.holders -= 1
        # planted: a holder leaving returns before the supply is cut
        return
    self.balanceOf[msg.sender] -= _amount
    self.totalSupply -= _amount
