# pragma version ~=0.4.3
# A grant of ether that vests linearly over `duration` from the grant, with nothing released
# before the cliff: a year, as is common. The cliff and the duration are set at deployment.
# Planted bug: the vested amount counts the time since the grant from the cliff's end, not from
# the grant (`+ self.cliff`), so the first release after the cliff pays the cliff's share twice.

beneficiary: public(address)
start: public(uint256)
cliff: public(uint256)
duration: public(uint256)
total: public(uint256)
released: public(uint256)


@deploy
def __init__(_cliff: uint256, _duration: uint256):
    assert _cliff <= _duration, "cliff after the end"
    self.cliff = _cliff
    self.duration = _duration


@external
@payable
def grant(_beneficiary: address):
    assert self.start == 0, "already granted"
    assert msg.value > 0, "nothing granted"
    self.beneficiary = _beneficiary
    self.start = block.timestamp
    self.total = msg.value


@view
@external
def vested() -> uint256:
    return self._vested()


@view
@internal
def _vested() -> uint256:
    if self.start == 0 or block.timestamp < self.start + self.cliff:
        return 0
    elapsed: uint256 = block.timestamp - self.start + self.cliff
    return min(self.total * elapsed // self.duration, self.total)


@external
def release():
    assert self.start != 0, "no grant"
    assert block.timestamp >= self.start + self.cliff, "before the cliff"
    amount: uint256 = self._vested() - self.released
    self.released += amount
    send(self.beneficiary, amount)
