# pragma version ~=0.4.3
# A total that only grows: what the signal tests' machines deploy, and mutate mutates.

total: public(uint256)


@external
def add(_amount: uint256):
    assert _amount < 2**200, "too much"
    self.total += _amount
