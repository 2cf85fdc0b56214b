# pragma version ~=0.4.3
# A puzzle of levels, solved one at a time with proof of work: a nonce whose hash with the level
# is below TARGET (one nonce in 256) solves the level and raises it. Every level passes through
# the same check. Planted bug: the guard lets one more level be solved than there are.

LEVELS: constant(uint256) = 4
TARGET: constant(uint256) = 2**248

level: public(uint256)
solver: public(HashMap[uint256, address])


@external
def solve(_nonce: uint256):
    assert self.level <= LEVELS, "puzzle finished"  # the bug: should be self.level < LEVELS
    work: uint256 = convert(keccak256(concat(convert(self.level, bytes32), convert(_nonce, bytes32))), uint256)
    if work < TARGET:
        self.solver[self.level] = msg.sender
        self.level += 1
