# pragma version ~=0.4.3
# A payable vault with a time lock: exercises value, reasons, block time and block number.

event Deposited:
    owner: indexed(address)
    amount: uint256
    unlock_at: uint256

owner: public(address)
locked: public(HashMap[address, uint256])
unlock_at: public(HashMap[address, uint256])
last_block: public(uint256)


@deploy
@payable
def __init__():
    self.owner = msg.sender


@external
@payable
def deposit(_lock_seconds: uint256):
    assert msg.value > 0, "Nothing sent"
    self.locked[msg.sender] += msg.value
    self.unlock_at[msg.sender] = block.timestamp + _lock_seconds
    self.last_block = block.number
    log Deposited(owner=msg.sender, amount=msg.value, unlock_at=block.timestamp + _lock_seconds)


@external
def withdraw():
    assert self.locked[msg.sender] > 0, "Nothing locked"
    assert block.timestamp >= self.unlock_at[msg.sender], "Still locked"
    amount: uint256 = self.locked[msg.sender]
    self.locked[msg.sender] = 0
    send(msg.sender, amount)


@external
def only_owner() -> bool:
    assert msg.sender == self.owner, "Not owner"
    return True


@external
def check_no_reason(_x: uint256):
    assert _x < 10


@external
def underflow(_x: uint256) -> uint256:
    return 5 - _x


@view
@external
def now() -> uint256:
    return block.timestamp


@view
@external
def pair(_a: address, _b: uint256) -> (address, uint256):
    return _a, _b


@external
def spin(_n: uint256) -> uint256:
    x: uint256 = 0
    for i: uint256 in range(_n, bound=1000000):
        x += i
    return x
