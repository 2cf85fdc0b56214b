"""Staking rewards: the pool must always hold every stake and every reward it owes.

No rule moves the clock: the time that passes between calls is drawn before each step (see
[fuzz] max_time_delay), and the planted bug needs more than the seven-day reward period to
pass while something is staked.
"""

from evmstate import reverts, strategy


class StakingMachine:
    staker = strategy("address", length=3)  # stakers are funded accounts: three of them
    amount = strategy("uint256", min_value=1, max_value="1 ether")

    def __init__(cls, accounts, StakingRewards):
        cls.owner = accounts[0]
        cls.pool = StakingRewards.deploy({"from": accounts[0]})

    def setup(self):
        self.staked = {}  # what each account that staked in this run has staked now

    def rule_stake(self, staker, amount):
        self.pool.stake({"from": staker, "value": amount})
        self.staked[staker] = self.staked.get(staker, 0) + amount

    def rule_withdraw(self, staker, amount):
        if amount <= self.staked.get(staker, 0):
            self.pool.withdraw(amount, {"from": staker})
            self.staked[staker] -= amount
        else:
            with reverts("Insufficient stake"):
                self.pool.withdraw(amount, {"from": staker})

    def rule_claim(self, staker):
        self.pool.get_reward({"from": staker})

    def rule_fund(self):
        # the week's reward, as an emissions schedule pays it
        self.pool.notify_reward_amount({"from": self.owner, "value": "1 ether"})

    def invariant_solvent(self):
        # everyone could leave now with their stake and their reward
        owed = sum(self.pool.earned(a) for a in self.staked)
        assert self.pool.balance() >= self.pool.total_supply() + owed, "the pool owes more than it holds"
