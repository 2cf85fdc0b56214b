from evmstate import reverts


class OwnersMachine:
    """Deploys OwnedB (never OwnedA, whose code is the same) and Counted twice, under two labels; bumps only "first"."""

    def __init__(cls, accounts, OwnedB, Counted):
        cls.owned = OwnedB.deploy({"from": accounts[0]})
        cls.first = Counted.deploy({"from": accounts[0], "label": "first"})
        cls.second = Counted.deploy({"from": accounts[0], "label": "second"})
        cls.accounts = accounts

    def setup(self):
        self.owner = self.accounts[0]

    def rule_hand_over(self):
        to = self.accounts[1] if self.owner == self.accounts[0] else self.accounts[0]
        self.owned.transfer_ownership(to, {"from": self.owner})
        self.owner = to

    def rule_bump(self):
        self.first.bump({"from": self.accounts[0]})

    def rule_bump_as_stranger(self):
        with reverts("ownable: caller is not the owner"):
            self.first.bump({"from": self.accounts[2]})

    def invariant_owner(self):
        assert self.owned.owner() == self.owner
