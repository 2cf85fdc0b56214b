"""vyper's example ERC4626 vault over its example ERC20: deposits, mints, withdrawals, redemptions, share
transfers and the price moved by DEBUG_steal_tokens, every preview and conversion asked along the way.

Written for differential runs: every call is compared between the two builds, so a rule only has to
make the calls; a revert both builds make is the contract's answer, not a failure.
"""

from evmstate import TransactionReverted, strategy

UNITS = 10**18


class VaultMachine:
    assets = strategy("uint256", max_value=10**6 * UNITS)
    shares = strategy("uint256", max_value=10**6 * UNITS)
    user = strategy("address", length=3)
    other = strategy("address", length=3)

    def __init__(cls, accounts, ERC20, ERC4626):
        cls.token = ERC20.deploy("Asset", "AST", 18, 10**7, {"from": accounts[0]})
        cls.vault = ERC4626.deploy(cls.token, {"from": accounts[0]})
        for account in accounts[:3]:
            if account != accounts[0]:
                cls.token.transfer(account, 10**6 * UNITS, {"from": accounts[0]})
            cls.token.approve(cls.vault, 2**256 - 1, {"from": account})

    def _try(self, call, *args):
        try:
            return call(*args)
        except TransactionReverted:
            return None  # both builds reverted alike: the comparison already said so

    def rule_deposit(self, user, assets):
        self._try(self.vault.deposit, assets, user, {"from": user})

    def rule_mint(self, user, shares):
        self._try(self.vault.mint, shares, user, {"from": user})

    # withdrawals, redemptions and transfers ask for at most what the user can take (the drawn amount
    # folded into that range, its whole and nothing among them): most of them then change the state

    def rule_withdraw(self, user, other, assets):
        held = self.vault.convertToAssets(self.vault.balanceOf(user))  # the example's maxWithdraw is max_value(uint256)
        self._try(self.vault.withdraw, assets % (held + 1), other, user, {"from": user})

    def rule_redeem(self, user, other, shares):
        self._try(self.vault.redeem, shares % (self.vault.balanceOf(user) + 1), other, user, {"from": user})

    def rule_transfer_shares(self, user, other, shares):
        self._try(self.vault.transfer, other, shares % (self.vault.balanceOf(user) + 1), {"from": user})

    def rule_steal(self, user, assets):
        """The example's own way to move the share price: the vault's assets leave it."""
        self._try(self.vault.DEBUG_steal_tokens, assets, {"from": user})

    def rule_donate(self, user, assets):
        self._try(self.token.transfer, self.vault, assets, {"from": user})

    def rule_previews(self, assets, shares):
        for fn, value in ((self.vault.previewDeposit, assets), (self.vault.previewMint, shares), (self.vault.previewWithdraw, assets), (self.vault.previewRedeem, shares)):
            self._try(fn, value)

    def invariant_conversions(self):
        supply = self.vault.totalSupply()
        self.vault.convertToAssets(supply)
        self.vault.convertToShares(self.vault.totalAssets())
