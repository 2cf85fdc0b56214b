# pragma version ~=0.4.3
# A vault: deposits up to a cap, withdrawals, a pause and a limit. Its machine checks the balances, not the events.

event Deposited:
    owner: indexed(address)
    amount: uint256

UNUSED: constant(uint256) = 7
MAX_DEPOSIT: constant(uint8) = 255

owner: public(address)
total: public(uint256)
balances: public(HashMap[address, uint256])
paused: public(bool)


@deploy
def __init__():
    self.owner = msg.sender


@external
def deposit(amount: uint256):
    assert not self.paused, "paused"
    assert amount <= convert(MAX_DEPOSIT, uint256), "too much"
    self.balances[msg.sender] += amount
    self.total += amount
    log Deposited(owner=msg.sender, amount=amount)


@external
def withdraw(amount: uint256):
    assert self.balances[msg.sender] >= amount, "insufficient"
    self.balances[msg.sender] -= amount
    self.total -= amount


@external
def pause():
    assert msg.sender == self.owner, "not owner"
    self.paused = True


@external
@view
def above(amount: uint256, limit: uint256) -> uint256:
    if amount >= limit:
        return amount
    raise "below the limit"
