# pragma version ~=0.4.3
# Grants that vest linearly from a start, after a cliff, over a duration; the beneficiary
# claims what has vested, the admin may revoke a grant. Planted bug: claim forgets to check
# that the grant was revoked.

struct Grant:
    beneficiary: address
    amount: uint256
    start: uint256
    cliff: uint256
    duration: uint256
    claimed: uint256
    revoked: bool

admin: public(address)
grants: public(HashMap[uint256, Grant])
next_id: public(uint256)
total_claimed: public(uint256)


@deploy
def __init__():
    self.admin = msg.sender


@external
def grant(_beneficiary: address, _amount: uint256, _delay: uint256, _cliff: uint256, _duration: uint256) -> uint256:
    assert msg.sender == self.admin, "Not admin"
    assert _amount > 0, "Zero amount"
    assert _duration > 0, "Zero duration"
    assert _cliff <= _duration, "Cliff after end"
    grant_id: uint256 = self.next_id
    self.next_id += 1
    self.grants[grant_id] = Grant(
        beneficiary=_beneficiary, amount=_amount, start=block.timestamp + _delay, cliff=_cliff, duration=_duration, claimed=0, revoked=False
    )
    return grant_id


@view
@external
def vested(_grant_id: uint256) -> uint256:
    return self._vested(_grant_id)


@view
@internal
def _vested(_grant_id: uint256) -> uint256:
    g: Grant = self.grants[_grant_id]
    if block.timestamp < g.start + g.cliff:
        return 0
    elapsed: uint256 = min(block.timestamp - g.start, g.duration)
    return g.amount * elapsed // g.duration


@external
def claim(_grant_id: uint256) -> uint256:
    g: Grant = self.grants[_grant_id]
    assert msg.sender == g.beneficiary, "Not beneficiary"
    # the bug: a revoked grant must not pay out any more
    amount: uint256 = self._vested(_grant_id) - g.claimed
    self.grants[_grant_id].claimed += amount
    self.total_claimed += amount
    return amount


@external
def revoke(_grant_id: uint256):
    assert msg.sender == self.admin, "Not admin"
    assert self.grants[_grant_id].beneficiary != empty(address), "No grant"
    assert not self.grants[_grant_id].revoked, "Revoked"
    self.grants[_grant_id].revoked = True
