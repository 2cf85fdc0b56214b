"""The vault's promise: the shares it counts are the shares its holders hold, and every holder can
take out its share of the ether."""

from evmstate import strategy


class EtherVaultMachine:
    # a holder that re-enters: the actor this vault's promise is about
    settings = {"actors": ["reenters"]}
    holder = strategy("address")
    amount = strategy("uint256", min_value=1, max_value="10 ether")
    shares = strategy("uint256")

    def __init__(cls, EtherVault):
        cls.vault = EtherVault.deploy()

    def setup(self):
        self.held = {}

    def rule_deposit(self, holder, amount):
        if amount > holder.balance():
            return  # no holder sends more ether than it has
        minted = self.vault.deposit({"from": holder, "value": amount}).return_value
        self.held[holder] = self.held.get(holder, 0) + minted

    def rule_withdraw(self, holder, shares):
        owned = self.held.get(holder, 0)
        shares = shares % (owned + 1)  # a share of what the holder owns
        if shares == 0:
            return
        self.vault.withdraw(shares, {"from": holder})
        self.held[holder] = owned - shares

    def invariant_shares_add_up(self):
        assert self.vault.total_supply() == sum(self.held.values())
        for holder, shares in self.held.items():
            assert self.vault.balance_of(holder) == shares
