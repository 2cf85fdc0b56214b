"""Shares of an ether vault: deposits, donations, redemptions, and what a redemption would pay."""

from evmstate import reverts, strategy


class VaultMachine:
    amount = strategy("uint256", max_value="10 ether")
    shares = strategy("uint256")
    address = strategy("address", length=9)  # accounts[9] donates

    def __init__(cls, accounts, Vault):
        cls.vault = Vault.deploy({"from": accounts[0]})
        cls.donor = accounts[9]

    def rule_deposit(self, address, amount):
        supply, held = self.vault.totalSupply(), self.vault.totalAssets()
        if (amount if supply == 0 else amount * supply // held) == 0:
            with reverts("no shares"):
                self.vault.deposit({"from": address, "value": amount})
            return
        self.vault.deposit({"from": address, "value": amount})

    def rule_donate(self, amount):
        self.donor.transfer(self.vault, amount)

    def rule_redeem(self, address, shares):
        if shares > self.vault.balanceOf(address) or shares * self.vault.totalAssets() >= 2**256:
            with reverts():
                self.vault.redeem(shares, {"from": address})
            return
        self.vault.redeem(shares, {"from": address})

    def rule_preview(self, shares):
        if self.vault.totalSupply() and shares * self.vault.totalAssets() >= 2**256:
            with reverts():  # the product overflows a uint256
                self.vault.previewRedeem(shares)
            return
        self.vault.previewRedeem(shares)

    def invariant_backed(self):
        assert self.vault.totalAssets() >= self.vault.previewRedeem(self.vault.totalSupply()) or self.vault.totalSupply() == 0
