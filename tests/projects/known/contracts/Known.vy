# pragma version ~=0.4.3
# lines reached and not, for the coverage tests

counter: public(uint256)


@external
def bump(_x: uint256):
    if _x > 100:
        self.counter += 2
    else:
        self.counter += 1


@external
@view
def never_called() -> uint256:
    return 42
