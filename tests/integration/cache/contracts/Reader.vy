# pragma version ~=0.4.3
# View functions that read each kind of state the call cache must watch.

stored: public(uint256)
ledger: HashMap[address, uint256]


@external
def set_stored(x: uint256):
    self.stored = x


@external
def credit(who: address, amount: uint256):
    self.ledger[who] += amount


@view
@external
def doubled() -> uint256:
    return self.stored * 2


@view
@external
def credited(who: address) -> uint256:
    return self.ledger[who]


@view
@external
def at_least(x: uint256) -> uint256:
    assert self.stored >= x, "below"
    return self.stored


@view
@external
def time_left(deadline: uint256) -> uint256:
    return deadline - block.timestamp


@view
@external
def height() -> uint256:
    return block.number


@view
@external
def code_size(a: address) -> uint256:
    return a.codesize


@view
@external
def balance_of(a: address) -> uint256:
    return a.balance


@view
@external
def own_balance() -> uint256:
    return self.balance


@external
@payable
def fund():
    pass
