from collections import deque

from evmstate import StateMachine, invariant, precondition, rule, strategy


class RingMachine(StateMachine):
    def __init__(cls, Ring):
        cls.ring = Ring.deploy()

    def setup(self):
        self.model = deque()

    @precondition(lambda self: len(self.model) < 4)
    @rule(value=strategy("uint256"))
    def push(self, value):
        self.ring.push(value)
        self.model.append(value)

    @precondition(lambda self: self.model)
    @rule()
    def pop(self):
        assert self.ring.pop().return_value == self.model.popleft()

    @invariant()
    def count_matches(self):
        assert self.ring.count() == len(self.model)
