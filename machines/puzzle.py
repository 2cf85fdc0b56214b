"""Levels solved one at a time, each by a nonce that about one in 256 is, all through the same `if`.

Solving a level reaches no new branch: it takes the same branch once more and raises the stored
level. Coverage guidance alone keeps the run that solved the first level and nothing after it;
the runs kept for a level never stored before are extended until the last one.
"""

from evmstate import strategy

LEVELS = 4


class PuzzleMachine:
    nonce = strategy("uint256")

    def __init__(cls, Puzzle):
        cls.puzzle = Puzzle.deploy()

    def rule_solve(self, nonce):
        self.puzzle.solve(nonce)

    def invariant_levels(self):
        assert self.puzzle.level() <= LEVELS
