"""Four rare conditions, one value in 256 each, to be met in order in one run.

Blind search needs about 4 hits in a row among 50 draws of 256 values: tens of thousands of
runs. Coverage guidance keeps each run that climbs a rung higher and extends it.
"""

from evmstate import strategy


class LadderMachine:
    # a few hundred runs: enough for a search that extends the runs that climbed highest
    settings = {"max_examples": 300}

    x = strategy("uint8")

    def __init__(cls, Ladder):
        cls.ladder = Ladder.deploy()

    def rule_climb(self, x):
        self.ladder.climb(x)

    def invariant_below_the_top(self):
        assert self.ladder.rung() < 4
