from evmstate import TransactionReverted, strategy


class ShopMachine:
    """Every sale past 2,000 units is owed its rebate once; shutdown() ends every later call."""

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
            pass

    def rule_shutdown(self):
        try:
            self.shop.shutdown()
        except TransactionReverted:
            assert not self.shop.open_()

    def invariant_rebates_paid_once(self):
        assert self.shop.rebates_paid() == self.shop.rebates()
