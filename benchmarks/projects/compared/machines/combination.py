"""A combination computed from a stored seed and tested in a compound condition: `seed != 0 and
combination == 3 * seed + 7`.

The combination exists only on the stack, and its equality reaches the `if` through the `and`'s
join, not straight into a branch: the search records every comparison of an argument wherever its
result goes, and replays the call with the other side in the argument's place.
"""

from evmstate import TransactionReverted, strategy


class CombinationMachine:
    seed = strategy("uint256")
    combination = strategy("uint256")
    caller = strategy("address")

    def __init__(cls, accounts, Combination):
        cls.owner = accounts[0]
        cls.box = Combination.deploy({"from": accounts[0]})

    def rule_set_seed(self, seed):
        self.box.set_seed(seed, {"from": self.owner})

    def rule_open(self, combination, caller):
        try:
            self.box.open(combination, {"from": caller})
        except TransactionReverted:
            return  # 3 * seed + 7 overflows for a seed above a third of the range

    def invariant_only_the_owner_opens(self):
        assert self.box.opened_by() in (self.owner.address, "0x" + "00" * 20), "the box opened for someone else"
