# pragma version ~=0.4.3
# A collateralised debt pool: accounts lock ether and borrow a stable unit against it at a fixed
# price. A position whose debt reaches its limit (75% of its collateral's value) is liquidatable;
# a borrow must leave the position strictly below its limit.

PRICE: constant(uint256) = 2000  # stable units per wei of collateral
LTV: constant(uint256) = 75  # percent

collateral: public(HashMap[address, uint256])
debt: public(HashMap[address, uint256])
total_debt: public(uint256)


@view
@internal
def _limit(who: address) -> uint256:
    return self.collateral[who] * PRICE * LTV // 100


@view
@external
def limit(who: address) -> uint256:
    return self._limit(who)


@view
@external
def liquidatable(who: address) -> bool:
    return self.debt[who] > 0 and self.debt[who] >= self._limit(who)


@external
@payable
def deposit():
    assert msg.value > 0, "nothing deposited"
    self.collateral[msg.sender] += msg.value


@external
def borrow(amount: uint256):
    assert amount > 0, "nothing borrowed"
    new_debt: uint256 = self.debt[msg.sender] + amount
    assert new_debt <= self._limit(msg.sender), "over the limit"
    self.debt[msg.sender] = new_debt
    self.total_debt += amount


@external
def repay(amount: uint256):
    assert amount <= self.debt[msg.sender], "more than owed"
    self.debt[msg.sender] -= amount
    self.total_debt -= amount
