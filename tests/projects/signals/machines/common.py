"""What the signal tests' machines share (not a machine: a class counts as one only in the file that defines it)."""

import os
from collections import Counter

from evmstate import TransactionReverted, strategy

said: Counter = Counter()


def mark(phase: str) -> None:
    """'phase: PHASE #N in PID' on this process's own stderr, the first three times: evmstate keeps what machines print, not what they write to the descriptor."""
    said[phase] += 1
    if said[phase] <= 3:
        os.write(2, f"phase: {phase} #{said[phase]} in {os.getpid()}\n".encode())


class Adding:
    """Adds amounts to the contract's total and keeps its own; a machine of its own adds an invariant."""

    amount = strategy("uint256")

    def __init__(cls, Counter):
        cls.counter = Counter.deploy()

    def setup(self):
        self.total = 0
        self.steps = 0

    def rule_add(self, amount):
        self.steps += 1
        try:
            self.counter.add(amount)
        except TransactionReverted:
            return
        self.total += amount
