"""A machine that never fails: a search that goes on until it is stopped."""

import time

from evmstate import strategy

from common import mark


class Waiting:
    amount = strategy("uint8")

    def __init__(cls, Counter):
        cls.counter = Counter.deploy()

    def rule_add(self, amount):
        self.counter.add(amount)
        mark("searching")
        time.sleep(0.1)  # a search that costs little CPU while the tests wait on it
