"""A price the contract computes from the one the owner stored: a quote of exactly that price.

The computed price is never stored, returned or logged, and no constant of the code holds it: it
exists only on the stack, where the contract compares the buyer's quote against it. On py-evm
the search records that comparison and offers the price (and its neighbours) to later draws.
"""

from evmstate import reverts, strategy

FEE_BPS = 30
MIN_PRICE = 1_000_000
MAX_PRICE = 10**30


class SaleMachine:
    price = strategy("uint256")
    quote = strategy("uint256")

    def __init__(cls, accounts, Sale):
        cls.owner = accounts[0]
        cls.sale = Sale.deploy({"from": accounts[0]})

    def setup(self):
        self.base = 0

    def rule_set_price(self, price):
        if MIN_PRICE <= price <= MAX_PRICE:
            self.sale.set_price(price, {"from": self.owner})
            self.base = price
        else:
            with reverts("price out of range"):
                self.sale.set_price(price, {"from": self.owner})

    def rule_buy(self, quote):
        if self.base == 0:
            with reverts("not for sale"):
                self.sale.buy(quote)
            return
        price = self.base + self.base * FEE_BPS // 10_000
        if quote >= price:
            self.sale.buy(quote)
        else:
            with reverts("quote below price"):
                self.sale.buy(quote)
