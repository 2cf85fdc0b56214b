from evmstate import strategy


class RungsMachine:
    x = strategy("uint8")

    def __init__(cls, Rungs):
        cls.rungs = Rungs.deploy()

    def rule_climb(self, x):
        self.rungs.climb(x)

    def invariant_below_the_top(self):
        assert self.rungs.rung() < 4
