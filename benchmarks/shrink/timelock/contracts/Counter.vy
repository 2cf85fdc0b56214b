# pragma version ~=0.4.3
# A call target for timelocked operations.
count: public(uint256)


@external
def increment(by: uint256):
    assert by != 13, "counter: unlucky"
    self.count += by
