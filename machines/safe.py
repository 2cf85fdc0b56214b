"""A combination the contract computes from a stored number and compares with what is tried
(`x == 3 * base + 7`): it is never stored, so the dictionary cannot offer it. The comparison
shows it, and the search repeats the call with the argument replaced by it."""

from evmstate import TransactionReverted, strategy


class SafeMachine:
    number = strategy("uint256")

    def __init__(cls, Safe):
        cls.safe = Safe.deploy()

    def rule_set_base(self, number):
        self.safe.set_base(number)

    def rule_open(self, number):
        try:
            self.safe.open(number)
        except TransactionReverted:
            return  # not the combination

    def invariant_closed(self):
        assert not self.safe.opened(), "the safe was opened"
