"""A collateralised debt pool, from its specification: no borrow may leave a position
liquidatable (debt at or above 75% of its collateral's value at 2000 units a wei)."""

from evmstate import reverts, strategy


class PoolMachine:
    user = strategy("address", length=4)
    collateral = strategy("uint256", min_value=1, max_value="10 ether")
    amount = strategy("uint256")

    def __init__(cls, accounts, Pool):
        cls.pool = Pool.deploy({"from": accounts[0]})

    def setup(self):
        self.users = set()

    def rule_deposit(self, user, collateral):
        self.pool.deposit({"from": user, "value": collateral})
        self.users.add(user)

    def rule_borrow(self, user, amount):
        self.users.add(user)
        self.pool.borrow(amount, {"from": user}) if self._may_borrow(user, amount) else self._refused(user, amount)

    def _may_borrow(self, user, amount):
        limit = self.pool.collateral(user) * 2000 * 75 // 100
        return amount > 0 and self.pool.debt(user) + amount < limit

    def _refused(self, user, amount):
        with reverts():
            self.pool.borrow(amount, {"from": user})

    def rule_repay(self, user, amount):
        if amount > self.pool.debt(user):
            with reverts():
                self.pool.repay(amount, {"from": user})
            return
        self.pool.repay(amount, {"from": user})

    def invariant_healthy(self):
        for user in self.users:
            assert not self.pool.liquidatable(user), f"{user} was left liquidatable"
