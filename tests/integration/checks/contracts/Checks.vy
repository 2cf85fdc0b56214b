# pragma version ~=0.4.3
# One function per kind of failed check, for the revert explanations.

import ledger

initializes: ledger

interface Checks:
    def locked() -> uint256: nonpayable
    def with_dev(_x: uint256): nonpayable

items: DynArray[uint256, 3]
count: public(uint256)


@external
def bare(_x: uint256):
    assert _x < 10


@external
def with_dev(_x: uint256):
    assert _x < 10  # dev: too big


@external
def underflow(_x: uint256) -> uint256:
    return 5 - _x


@external
def overflow(_x: uint256) -> uint256:
    return max_value(uint256) - 2 + _x


@external
def divide(_x: uint256) -> uint256:
    return 100 // _x


@external
def item(_i: uint256) -> uint256:
    return self.items[_i]


@external
@nonreentrant
def locked() -> uint256:
    return 1


@external
@nonreentrant
def reenter() -> uint256:
    return extcall Checks(self).locked()


@external
def relay(_x: uint256):
    extcall Checks(self).with_dev(_x)


@external
def deny(_x: uint256):
    raw_revert(concat(method_id("Denied(uint256,address)"), abi_encode(_x, msg.sender)))


@external
def take(_x: uint256):
    ledger.take(_x)


@external
def bump():
    self.count += 1


@external
def spin(_n: uint256) -> uint256:
    total: uint256 = 0
    for i: uint256 in range(_n, bound=2**63):
        total += i
    return total


@view
@external
def spin_view(_n: uint256) -> uint256:
    total: uint256 = 0
    for i: uint256 in range(_n, bound=2**63):
        total += i
    return total
