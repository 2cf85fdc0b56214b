from evmstate import TransactionReverted, strategy


class ShopMachine:
    """shutdown() ends the machine's progress: every later call reverts (and the rules let it)."""

    n = strategy("uint8")

    def __init__(cls, Shop):
        cls.shop = Shop.deploy()

    def rule_buy(self, n):
        try:
            self.shop.buy(n)
        except TransactionReverted:
            assert not self.shop.open_()

    def rule_restock(self, n):
        try:
            self.shop.restock(n)
        except TransactionReverted:
            assert not self.shop.open_()

    def rule_shutdown(self):
        try:
            self.shop.shutdown()
        except TransactionReverted:
            assert not self.shop.open_()
