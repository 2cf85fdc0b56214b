# pragma version ~=0.4.0
"""
@title Wrapped ether
@notice A ledger of ether deposits, as WETH9 keeps one: deposit() credits what was sent,
        withdraw() pays it back, and balances move by transfer() and transferFrom() (with
        allowances). The total supply is the ether the ledger holds.
"""

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    amount: uint256

event Approval:
    owner: indexed(address)
    spender: indexed(address)
    amount: uint256

event Deposit:
    owner: indexed(address)
    amount: uint256

event Withdrawal:
    owner: indexed(address)
    amount: uint256

name: public(constant(String[13])) = "Wrapped Ether"
symbol: public(constant(String[4])) = "WETH"
decimals: public(constant(uint8)) = 18

balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@external
@payable
def deposit():
    self.balanceOf[msg.sender] += msg.value
    log Deposit(owner=msg.sender, amount=msg.value)


@external
def withdraw(amount: uint256):
    assert self.balanceOf[msg.sender] >= amount, "insufficient balance"
    self.balanceOf[msg.sender] -= amount
    send(msg.sender, amount)
    log Withdrawal(owner=msg.sender, amount=amount)


@external
@view
def totalSupply() -> uint256:
    return self.balance


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, amount=amount)
    return True


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._move(msg.sender, receiver, amount)
    return True


@external
def transferFrom(owner: address, receiver: address, amount: uint256) -> bool:
    if owner != msg.sender and self.allowance[owner][msg.sender] != max_value(uint256):
        assert self.allowance[owner][msg.sender] >= amount, "insufficient allowance"
        self.allowance[owner][msg.sender] -= amount
    self._move(owner, receiver, amount)
    return True


@internal
def _move(owner: address, receiver: address, amount: uint256):
    assert self.balanceOf[owner] >= amount, "insufficient balance"
    self.balanceOf[owner] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=owner, receiver=receiver, amount=amount)
