from evmstate import strategy


class KnownMachine:
    x = strategy("uint256", max_value=100)

    def __init__(cls, Known):
        cls.known = Known.deploy()

    def rule_bump(self, x):
        self.known.bump(x)

    def invariant_counter_is_read(self):
        # a public getter: with coverage asked for, its code runs rather than a read of its slot
        assert self.known.counter() >= 0
