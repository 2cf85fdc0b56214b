"""Shares of an ether vault: deposits, donations, redemptions, and what a redemption would pay."""

from evmstate import reverts, strategy


class VaultMachine:
    amount = strategy("uint256", max_value="10 ether")
    shares = strategy("uint256")
    address = strategy("address")

    def __init__(cls, accounts, Vault):
        cls.vault = Vault.deploy({"from": accounts[0]})

    def rule_deposit(self, address, amount):
        if amount == 0:
            with reverts("no shares"):
                self.vault.deposit({"from": address, "value": amount})
            return
        self.vault.deposit({"from": address, "value": amount})

    def rule_donate(self, address, amount):
        address.transfer(self.vault, amount)

    def rule_redeem(self, address, shares):
        if shares > self.vault.balanceOf(address):
            with reverts():
                self.vault.redeem(shares, {"from": address})
            return
        self.vault.redeem(shares, {"from": address})

    def rule_preview(self, shares):
        self.vault.previewRedeem(shares)

    def invariant_backed(self):
        assert self.vault.totalAssets() >= self.vault.previewRedeem(self.vault.totalSupply()) or self.vault.totalSupply() == 0
