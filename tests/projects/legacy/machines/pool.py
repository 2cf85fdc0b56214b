from evmstate import strategy


class PoolMachine:
    """Liquidity in and out and swaps; every LP share stays backed by at least one coin."""

    amount = strategy("uint256", min_value=1, max_value=10**6)
    provider = strategy("address", length=3)
    coin = strategy("int128", min_value=0, max_value=1)

    def __init__(cls, accounts, Token, Pool):
        cls.accounts = accounts
        cls.coins = [Token.deploy(f"Coin{i}", f"C{i}", 18) for i in range(2)]
        cls.pool = Pool.deploy(cls.coins, 4 * 10**6)
        for account in accounts[:3]:
            for coin in cls.coins:
                coin.mint(account, 10**8)
                coin.approve(cls.pool, 2**256 - 1, {"from": account})

    def rule_add(self, provider, amount):
        self.pool.add_liquidity([amount, amount], 0, {"from": provider})

    def rule_swap(self, provider, coin, amount):
        if self.pool.balances(1 - coin) >= self.pool.get_dy(coin, 1 - coin, amount):
            self.pool.exchange(coin, 1 - coin, amount, 0, {"from": provider})

    def rule_remove(self, provider, amount):
        held = self.pool.balanceOf(provider)
        if held and held < self.pool.totalSupply():
            self.pool.remove_liquidity(min(amount, held), [0, 0], {"from": provider})

    def invariant_backed(self):
        assert self.pool.balances(0) + self.pool.balances(1) >= self.pool.totalSupply(), "LP shares are not backed"
