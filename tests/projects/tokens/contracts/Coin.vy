# pragma version ~=0.4.3
# An ERC20-style token: Transfer has two indexed fields and the amount in the data.

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

balanceOf: public(HashMap[address, uint256])


@deploy
def __init__(supply: uint256):
    self.balanceOf[msg.sender] = supply
    log Transfer(sender=empty(address), receiver=msg.sender, value=supply)


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self.balanceOf[msg.sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=msg.sender, receiver=receiver, value=amount)
    return True
