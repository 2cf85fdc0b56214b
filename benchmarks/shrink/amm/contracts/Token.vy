# pragma version ~=0.4.0
"""@title A plain ERC-20 whose deployer holds the whole supply."""

from ethereum.ercs import IERC20

implements: IERC20

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

event Approval:
    owner: indexed(address)
    spender: indexed(address)
    value: uint256

balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])
totalSupply: public(uint256)


@deploy
def __init__(supply: uint256):
    self.balanceOf[msg.sender] = supply
    self.totalSupply = supply


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._move(msg.sender, receiver, amount)
    return True


@external
def transferFrom(owner: address, receiver: address, amount: uint256) -> bool:
    assert self.allowance[owner][msg.sender] >= amount, "insufficient allowance"
    self.allowance[owner][msg.sender] -= amount
    self._move(owner, receiver, amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, value=amount)
    return True


@internal
def _move(owner: address, receiver: address, amount: uint256):
    assert self.balanceOf[owner] >= amount, "insufficient balance"
    self.balanceOf[owner] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=owner, receiver=receiver, value=amount)
