"""A machine that fails on its second step and shrinks in a moment: its failure is saved while the others still search."""

from common import Adding


class Quick(Adding):
    def invariant_few(self):
        assert self.steps < 2, "a second step"
