# pragma version ~=0.4.3
# Four rungs, each a branch of its own that opens for about one value of a uint8 in 16 (a
# different set on each rung), and only from the rung below. Planted bug: the top must never
# be reached. A few random steps rarely climb four rungs; a search that keeps the runs that
# climbed highest and extends them climbs a rung every few runs.

rung: public(uint256)


@internal
@pure
def _opens(_rung: uint256, _x: uint8) -> bool:
    return convert(keccak256(concat(convert(_rung, bytes32), convert(_x, bytes32))), uint256) % 16 == 0


@external
def climb(_x: uint8):
    opens: bool = self._opens(self.rung, _x)
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
