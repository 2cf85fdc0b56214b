"""A fee capped at 10%, and a debug value that skips the cap: a number only the contract knows.

Plain random draws of a uint256 never hit it; the dictionary holds the contract's constants.
"""

from evmstate import reverts, strategy


class FeeVaultMachine:
    fee = strategy("uint256")

    def __init__(cls, accounts, FeeVault):
        cls.owner = accounts[0]
        cls.vault = FeeVault.deploy({"from": accounts[0]})

    def setup(self):
        self.fee_set = 0

    def rule_set_fee(self, fee):
        if fee <= 1000:
            self.vault.set_fee(fee, {"from": self.owner})
            self.fee_set = fee
        else:
            with reverts("fee too high"):
                self.vault.set_fee(fee, {"from": self.owner})

    def invariant_fee(self):
        assert self.vault.fee() == self.fee_set
