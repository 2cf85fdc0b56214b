# pragma version ~=0.4.3
# Code to put at an address a cached call looked at.

@view
@external
def hello() -> uint256:
    return 1
