# pragma version ~=0.4.3
# drain() never finishes once bump() has been called three times.

count: public(uint256)
total: public(uint256)


@external
def bump():
    self.count += 1


@external
def drain() -> uint256:
    n: uint256 = 1
    if self.count >= 3:
        n = 2**63
    for i: uint256 in range(n, bound=2**63):
        self.total += i
    return self.total
