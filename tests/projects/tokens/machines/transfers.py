"""Coins and collectibles moving side by side, with a planted failure once both have moved."""

from evmstate import strategy


class TransfersMachine:

    st_receiver = strategy("address")
    st_amount = strategy("uint256", max_value=100)

    def __init__(cls, accounts, Coin, Collectible):
        cls.accounts = accounts
        cls.coin = Coin.deploy(1000, {"from": accounts[0]})
        cls.nft = Collectible.deploy({"from": accounts[0]})

    def setup(self):
        self.paid = False
        self.minted = 0

    def rule_pay(self, st_receiver, st_amount):
        tx = self.coin.transfer(st_receiver, st_amount, {"from": self.accounts[0]})
        assert tx.events["Transfer"]["value"] == st_amount
        self.paid = True

    def rule_mint(self, st_receiver):
        self.minted += 1
        tx = self.nft.mint(st_receiver, self.minted)
        assert tx.events["Transfer"]["token_id"] == self.minted

    def invariant_not_both(self):
        assert not (self.paid and self.minted), "a coin and a collectible both moved"
