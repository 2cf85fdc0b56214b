# pragma version ~=0.4.3
# A ladder of four rungs: each opens for one value of 256, a different one on each rung, and only
# from the rung below. Planted bug: the top rung must never be reached.

SALT: constant(uint256) = 129

rung: public(uint256)


@external
def climb(_x: uint8):
    opens: bool = convert(keccak256(concat(convert(self.rung, bytes32), convert(_x, bytes32), convert(SALT, bytes32))), uint256) % 251 == 0
    if self.rung == 0:
        if opens:
            self.rung = 1
    elif self.rung == 1:
        if opens:
            self.rung = 2
    elif self.rung == 2:
        if opens:
            self.rung = 3
    elif self.rung == 3:
        if opens:
            self.rung = 4
