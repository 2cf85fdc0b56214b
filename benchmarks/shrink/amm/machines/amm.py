"""A constant-product pool against a model of its arithmetic: the shares each provider is minted, what a burn pays, what a swap gives.

Three providers and traders hold a million of each token. Every amount is a full uint256 up
to what an account holds; the model says which calls revert and what each call returns.
"""

from math import isqrt

from evmstate import reverts, strategy

SUPPLY = 10**24  # each account's holding of each token
MINIMUM_LIQUIDITY = 1000
MAX = 2**256 - 1


class AMMMachine:
    provider = strategy("address", length=3)
    amount0 = strategy("uint256", max_value=SUPPLY)
    amount1 = strategy("uint256", max_value=SUPPLY)
    shares = strategy("uint256")
    amount_in = strategy("uint256", max_value=SUPPLY)
    zero_for_one = strategy("bool")

    def __init__(cls, accounts, Token, Pair):
        cls.accounts = list(accounts)[:3]
        cls.token0 = Token.deploy(3 * SUPPLY, {"from": accounts[0]})
        cls.token1 = Token.deploy(3 * SUPPLY, {"from": accounts[0]})
        cls.pair = Pair.deploy(cls.token0, cls.token1, {"from": accounts[0]})
        for account in cls.accounts:
            for token in (cls.token0, cls.token1):
                if account != accounts[0]:
                    token.transfer(account, SUPPLY, {"from": accounts[0]})
                token.approve(cls.pair, MAX, {"from": account})

    def setup(self):
        self.reserves = [0, 0]
        self.supply = 0
        self.shares_of = {a: 0 for a in self.accounts}
        self.wallet = {a: [SUPPLY, SUPPLY] for a in self.accounts}

    def rule_add_liquidity(self, provider, amount0, amount1):
        if self.supply == 0:
            minted = isqrt(amount0 * amount1) - MINIMUM_LIQUIDITY
        else:
            minted = min(amount0 * self.supply // self.reserves[0], amount1 * self.supply // self.reserves[1])
        if minted <= 0:
            with reverts("insufficient liquidity minted"):
                self.pair.add_liquidity(amount0, amount1, {"from": provider})
            return
        if amount0 > self.wallet[provider][0] or amount1 > self.wallet[provider][1]:
            with reverts("insufficient balance"):
                self.pair.add_liquidity(amount0, amount1, {"from": provider})
            return
        tx = self.pair.add_liquidity(amount0, amount1, {"from": provider})
        assert tx.return_value == minted, f"minted {tx.return_value} shares where {minted} were due"
        if self.supply == 0:
            self.supply = MINIMUM_LIQUIDITY
        self.supply += minted
        self.shares_of[provider] += minted
        self.reserves = [self.reserves[0] + amount0, self.reserves[1] + amount1]
        self.wallet[provider] = [self.wallet[provider][0] - amount0, self.wallet[provider][1] - amount1]

    def rule_remove_liquidity(self, provider, shares):
        if shares > self.shares_of[provider]:
            with reverts("insufficient shares"):
                self.pair.remove_liquidity(shares, {"from": provider})
            return
        out = [shares * r // self.supply if self.supply else 0 for r in self.reserves]
        if 0 in out:
            with reverts():
                self.pair.remove_liquidity(shares, {"from": provider})
            return
        tx = self.pair.remove_liquidity(shares, {"from": provider})
        assert list(tx.return_value) == out, f"paid {list(tx.return_value)} where {out} were due"
        self.supply -= shares
        self.shares_of[provider] -= shares
        self.reserves = [r - o for r, o in zip(self.reserves, out)]
        self.wallet[provider] = [w + o for w, o in zip(self.wallet[provider], out)]

    def rule_swap(self, provider, amount_in, zero_for_one):
        i, o = (0, 1) if zero_for_one else (1, 0)
        with_fee = amount_in * 997
        denominator = self.reserves[i] * 1000 + with_fee
        out = with_fee * self.reserves[o] // denominator if denominator else 0
        if out == 0 or amount_in > self.wallet[provider][i]:
            with reverts():
                self.pair.swap(amount_in, zero_for_one, {"from": provider})
            return
        tx = self.pair.swap(amount_in, zero_for_one, {"from": provider})
        assert tx.return_value == out, f"gave {tx.return_value} where {out} was due"
        self.reserves[i] += amount_in
        self.reserves[o] -= out
        self.wallet[provider][i] -= amount_in
        self.wallet[provider][o] += out

    def invariant_reserves(self):
        assert [self.pair.reserve0(), self.pair.reserve1()] == self.reserves, "the reserves differ"
        assert self.pair.totalSupply() == self.supply, "the supply differs"
