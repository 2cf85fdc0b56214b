"""Machine sources that several command-line tests run."""

# a machine whose rule leaves a file per worker process that ran it: a test waits for these
# (helpers.wait_for_markers), never for a time
WAITING = """
import os
from pathlib import Path

from evmstate import strategy


class Waiting:
    x = strategy("uint8")

    def rule_wait(self, x):
        Path(f"searching-{os.getpid()}").touch()
"""


# a counter that fails once its total reaches 3: found in a few small runs
COUNTER = """
from evmstate import strategy

class Counter:
    x = strategy("uint8", max_value=3)

    def __init__(cls, accounts):
        cls.accounts = accounts

    def setup(self):
        self.total = 0

    def rule_add(self, x):
        self.total += x

    def invariant(self):
        assert self.total < 3
"""
