# pragma version ~=0.4.3
# A ladder of four rungs: each opens for one value of 256, a different one on each rung, and only
# from the rung below. Planted bug: the top rung must never be reached.

SALT: constant(uint256) = 129

rung: public(uint256)


@external
def climb(_x: uint8):
    step: uint256 = convert(keccak256(concat(convert(self.rung, bytes32), convert(_x, bytes32), convert(SALT, bytes32))), uint256)
    if step % 251 == 0:
        self.rung += 1
