"""Scheduling and cancelling timelock operations, named by bytes32 salts and ids."""

from evmstate import given, reverts, strategy

DELAY = 3600


class TimelockMachine:

    salt = strategy("bytes32")
    amount = strategy("uint8")
    index = strategy("uint8")

    def __init__(cls, accounts, Timelock):
        cls.target = accounts[1]
        cls.timelock = Timelock.deploy({"from": accounts[0]})

    def setup(self):
        self.pending = {}  # (amount, salt) -> the operation's id

    def rule_schedule(self, amount, salt):
        if salt == bytes(32):
            with reverts("no salt"):
                self.timelock.schedule(self.target, amount, salt, DELAY)
            return
        if (amount, salt) in self.pending:
            return
        operation = self.timelock.schedule(self.target, amount, salt, DELAY).return_value
        self.pending[(amount, salt)] = operation

    def rule_cancel(self, index):
        if not self.pending:
            return
        key = list(self.pending)[index % len(self.pending)]
        self.timelock.cancel(self.pending.pop(key))

    def invariant_pending(self):
        for operation in self.pending.values():
            assert self.timelock.timestamps(operation) != 0


@given(salt=strategy("bytes32"))
def test_amount_is_part_of_the_id(Timelock, accounts, salt):
    timelock = Timelock.deploy({"from": accounts[0]})
    assert timelock.hash_operation(accounts[1], 1, salt) != timelock.hash_operation(accounts[1], 2, salt)
