"""Card payments, where what a rule may do next depends on what the contract answered.

PaymentsRouted sends each payment id to the bundle of the status the contract returned.
PaymentsFiltered keeps one bundle of payment records and filters on their current status.
"""

from dataclasses import dataclass

from evmstate import Bundle, StateMachine, consumes, invariant, reverts, route, rule, strategy

AUTHORIZED, DECLINED, REQUIRES_3DS, CAPTURED, VOIDED = 1, 2, 3, 4, 5
amounts = strategy("uint256", min_value=1, max_value=10**6)


class PaymentsRouted(StateMachine):
    authorized = Bundle("authorized")
    declined = Bundle("declined")
    challenged = Bundle("challenged")
    voided = Bundle("voided")

    def __init__(cls, Payments):
        cls.payments = Payments.deploy()

    def setup(self):
        self.captured = 0

    @rule(amount=amounts)
    def authorize(self, amount):
        status, payment_id = self.payments.authorize(amount).return_value
        bundle = {AUTHORIZED: self.authorized, DECLINED: self.declined, REQUIRES_3DS: self.challenged}[status]
        return route(bundle, (payment_id, amount))

    @rule(payment=consumes(challenged))
    def complete_3ds(self, payment):
        self.payments.complete_3ds(payment[0])
        return route(self.authorized, payment)

    @rule(payment=consumes(authorized))
    def void(self, payment):
        self.payments.void(payment[0])
        return route(self.voided, payment)

    @rule(payment=consumes(authorized))
    def capture(self, payment):
        self.payments.capture(payment[0])
        self.captured += payment[1]

    @rule(payment=voided)
    def capture_voided(self, payment):
        with reverts("Not authorized"):
            self.payments.capture(payment[0])

    @rule(payment=declined)
    def capture_declined(self, payment):
        with reverts("Not authorized"):
            self.payments.capture(payment[0])

    @invariant()
    def captured_total(self):
        assert self.payments.captured_total() == self.captured


@dataclass
class Payment:
    id: int
    amount: int
    status: int


class PaymentsFiltered(StateMachine):
    payments_made = Bundle("payments")

    def __init__(cls, Payments):
        cls.payments = Payments.deploy()

    def setup(self):
        self.captured = 0

    @rule(target=payments_made, amount=amounts)
    def authorize(self, amount):
        status, payment_id = self.payments.authorize(amount).return_value
        return Payment(payment_id, amount, status)

    @rule(payment=payments_made.filter(lambda p: p.status == REQUIRES_3DS))
    def complete_3ds(self, payment):
        self.payments.complete_3ds(payment.id)
        payment.status = AUTHORIZED

    @rule(payment=payments_made.filter(lambda p: p.status == AUTHORIZED))
    def void(self, payment):
        self.payments.void(payment.id)
        payment.status = VOIDED

    @rule(payment=payments_made.filter(lambda p: p.status == AUTHORIZED))
    def capture(self, payment):
        self.payments.capture(payment.id)
        payment.status = CAPTURED
        self.captured += payment.amount

    @rule(payment=payments_made.filter(lambda p: p.status in (VOIDED, DECLINED, CAPTURED)))
    def capture_refused(self, payment):
        with reverts("Not authorized"):
            self.payments.capture(payment.id)

    @invariant()
    def captured_total(self):
        assert self.payments.captured_total() == self.captured
