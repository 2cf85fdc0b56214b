# pragma version ~=0.4.3
# Staking rewards as Synthetix's StakingRewards pays them: stakers lock ether, the owner funds
# a reward paid out at a constant rate over a seven-day period, and each staker earns it in
# proportion to their share of the stake while the period lasts.
# Planted bug: the reward keeps accruing after the period has ended. Accrual must stop at
# period_finish (Synthetix's lastTimeRewardApplicable); here it runs to block.timestamp, so
# once more than the period has passed the stakers are owed more than was ever funded.

DURATION: constant(uint256) = 7 * 86400
PRECISION: constant(uint256) = 10**18

owner: public(address)
reward_rate: public(uint256)
period_finish: public(uint256)
last_update: public(uint256)
reward_per_token_stored: public(uint256)
reward_per_token_paid: public(HashMap[address, uint256])
rewards: public(HashMap[address, uint256])
total_supply: public(uint256)
balance_of: public(HashMap[address, uint256])


@deploy
def __init__():
    self.owner = msg.sender


@view
@internal
def _last_time_applicable() -> uint256:
    # the bug: min(block.timestamp, self.period_finish)
    return block.timestamp


@view
@internal
def _reward_per_token() -> uint256:
    if self.total_supply == 0:
        return self.reward_per_token_stored
    elapsed: uint256 = self._last_time_applicable() - self.last_update
    return self.reward_per_token_stored + elapsed * self.reward_rate * PRECISION // self.total_supply


@view
@internal
def _earned(_account: address) -> uint256:
    owed: uint256 = self._reward_per_token() - self.reward_per_token_paid[_account]
    return self.balance_of[_account] * owed // PRECISION + self.rewards[_account]


@internal
def _update(_account: address):
    self.reward_per_token_stored = self._reward_per_token()
    self.last_update = self._last_time_applicable()
    if _account != empty(address):
        self.rewards[_account] = self._earned(_account)
        self.reward_per_token_paid[_account] = self.reward_per_token_stored


@view
@external
def earned(_account: address) -> uint256:
    return self._earned(_account)


@external
@payable
def stake():
    assert msg.value > 0, "Cannot stake 0"
    self._update(msg.sender)
    self.total_supply += msg.value
    self.balance_of[msg.sender] += msg.value


@external
def withdraw(_amount: uint256):
    assert _amount > 0, "Cannot withdraw 0"
    assert self.balance_of[msg.sender] >= _amount, "Insufficient stake"
    self._update(msg.sender)
    self.total_supply -= _amount
    self.balance_of[msg.sender] -= _amount
    send(msg.sender, _amount)


@external
def get_reward():
    self._update(msg.sender)
    reward: uint256 = self.rewards[msg.sender]
    if reward > 0:
        self.rewards[msg.sender] = 0
        send(msg.sender, reward)


@external
@payable
def notify_reward_amount():
    # the owner funds a new period; what is left of the current one rolls into it
    assert msg.sender == self.owner, "Not owner"
    self._update(empty(address))
    if block.timestamp >= self.period_finish:
        self.reward_rate = msg.value // DURATION
    else:
        leftover: uint256 = (self.period_finish - block.timestamp) * self.reward_rate
        self.reward_rate = (msg.value + leftover) // DURATION
    assert self.reward_rate > 0, "Reward too small"
    self.last_update = block.timestamp
    self.period_finish = block.timestamp + DURATION
