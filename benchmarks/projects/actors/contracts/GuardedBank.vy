# pragma version ~=0.4.0
"""
@title Ether accounts whose withdrawal holds the reentrancy lock and whose transfer does not
@notice withdraw() pays the whole balance before it zeroes it, under @nonreentrant, so calling
        withdraw() again from the receive hook reverts. transfer() does not take the lock: a
        holder that calls transfer() from its receive hook moves the balance it is being paid,
        and is paid it too (cross-function reentrancy).
"""

balances: public(HashMap[address, uint256])


@external
@payable
def deposit():
    self.balances[msg.sender] += msg.value


@external
def transfer(to: address, amount: uint256):
    assert self.balances[msg.sender] >= amount, "not enough"
    self.balances[msg.sender] -= amount
    self.balances[to] += amount


@external
@nonreentrant
def withdraw():
    amount: uint256 = self.balances[msg.sender]
    raw_call(msg.sender, b"", value=amount)
    self.balances[msg.sender] = 0
