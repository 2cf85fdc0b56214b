# pragma version ~=0.4.3
# A lending pool with one collateral asset and one debt asset. The owner sets the price of the
# collateral in the debt asset (1e18 = one for one). A borrower may borrow up to LTV of the value
# of their collateral; a position whose debt exceeds LIQUIDATION_THRESHOLD of that value may be
# liquidated: the liquidator repays up to half the debt and receives collateral worth what they
# repaid plus a 5% bonus.
from ethereum.ercs import IERC20

PRICE_PRECISION: constant(uint256) = 10**18
BPS: constant(uint256) = 10000
LTV: constant(uint256) = 5000
LIQUIDATION_THRESHOLD: constant(uint256) = 7500
BONUS: constant(uint256) = 10500
CLOSE_FACTOR: constant(uint256) = 5000

owner: public(address)
collateral_token: public(IERC20)
debt_token: public(IERC20)
price: public(uint256)
collateral: public(HashMap[address, uint256])
debt: public(HashMap[address, uint256])
total_debt: public(uint256)


@deploy
def __init__(_collateral: IERC20, _debt: IERC20):
    self.owner = msg.sender
    self.collateral_token = _collateral
    self.debt_token = _debt
    self.price = PRICE_PRECISION


@view
@internal
def _value(_account: address) -> uint256:
    return self.collateral[_account] * self.price // PRICE_PRECISION


@view
@internal
def _max_borrow(_account: address) -> uint256:
    return self._value(_account) * LTV // BPS


@view
@external
def max_borrow(_account: address) -> uint256:
    return self._max_borrow(_account)


@view
@internal
def _liquidatable(_account: address) -> bool:
    return self.debt[_account] * BPS > self._value(_account) * LIQUIDATION_THRESHOLD


@view
@external
def liquidatable(_account: address) -> bool:
    return self._liquidatable(_account)


@external
def set_price(_price: uint256):
    assert msg.sender == self.owner, "Not owner"
    assert _price > 0, "Zero price"
    self.price = _price


@external
def deposit(_amount: uint256):
    self.collateral[msg.sender] += _amount
    extcall self.collateral_token.transferFrom(msg.sender, self, _amount)


@external
def withdraw(_amount: uint256):
    self.collateral[msg.sender] -= _amount
    assert self.debt[msg.sender] <= self._max_borrow(msg.sender), "Undercollateralized"
    extcall self.collateral_token.transfer(msg.sender, _amount)


@external
def borrow(_amount: uint256):
    assert self.debt[msg.sender] + _amount <= self._max_borrow(msg.sender), "Undercollateralized"
    self.debt[msg.sender] += _amount
    self.total_debt += _amount
    extcall self.debt_token.transfer(msg.sender, _amount)


@external
def repay(_amount: uint256):
    self.debt[msg.sender] -= _amount
    self.total_debt -= _amount
    extcall self.debt_token.transferFrom(msg.sender, self, _amount)


@external
def liquidate(_borrower: address, _amount: uint256):
    assert self._liquidatable(_borrower), "Healthy"
    assert _amount * BPS <= self.debt[_borrower] * CLOSE_FACTOR, "Over close factor"
    seized: uint256 = min(_amount * BONUS // BPS * PRICE_PRECISION // self.price, self.collateral[_borrower])
    self.debt[_borrower] -= _amount
    self.total_debt -= _amount
    self.collateral[_borrower] -= seized
    extcall self.debt_token.transferFrom(msg.sender, self, _amount)
    extcall self.collateral_token.transfer(msg.sender, seized)
