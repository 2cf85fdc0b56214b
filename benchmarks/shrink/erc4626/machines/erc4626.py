"""snekmate's ERC4626 vault against a model of its share arithmetic (rounding included).

The vault has the decimals offset of snekmate's own Foundry invariant suite
(test/extensions/ERC4626.t.sol, ERC4626VaultInvariants: 9), so a share is worth 10**-9 of an
asset: a withdrawal that burns the wrong amount of shares is seen at once.
"""

from evmstate import reverts, strategy

SUPPLY = 1000 * 10**18
OFFSET = 9  # the suite's _DECIMALS_OFFSET
MAX = 2**256 - 1


def mul_div(x, y, d, roundup):
    q, r = divmod(x * y, d)
    return q + 1 if roundup and r else q


class ERC4626Machine:
    st_caller = strategy("address")
    st_receiver = strategy("address")
    st_amount = strategy("uint256", max_value="200 ether")

    def __init__(cls, accounts, ERC20Mock, ERC4626Mock):
        cls.accounts = accounts
        cls.asset = ERC20Mock.deploy("Asset", "AST", 0, "Asset", "1", {"from": accounts[0]})
        cls.vault = ERC4626Mock.deploy("Vault", "VLT", cls.asset, OFFSET, "Vault", "1", {"from": accounts[0]})
        for account in accounts:
            cls.asset.mint(account, SUPPLY, {"from": accounts[0]})
            cls.asset.approve(cls.vault, MAX, {"from": account})

    def setup(self):
        self.wallet = {a: SUPPLY for a in self.accounts}
        self.shares = {a: 0 for a in self.accounts}
        self.assets = 0

    def to_shares(self, assets, roundup):
        return mul_div(assets, sum(self.shares.values()) + 10**OFFSET, self.assets + 1, roundup)

    def to_assets(self, shares, roundup):
        return mul_div(shares, self.assets + 1, sum(self.shares.values()) + 10**OFFSET, roundup)

    def rule_deposit(self, st_caller, st_receiver, st_amount):
        shares = self.to_shares(st_amount, False)
        if self.wallet[st_caller] < st_amount:
            with reverts("erc20: transfer amount exceeds balance"):
                self.vault.deposit(st_amount, st_receiver, {"from": st_caller})
            return
        assert self.vault.previewDeposit(st_amount) == shares
        tx = self.vault.deposit(st_amount, st_receiver, {"from": st_caller})
        assert tx.return_value == shares
        self.wallet[st_caller] -= st_amount
        self.shares[st_receiver] += shares
        self.assets += st_amount

    def rule_mint(self, st_caller, st_receiver, st_amount):
        assets = self.to_assets(st_amount, True)
        if self.wallet[st_caller] < assets:
            with reverts("erc20: transfer amount exceeds balance"):
                self.vault.mint(st_amount, st_receiver, {"from": st_caller})
            return
        tx = self.vault.mint(st_amount, st_receiver, {"from": st_caller})
        assert tx.return_value == assets
        self.wallet[st_caller] -= assets
        self.shares[st_receiver] += st_amount
        self.assets += assets

    def rule_withdraw(self, st_caller, st_receiver, st_amount):
        if st_amount > self.to_assets(self.shares[st_caller], False):
            with reverts("erc4626: withdraw more than maximum"):
                self.vault.withdraw(st_amount, st_receiver, st_caller, {"from": st_caller})
            return
        shares = self.to_shares(st_amount, True)
        tx = self.vault.withdraw(st_amount, st_receiver, st_caller, {"from": st_caller})
        assert tx.return_value == shares
        self.shares[st_caller] -= shares
        self.wallet[st_receiver] += st_amount
        self.assets -= st_amount

    def rule_redeem(self, st_caller, st_receiver, st_amount):
        if st_amount > self.shares[st_caller]:
            with reverts("erc4626: redeem more than maximum"):
                self.vault.redeem(st_amount, st_receiver, st_caller, {"from": st_caller})
            return
        assets = self.to_assets(st_amount, False)
        tx = self.vault.redeem(st_amount, st_receiver, st_caller, {"from": st_caller})
        assert tx.return_value == assets
        self.shares[st_caller] -= st_amount
        self.wallet[st_receiver] += assets
        self.assets -= assets

    def rule_donate(self, st_caller, st_amount):
        """Assets sent to the vault directly raise the value of every share."""
        if self.wallet[st_caller] >= st_amount:
            self.asset.transfer(self.vault, st_amount, {"from": st_caller})
            self.wallet[st_caller] -= st_amount
            self.assets += st_amount

    def invariant_accounts(self):
        assert self.vault.totalAssets() == self.assets
        assert self.vault.totalSupply() == sum(self.shares.values())
        for account in self.accounts:
            assert self.vault.balanceOf(account) == self.shares[account]
            assert self.asset.balanceOf(account) == self.wallet[account]

    def invariant_shares_are_backed(self):
        assert self.vault.convertToAssets(self.vault.totalSupply()) <= self.assets
