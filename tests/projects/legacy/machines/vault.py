from evmstate import reverts, strategy


class VaultMachine:
    """Deposits, redemptions, share transfers and debt moves; the shares always add up to the supply."""

    amount = strategy("uint256", max_value=10**6)
    holder = strategy("address", length=3)
    receiver = strategy("address", length=3)

    def __init__(cls, accounts, Token, Vault, Strategy):
        cls.accounts = accounts
        cls.token = Token.deploy("Asset", "AST", 18)
        cls.vault = Vault.deploy(cls.token, 10**9)
        cls.strategy = Strategy.deploy(cls.token, cls.vault)
        cls.vault.add_strategy(cls.strategy, 10**9)
        for account in accounts[:3]:
            cls.token.mint(account, 10**7)
            cls.token.approve(cls.vault, 2**256 - 1, {"from": account})

    def rule_deposit(self, holder, amount):
        if amount == 0:
            with reverts("cannot mint zero"):
                self.vault.deposit(amount, holder, {"from": holder})
            return
        self.vault.deposit(amount, holder, {"from": holder})

    def rule_redeem(self, holder, amount):
        shares = min(amount, self.vault.balanceOf(holder))
        if self.vault.totalSupply() and self.vault.totalAssets() * shares // self.vault.totalSupply() > self.vault.total_idle():
            return
        self.vault.redeem(shares, holder, holder, {"from": holder})

    def rule_transfer(self, holder, receiver, amount):
        amount = min(amount, self.vault.balanceOf(holder))
        self.vault.transfer(receiver, amount, {"from": holder})

    def rule_lend(self, amount):
        self.vault.update_debt(self.strategy, amount)

    def invariant_shares_add_up(self):
        held = sum(self.vault.balanceOf(a) for a in self.accounts[:3])
        assert held == self.vault.totalSupply(), f"shares held {held} != supply {self.vault.totalSupply()}"

    def invariant_assets_held(self):
        assert self.token.balanceOf(self.vault) == self.vault.total_idle()
        assert self.token.balanceOf(self.strategy) == self.vault.total_debt()
