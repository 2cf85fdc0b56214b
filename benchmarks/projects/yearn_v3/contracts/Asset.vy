# pragma version ~=0.4.3
"""
@title The vault's asset: an ERC-20 anyone may mint, whose holders may burn theirs
@notice Minting is open so the strategies' gain knob can pay them; 18 decimals, full-width balances.
"""

name: public(String[16])
symbol: public(String[8])
decimals: public(uint8)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__(name_: String[16], symbol_: String[8]):
    self.name = name_
    self.symbol = symbol_
    self.decimals = 18


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    return True


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._move(msg.sender, receiver, amount)
    return True


@external
def transferFrom(owner: address, receiver: address, amount: uint256) -> bool:
    allowed: uint256 = self.allowance[owner][msg.sender]
    if allowed != max_value(uint256):
        assert allowed >= amount, "asset: insufficient allowance"
        self.allowance[owner][msg.sender] = allowed - amount
    self._move(owner, receiver, amount)
    return True


@external
def mint(receiver: address, amount: uint256):
    self.balanceOf[receiver] += amount
    self.totalSupply += amount


@external
def burn(amount: uint256):
    assert self.balanceOf[msg.sender] >= amount, "asset: insufficient balance"
    self.balanceOf[msg.sender] -= amount
    self.totalSupply -= amount


@internal
def _move(owner: address, receiver: address, amount: uint256):
    assert self.balanceOf[owner] >= amount, "asset: insufficient balance"
    self.balanceOf[owner] -= amount
    self.balanceOf[receiver] += amount
