"""A machine that fails within a few steps and shrinks for seconds: every run sleeps in its invariant."""

import time

from common import Adding, mark


class Failing(Adding):
    def invariant_small(self):
        time.sleep(0.05)
        if self.total >= 10**30:
            mark("failing")
            mark(f"failing after {self.steps} steps")
        assert self.total < 10**30, "too big"
