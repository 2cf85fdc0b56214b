# pragma version ~=0.4.3
# Card payments: authorize answers AUTHORIZED, DECLINED or REQUIRES_3DS, decided by a hash of the
# amount that a test cannot predict. Planted bug: capture accepts a voided payment.

AUTHORIZED: constant(uint8) = 1
DECLINED: constant(uint8) = 2
REQUIRES_3DS: constant(uint8) = 3
CAPTURED: constant(uint8) = 4
VOIDED: constant(uint8) = 5

event Authorized:
    payment_id: indexed(uint256)
    status: uint8
    amount: uint256

status: public(HashMap[uint256, uint8])
amount: public(HashMap[uint256, uint256])
next_id: public(uint256)
captured_total: public(uint256)


@external
def authorize(_amount: uint256) -> (uint8, uint256):
    assert _amount > 0, "Zero amount"
    outcome: uint8 = convert(convert(keccak256(convert(_amount, bytes32)), uint256) % 3 + 1, uint8)
    payment_id: uint256 = self.next_id + 1000
    self.next_id += 1
    self.status[payment_id] = outcome
    self.amount[payment_id] = _amount
    log Authorized(payment_id=payment_id, status=outcome, amount=_amount)
    return outcome, payment_id


@external
def complete_3ds(_payment_id: uint256):
    assert self.status[_payment_id] == REQUIRES_3DS, "No challenge pending"
    self.status[_payment_id] = AUTHORIZED


@external
def void(_payment_id: uint256):
    assert self.status[_payment_id] == AUTHORIZED, "Not authorized"
    self.status[_payment_id] = VOIDED


@external
def capture(_payment_id: uint256):
    # the bug: a voided payment must not be captured
    assert self.status[_payment_id] == AUTHORIZED or self.status[_payment_id] == VOIDED, "Not authorized"
    self.status[_payment_id] = CAPTURED
    self.captured_total += self.amount[_payment_id]
