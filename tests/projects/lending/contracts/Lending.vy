# pragma version ~=0.4.3
# Deposit collateral, borrow up to as much, repay. The totals are amounts, small in the tests.

total_collateral: public(uint256)
total_debt: public(uint256)
collateral: public(HashMap[address, uint256])
debt: public(HashMap[address, uint256])


@external
@payable
def deposit():
    self.collateral[msg.sender] += msg.value
    self.total_collateral += msg.value


@external
def borrow(_amount: uint256):
    assert self.debt[msg.sender] + _amount <= self.collateral[msg.sender], "undercollateralized"
    self.debt[msg.sender] += _amount
    self.total_debt += _amount


@external
def repay(_amount: uint256):
    assert _amount <= self.debt[msg.sender], "more than owed"
    self.debt[msg.sender] -= _amount
    self.total_debt -= _amount
