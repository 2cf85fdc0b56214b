# pragma version ~=0.4.3
# A safe whose combination is computed from a number its owner set earlier: the combination is
# never stored, returned or logged, only compared with what is tried. Planted bug: anyone may
# set the number, so anyone who knows the formula opens the safe.

base: public(uint256)
opened: public(bool)


@external
def set_base(_base: uint256):
    # the bug: this should be the owner's alone
    self.base = _base


@external
def open(_combination: uint256):
    assert self.base != 0, "no combination set"
    assert _combination == 3 * self.base + 7, "wrong combination"
    self.opened = True
