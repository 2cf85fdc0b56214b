# pragma version ~=0.4.0
"""
@title A crowdfund that refunds its funders by pushing ether to each in turn
@notice Funders participate until the deadline. If the goal was reached the beneficiary takes
        everything; if not, refund() pays every funder back in one loop, and one funder that
        cannot receive ether blocks every refund.
"""

struct Funder:
    sender: address
    value: uint256

MAX_FUNDERS: constant(uint256) = 128

beneficiary: public(address)
deadline: public(uint256)
goal: public(uint256)
total: public(uint256)
funders: public(DynArray[Funder, MAX_FUNDERS])


@deploy
def __init__(beneficiary: address, goal: uint256, duration: uint256):
    self.beneficiary = beneficiary
    self.deadline = block.timestamp + duration
    self.goal = goal


@external
@payable
def participate():
    assert block.timestamp < self.deadline, "the crowdfund has ended"
    assert msg.value > 0, "nothing sent"
    self.funders.append(Funder(sender=msg.sender, value=msg.value))
    self.total += msg.value


@external
def finalize():
    assert block.timestamp >= self.deadline, "the crowdfund has not ended"
    assert self.total >= self.goal, "the goal was not reached"
    send(self.beneficiary, self.balance)


@external
def refund():
    assert block.timestamp >= self.deadline, "the crowdfund has not ended"
    assert self.total < self.goal, "the goal was reached"
    for funder: Funder in self.funders:
        send(funder.sender, funder.value)
    self.funders = []
    self.total = 0
