# pragma version ~=0.4.3
# One function per EVM feature the revm backend must run as py-evm does: value, CREATE of
# proxies, copies and blueprints, transient storage, refunds, block time and number, logs.

event Made:
    child: indexed(address)
    kind: uint256

event Paid:
    to: indexed(address)
    amount: uint256

counter: public(uint256)
slots: public(HashMap[uint256, uint256])
children: public(DynArray[address, 64])
last_time: public(uint256)
last_block: public(uint256)
guard: transient(uint256)
seen: transient(HashMap[address, uint256])


@deploy
@payable
def __init__():
    self.counter = 1


@external
@payable
def fill(_n: uint256, _value: uint256):
    # new slots, then the same slots again: cold and warm, clean and dirty
    for i: uint256 in range(_n, bound=32):
        self.slots[i] = _value + i
    for i: uint256 in range(_n, bound=32):
        self.slots[i] += 1


@external
def clear(_n: uint256):
    # zeroing slots earns refunds
    for i: uint256 in range(_n, bound=32):
        self.slots[i] = 0


@external
def flip(_i: uint256, _value: uint256) -> uint256:
    # set, reset, set: the original value decides what each write costs
    old: uint256 = self.slots[_i]
    self.slots[_i] = _value
    self.slots[_i] = old
    self.slots[_i] = _value
    return old


@external
def clock() -> (uint256, uint256):
    self.last_time = block.timestamp
    self.last_block = block.number
    return block.timestamp, block.number


@external
@payable
def pay(_to: address, _amount: uint256):
    # to a fresh address: the new-account charge; to a contract: its code runs
    send(_to, _amount)
    log Paid(to=_to, amount=_amount)


@external
@payable
def __default__():
    self.counter += 1


@external
def make_proxy() -> address:
    child: address = create_minimal_proxy_to(self)
    self.children.append(child)
    log Made(child=child, kind=1)
    return child


@external
def make_copy() -> address:
    child: address = create_copy_of(self)
    self.children.append(child)
    log Made(child=child, kind=2)
    return child


@external
def make_from(_blueprint: address) -> address:
    child: address = create_from_blueprint(_blueprint, value=0)
    self.children.append(child)
    log Made(child=child, kind=3)
    return child


@external
def poke(_child: address) -> uint256:
    return staticcall Zoo(_child).counter()


@external
def bump_child(_child: address):
    extcall Zoo(_child).tick()


@external
def tick():
    self.counter += 1


@external
def nested(_depth: uint256) -> uint256:
    # transient storage seen across calls of one transaction, empty in the next
    self.guard += 1
    self.seen[msg.sender] += _depth
    if _depth > 0:
        return extcall Zoo(self).nested(_depth - 1)
    return self.guard * 1000 + self.seen[self]


@external
@view
def guard_now() -> uint256:
    return self.guard


@external
def fail(_x: uint256):
    self.counter += 1
    assert _x != 7, "seven"
    assert _x != 8  # dev: eight
    self.counter += _x // (_x - 9)


@external
@view
def hash_of(_target: address) -> bytes32:
    return _target.codehash


@external
@view
def balance_of(_target: address) -> uint256:
    return _target.balance


interface Zoo:
    def counter() -> uint256: view
    def tick(): nonpayable
    def nested(_depth: uint256) -> uint256: nonpayable


@external
def spin(_n: uint256) -> uint256:
    total: uint256 = 0
    for i: uint256 in range(_n, bound=2**63):
        total += i
    return total
