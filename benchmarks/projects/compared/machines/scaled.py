"""A combination that must meet a stored seed after arithmetic: `seed != 0 and 3 * combination + 7 == seed`.

No value the contract handles is the combination: it computes 3 * combination + 7 from the draw and
compares that with the seed. The search follows the argument through the multiplication and the
addition, solves for the combination that meets the seed, and replays the call with it (a seed 7
above a multiple of three has one).
"""

from evmstate import TransactionReverted, strategy


class ScaledMachine:
    seed = strategy("uint256")
    combination = strategy("uint256")
    caller = strategy("address")

    def __init__(cls, accounts, Scaled):
        cls.owner = accounts[0]
        cls.box = Scaled.deploy({"from": accounts[0]})

    def rule_set_seed(self, seed):
        self.box.set_seed(seed, {"from": self.owner})

    def rule_open(self, combination, caller):
        try:
            self.box.open(combination, {"from": caller})
        except TransactionReverted:
            return  # 3 * combination + 7 overflows for a combination above a third of the range

    def invariant_only_the_owner_opens(self):
        assert self.box.opened_by() in (self.owner.address, "0x" + "00" * 20), "the box opened for someone else"
