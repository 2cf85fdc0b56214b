# pragma version ~=0.4.0
"""A bank that pays a withdrawal before it clears the balance: a re-entrant withdrawal pays twice."""

balances: public(HashMap[address, uint256])


@external
@payable
def deposit():
    self.balances[msg.sender] += msg.value


@external
def withdraw():
    amount: uint256 = self.balances[msg.sender]
    raw_call(msg.sender, b"", value=amount)
    self.balances[msg.sender] = 0


@external
def pay(to: address, amount: uint256):
    """Send part of the caller's balance to another address (a push payment)."""
    self.balances[msg.sender] -= amount
    send(to, amount)
