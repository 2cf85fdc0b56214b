# pragma version ~=0.4.3
"""@title The vault's asset: a plain ERC-20 anyone may mint, for tests"""

from ethereum.ercs import IERC20

implements: IERC20

name: public(String[32])
symbol: public(String[8])
decimals: public(uint8)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__():
    self.name = "Asset"
    self.symbol = "AST"
    self.decimals = 18


@external
def mint(receiver: address, amount: uint256):
    self.totalSupply += amount
    self.balanceOf[receiver] += amount
    log IERC20.Transfer(sender=empty(address), receiver=receiver, value=amount)


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self.balanceOf[msg.sender] -= amount
    self.balanceOf[receiver] += amount
    log IERC20.Transfer(sender=msg.sender, receiver=receiver, value=amount)
    return True


@external
def transferFrom(sender: address, receiver: address, amount: uint256) -> bool:
    allowed: uint256 = self.allowance[sender][msg.sender]
    if allowed != max_value(uint256):
        self.allowance[sender][msg.sender] = allowed - amount
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount
    log IERC20.Transfer(sender=sender, receiver=receiver, value=amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log IERC20.Approval(owner=msg.sender, spender=spender, value=amount)
    return True
