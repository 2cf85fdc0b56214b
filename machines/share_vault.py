"""How much the first depositor of an ERC-4626 style vault can make the next deposit lose to rounding.

An optimization, not a property: optimize_deposit_loss is read after every step, and evmstate
reports the highest value it reached and the shortest program reaching it (docs/optimization.md).

The known maximum is DEPOSIT (10**18), the whole deposit. A deposit of V into a vault holding A
assets for S shares mints k = floor(V * S / A) shares, worth floor(k * (A + V) / (S + k)) once it
is in. Once the attacker holds d shares of a vault holding d + x assets (a deposit of d, a
donation of x), k = 0 when V * d < d + x, that is when x >= d * (V - 1) + 1: with d = 1, a
donation of V or more. Every asset the deposit brings then belongs to the attacker's shares, and
the loss, V less what its shares are worth, is V. It cannot be more: shares are worth nothing
less than nothing.
"""

from evmstate import strategy

DEPOSIT = 10**18  # what the next depositor brings
ATTACKER_FUNDS = 1_000 * 10**18


class ShareVaultMachine:
    amount = strategy("uint256")

    def __init__(cls, accounts, Token, ShareVault):
        owner, cls.attacker = accounts[0], accounts[1]
        cls.token = Token.deploy("Asset", "AST", 18, ATTACKER_FUNDS, {"from": owner})
        cls.vault = ShareVault.deploy(cls.token, {"from": owner})
        cls.token.transfer(cls.attacker, ATTACKER_FUNDS, {"from": owner})
        cls.token.approve(cls.vault, 2**256 - 1, {"from": cls.attacker})

    # the attacker's calls: each amount bounded by what it holds, as an invariant test's handler does
    def rule_deposit(self, amount):
        amount %= self.token.balanceOf(self.attacker) + 1
        self.vault.deposit(amount, self.attacker, {"from": self.attacker})

    def rule_donate(self, amount):
        amount %= self.token.balanceOf(self.attacker) + 1
        self.token.transfer(self.vault, amount, {"from": self.attacker})

    def rule_redeem(self, amount):
        amount %= self.vault.balanceOf(self.attacker) + 1
        self.vault.redeem(amount, self.attacker, self.attacker, {"from": self.attacker})

    def optimize_deposit_loss(self):
        """What a deposit of DEPOSIT made now would lose: what it brings less what the shares it mints are worth."""
        assets, supply = self.vault.totalAssets(), self.vault.totalSupply()
        shares = self.vault.convertToShares(DEPOSIT)
        if supply == 0:
            return 0  # the first deposit mints one share per asset
        return DEPOSIT - shares * (assets + DEPOSIT) // (supply + shares)
