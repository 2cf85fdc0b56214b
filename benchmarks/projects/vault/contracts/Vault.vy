# pragma version ~=0.4.3
"""
@title A multi-strategy allocator vault
@notice An ERC-4626 vault in the shape of Yearn V3's VaultV3 (as its public specification
        describes it), built on snekmate's erc4626 module: the share token, permits, the
        `asset` and the deposit and withdrawal flows are snekmate's; the accounting is the
        vault's own. Assets are idle in the vault or lent to ERC-4626 strategies
        (`update_debt`, under each strategy's `max_debt` and the vault's `minimum_total_idle`);
        `process_report` realises a strategy's gain or loss, pays the accountant's fees in
        shares and locks new profit as shares the vault holds, unlocked linearly over
        `profit_max_unlock_time`. Total assets are `total_idle + total_debt`, never the vault's
        balance, so a donation changes nothing.

        Withdrawals take idle assets first, then walk the queue of strategies. `withdraw`
        delivers exactly the assets asked for and never takes a loss: a strategy worth less
        than its debt is passed over. `redeem` takes from such a strategy too, and its owner
        bears the strategy's unrealised loss on what it takes (the assets returned are fewer
        than `previewRedeem` by that share), all of it or nothing when the strategy cannot pay.
"""

from ethereum.ercs import IERC20
from ethereum.ercs import IERC4626

implements: IERC20
implements: IERC4626

from snekmate.extensions import erc4626
from snekmate.tokens import erc20
from snekmate.utils import math

initializes: erc4626
uses: erc20

exports: (
    erc4626.asset,
    erc20.allowance,
    erc20.approve,
    erc20.name,
    erc20.symbol,
    erc20.decimals,
    erc20.permit,
    erc20.nonces,
    erc20.DOMAIN_SEPARATOR,
    erc20.eip712Domain,
)


# the part of ERC-4626 the vault asks of a strategy
interface IStrategy:
    def asset() -> address: view
    def balanceOf(owner: address) -> uint256: view
    def convertToAssets(shares: uint256) -> uint256: view
    def maxDeposit(receiver: address) -> uint256: view
    def maxWithdraw(owner: address) -> uint256: view
    def deposit(assets: uint256, receiver: address) -> uint256: nonpayable
    def withdraw(assets: uint256, receiver: address, owner: address) -> uint256: nonpayable


interface IAccountant:
    def report(strategy: address, gain: uint256, loss: uint256) -> (uint256, uint256): nonpayable


flag Roles:
    ADD_STRATEGY_MANAGER
    DEBT_MANAGER
    MAX_DEBT_MANAGER
    REPORTING_MANAGER
    ACCOUNTANT_MANAGER
    DEPOSIT_LIMIT_MANAGER
    MINIMUM_IDLE_MANAGER
    PROFIT_UNLOCK_MANAGER
    EMERGENCY_MANAGER


struct StrategyParams:
    activation: uint256
    last_report: uint256
    current_debt: uint256
    max_debt: uint256


event StrategyAdded:
    strategy: indexed(address)

event DebtUpdated:
    strategy: indexed(address)
    current_debt: uint256
    new_debt: uint256

event StrategyReported:
    strategy: indexed(address)
    gain: uint256
    loss: uint256
    current_debt: uint256
    total_fees: uint256
    total_refunds: uint256

event RoleSet:
    account: indexed(address)
    role: Roles

event Shutdown:
    pass


MAX_QUEUE: constant(uint256) = 10
MAX_BPS_EXTENDED: constant(uint256) = 1_000_000_000_000
MAX_PROFIT_UNLOCK_TIME: constant(uint256) = 31_556_952

ASSET: immutable(IERC20)

role_manager: public(address)
roles: public(HashMap[address, Roles])
strategies: public(HashMap[address, StrategyParams])
default_queue: public(DynArray[address, MAX_QUEUE])
accountant: public(address)
total_idle: public(uint256)
total_debt: public(uint256)
deposit_limit: public(uint256)
minimum_total_idle: public(uint256)
profit_max_unlock_time: public(uint256)
full_profit_unlock_date: public(uint256)
profit_unlocking_rate: public(uint256)
last_profit_update: public(uint256)
isShutdown: public(bool)


@deploy
def __init__(asset_: IERC20, name_: String[25], symbol_: String[5], role_manager_: address, profit_max_unlock_time_: uint256):
    assert profit_max_unlock_time_ <= MAX_PROFIT_UNLOCK_TIME, "vault: profit unlock time too long"
    erc4626.__init__(name_, symbol_, asset_, 0, name_, "1")
    ASSET = asset_
    self.role_manager = role_manager_
    self.profit_max_unlock_time = profit_max_unlock_time_


# the share token: snekmate's, with the shares the vault holds (locked profit) unlocking over time


@external
@view
def totalSupply() -> uint256:
    return self._total_supply()


@external
@view
def balanceOf(account: address) -> uint256:
    if account == self:
        return erc20.balanceOf[self] - self._unlocked_shares()
    return erc20.balanceOf[account]


@external
def transfer(to: address, amount: uint256) -> bool:
    assert to != self, "vault: cannot transfer to the vault"
    erc20._transfer(msg.sender, to, amount)
    return True


@external
def transferFrom(owner: address, to: address, amount: uint256) -> bool:
    assert to != self, "vault: cannot transfer to the vault"
    erc20._spend_allowance(owner, msg.sender, amount)
    erc20._transfer(owner, to, amount)
    return True


@external
@view
def unlockedShares() -> uint256:
    return self._unlocked_shares()


@external
@view
def pricePerShare() -> uint256:
    return self._convert_to_assets(10 ** convert(erc20.decimals, uint256), False)


# ERC-4626


@external
@view
def totalAssets() -> uint256:
    return self._total_assets()


@external
@view
def convertToShares(assets: uint256) -> uint256:
    return self._convert_to_shares(assets, False)


@external
@view
def convertToAssets(shares: uint256) -> uint256:
    return self._convert_to_assets(shares, False)


@external
@view
def maxDeposit(receiver: address) -> uint256:
    return self._max_deposit(receiver)


@external
@view
def maxMint(receiver: address) -> uint256:
    max_deposit: uint256 = self._max_deposit(receiver)
    if max_deposit == max_value(uint256):
        return max_deposit
    return self._convert_to_shares(max_deposit, False)


@external
@view
def maxWithdraw(owner: address) -> uint256:
    return self._max_withdraw(owner, False)


@external
@view
def maxRedeem(owner: address) -> uint256:
    value: uint256 = self._convert_to_assets(erc20.balanceOf[owner], False)
    liquid: uint256 = self._max_withdraw(owner, True)
    if liquid == value:
        return erc20.balanceOf[owner]
    return self._convert_to_shares(liquid, False)


@external
@view
def previewDeposit(assets: uint256) -> uint256:
    return self._convert_to_shares(assets, False)


@external
@view
def previewMint(shares: uint256) -> uint256:
    return self._convert_to_assets(shares, True)


@external
@view
def previewWithdraw(assets: uint256) -> uint256:
    return self._convert_to_shares(assets, True)


@external
@view
def previewRedeem(shares: uint256) -> uint256:
    return self._convert_to_assets(shares, False)


@external
@nonreentrant
def deposit(assets: uint256, receiver: address) -> uint256:
    assert assets <= self._max_deposit(receiver), "vault: deposit more than maximum"
    shares: uint256 = self._convert_to_shares(assets, False)
    assert shares > 0, "vault: cannot mint zero shares"
    self._deposit(receiver, assets, shares)
    return shares


@external
@nonreentrant
def mint(shares: uint256, receiver: address) -> uint256:
    assets: uint256 = self._convert_to_assets(shares, True)
    assert assets <= self._max_deposit(receiver), "vault: mint more than maximum"
    assert assets > 0, "vault: cannot deposit zero assets"
    self._deposit(receiver, assets, shares)
    return assets


@external
@nonreentrant
def withdraw(assets: uint256, receiver: address, owner: address) -> uint256:
    assert assets <= self._max_withdraw(owner, False), "vault: withdraw more than maximum"
    shares: uint256 = self._convert_to_shares(assets, True)
    self._redeem(receiver, owner, assets, shares, False)
    return shares


@external
@nonreentrant
def redeem(shares: uint256, receiver: address, owner: address) -> uint256:
    assert shares <= erc20.balanceOf[owner], "vault: redeem more than balance"
    assets: uint256 = self._convert_to_assets(shares, False)
    return self._redeem(receiver, owner, assets, shares, True)


# management


@external
def set_role(account: address, role: Roles):
    assert msg.sender == self.role_manager, "vault: not the role manager"
    self.roles[account] = role
    log RoleSet(account=account, role=role)


@external
def add_strategy(strategy: address):
    self._enforce_role(Roles.ADD_STRATEGY_MANAGER)
    assert not self.isShutdown, "vault: shut down"
    assert strategy != empty(address), "vault: strategy is the zero address"
    assert staticcall IStrategy(strategy).asset() == ASSET.address, "vault: strategy's asset is not the vault's"
    assert self.strategies[strategy].activation == 0, "vault: strategy already active"
    self.strategies[strategy] = StrategyParams(activation=block.timestamp, last_report=block.timestamp, current_debt=0, max_debt=0)
    self.default_queue.append(strategy)
    log StrategyAdded(strategy=strategy)


@external
def update_max_debt_for_strategy(strategy: address, new_max_debt: uint256):
    self._enforce_role(Roles.MAX_DEBT_MANAGER)
    assert self.strategies[strategy].activation != 0, "vault: inactive strategy"
    self.strategies[strategy].max_debt = new_max_debt


@external
def set_accountant(new_accountant: address):
    self._enforce_role(Roles.ACCOUNTANT_MANAGER)
    self.accountant = new_accountant


@external
def set_deposit_limit(deposit_limit: uint256):
    self._enforce_role(Roles.DEPOSIT_LIMIT_MANAGER)
    assert not self.isShutdown, "vault: shut down"
    self.deposit_limit = deposit_limit


@external
def set_minimum_total_idle(minimum_total_idle: uint256):
    self._enforce_role(Roles.MINIMUM_IDLE_MANAGER)
    self.minimum_total_idle = minimum_total_idle


@external
def set_profit_max_unlock_time(new_profit_max_unlock_time: uint256):
    self._enforce_role(Roles.PROFIT_UNLOCK_MANAGER)
    assert new_profit_max_unlock_time <= MAX_PROFIT_UNLOCK_TIME, "vault: profit unlock time too long"
    if new_profit_max_unlock_time == 0:
        # no more locking: what is locked now unlocks at once
        erc20._burn(self, erc20.balanceOf[self])
        self.profit_unlocking_rate = 0
        self.full_profit_unlock_date = 0
    self.profit_max_unlock_time = new_profit_max_unlock_time


@external
def shutdown_vault():
    self._enforce_role(Roles.EMERGENCY_MANAGER)
    assert not self.isShutdown, "vault: already shut down"
    self.isShutdown = True
    self.deposit_limit = 0
    # whoever shut the vault down can bring the debt home
    self.roles[msg.sender] = self.roles[msg.sender] | Roles.DEBT_MANAGER
    log Shutdown()


@external
@nonreentrant
def update_debt(strategy: address, target_debt: uint256) -> uint256:
    self._enforce_role(Roles.DEBT_MANAGER)
    assert self.strategies[strategy].activation != 0, "vault: inactive strategy"
    current_debt: uint256 = self.strategies[strategy].current_debt
    new_debt: uint256 = target_debt
    if self.isShutdown:
        new_debt = 0
    assert new_debt != current_debt, "vault: new debt equals current debt"

    if current_debt > new_debt:
        to_withdraw: uint256 = current_debt - new_debt
        idle: uint256 = self.total_idle
        minimum_idle: uint256 = self.minimum_total_idle
        if idle + to_withdraw < minimum_idle:
            # take back enough to keep the minimum idle, as far as the debt goes
            to_withdraw = min(minimum_idle - idle, current_debt)
        assert self._position(strategy) >= current_debt, "vault: strategy has unrealised losses"
        to_withdraw = min(to_withdraw, staticcall IStrategy(strategy).maxWithdraw(self))
        assert to_withdraw != 0, "vault: nothing to withdraw"
        withdrawn: uint256 = self._withdraw_from_strategy(strategy, to_withdraw)
        self.total_idle = idle + withdrawn
        self.total_debt -= to_withdraw
        new_debt = current_debt - to_withdraw
    else:
        max_debt: uint256 = self.strategies[strategy].max_debt
        if new_debt > max_debt:
            new_debt = max(max_debt, current_debt)
        to_deposit: uint256 = min(new_debt - current_debt, staticcall IStrategy(strategy).maxDeposit(self))
        idle: uint256 = self.total_idle
        minimum_idle: uint256 = self.minimum_total_idle
        if idle <= minimum_idle:
            return current_debt
        to_deposit = min(to_deposit, idle - minimum_idle)
        if to_deposit == 0:
            return current_debt
        before: uint256 = staticcall ASSET.balanceOf(self)
        assert extcall ASSET.approve(strategy, to_deposit, default_return_value=True), "vault: approve failed"
        extcall IStrategy(strategy).deposit(to_deposit, self)
        assert extcall ASSET.approve(strategy, 0, default_return_value=True), "vault: approve failed"
        deposited: uint256 = before - staticcall ASSET.balanceOf(self)
        self.total_idle = idle - deposited
        self.total_debt += deposited
        new_debt = current_debt + deposited

    self.strategies[strategy].current_debt = new_debt
    log DebtUpdated(strategy=strategy, current_debt=current_debt, new_debt=new_debt)
    return new_debt


@external
@nonreentrant
def process_report(strategy: address) -> (uint256, uint256):
    self._enforce_role(Roles.REPORTING_MANAGER)
    assert self.strategies[strategy].activation != 0, "vault: inactive strategy"
    # what has unlocked since the last update leaves the vault's balance first: it holds only what is still locked
    self._burn_unlocked_shares()

    position: uint256 = self._position(strategy)
    current_debt: uint256 = self.strategies[strategy].current_debt
    gain: uint256 = 0
    loss: uint256 = 0
    if position > current_debt:
        gain = position - current_debt
    else:
        loss = current_debt - position

    fees: uint256 = 0
    refunds: uint256 = 0
    accountant: address = self.accountant
    if accountant != empty(address):
        fees, refunds = extcall IAccountant(accountant).report(strategy, gain, loss)
        if refunds > 0:
            refunds = min(refunds, min(staticcall ASSET.balanceOf(accountant), staticcall ASSET.allowance(accountant, self)))

    # the loss and the fees in shares, at the price before the report: burnt from the locked profit as far as it goes
    shares_to_burn: uint256 = 0
    fee_shares: uint256 = 0
    if loss + fees > 0:
        shares_to_burn = self._convert_to_shares(loss + fees, True)
        if fees > 0:
            fee_shares = shares_to_burn * fees // (loss + fees)
    # the gain and the refunds in shares, locked
    shares_to_lock: uint256 = 0
    if gain + refunds > 0 and self.profit_max_unlock_time != 0:
        shares_to_lock = self._convert_to_shares(gain + refunds, False)

    locked: uint256 = erc20.balanceOf[self]
    if shares_to_lock > shares_to_burn:
        erc20._mint(self, shares_to_lock - shares_to_burn)
    elif shares_to_burn > shares_to_lock:
        erc20._burn(self, min(shares_to_burn - shares_to_lock, locked))
    newly_locked: uint256 = shares_to_lock - min(shares_to_lock, shares_to_burn)

    if refunds > 0:
        assert extcall ASSET.transferFrom(accountant, self, refunds, default_return_value=True), "vault: refund failed"
        self.total_idle += refunds
    if gain > 0:
        current_debt += gain
        self.total_debt += gain
    elif loss > 0:
        current_debt -= loss
        self.total_debt -= loss
    self.strategies[strategy].current_debt = current_debt
    if fee_shares > 0:
        erc20._mint(accountant, fee_shares)

    # the shares locked before keep the time they had left, the new ones get the whole period
    total_locked: uint256 = erc20.balanceOf[self]
    if total_locked > 0:
        previously_locked_time: uint256 = 0
        if self.full_profit_unlock_date > block.timestamp:
            previously_locked_time = (total_locked - newly_locked) * (self.full_profit_unlock_date - block.timestamp)
        period: uint256 = (previously_locked_time + newly_locked * self.profit_max_unlock_time) // total_locked
        self.profit_unlocking_rate = total_locked * MAX_BPS_EXTENDED // period
        self.full_profit_unlock_date = block.timestamp + period
        self.last_profit_update = block.timestamp
    else:
        self.profit_unlocking_rate = 0
        self.full_profit_unlock_date = 0

    self.strategies[strategy].last_report = block.timestamp
    log StrategyReported(strategy=strategy, gain=gain, loss=loss, current_debt=current_debt, total_fees=fees, total_refunds=refunds)
    return (gain, loss)


# internals


@internal
@view
def _enforce_role(role: Roles):
    assert role in self.roles[msg.sender], "vault: not allowed"


@internal
@view
def _total_assets() -> uint256:
    return self.total_idle + self.total_debt


@internal
@view
def _unlocked_shares() -> uint256:
    unlock_date: uint256 = self.full_profit_unlock_date
    if unlock_date > block.timestamp:
        return self.profit_unlocking_rate * (block.timestamp - self.last_profit_update) // MAX_BPS_EXTENDED
    if unlock_date != 0:
        return erc20.balanceOf[self]
    return 0


@internal
@view
def _total_supply() -> uint256:
    return erc20.totalSupply - self._unlocked_shares()


@internal
def _burn_unlocked_shares():
    unlocked: uint256 = self._unlocked_shares()
    if unlocked == 0:
        return
    if self.full_profit_unlock_date > block.timestamp:
        self.last_profit_update = block.timestamp
    erc20._burn(self, unlocked)


@internal
@view
def _convert_to_shares(assets: uint256, roundup: bool) -> uint256:
    # snekmate's conversion (one virtual share and one virtual asset), over the vault's own total assets
    return math._mul_div(assets, self._total_supply() + 1, self._total_assets() + 1, roundup)


@internal
@view
def _convert_to_assets(shares: uint256, roundup: bool) -> uint256:
    return math._mul_div(shares, self._total_assets() + 1, self._total_supply() + 1, roundup)


@internal
@view
def _max_deposit(receiver: address) -> uint256:
    if receiver == empty(address) or receiver == self or self.isShutdown:
        return 0
    if self.deposit_limit == max_value(uint256):
        # no limit
        return max_value(uint256)
    total_assets: uint256 = self._total_assets()
    if total_assets >= self.deposit_limit:
        return 0
    return self.deposit_limit - total_assets


@internal
@view
def _position(strategy: address) -> uint256:
    """What the vault's shares of the strategy are worth, at the strategy's price."""
    return staticcall IStrategy(strategy).convertToAssets(staticcall IStrategy(strategy).balanceOf(self))


@internal
@view
def _portion(strategy: address, needed: uint256, take_losses: bool) -> (uint256, uint256):
    """
    How much of `needed` a withdrawal takes from `strategy`: the debt it retires and the assets
    that debt is worth now (fewer when the strategy holds less than its debt).
    """
    current_debt: uint256 = self.strategies[strategy].current_debt
    if current_debt == 0:
        return (0, 0)
    position: uint256 = self._position(strategy)
    to_withdraw: uint256 = 0
    worth: uint256 = 0
    if position >= current_debt:
        # it holds at least its debt: up to the debt, at face value
        to_withdraw = min(needed, current_debt)
        worth = to_withdraw
    elif take_losses:
        # it holds less: the owner bears the unrealised loss on what is taken
        to_withdraw = min(needed, current_debt)
        worth = to_withdraw * position // current_debt
    else:
        return (0, 0)
    available: uint256 = staticcall IStrategy(strategy).maxWithdraw(self)
    if worth > available:
        if worth < to_withdraw:
            # in loss: its whole share of the loss, or nothing
            return (0, 0)
        to_withdraw = available
        worth = available
    return (to_withdraw, worth)


@internal
@view
def _max_withdraw(owner: address, take_losses: bool) -> uint256:
    max_assets: uint256 = self._convert_to_assets(erc20.balanceOf[owner], False)
    idle: uint256 = self.total_idle
    if max_assets <= idle:
        return max_assets
    needed: uint256 = max_assets - idle
    for strategy: address in self.default_queue:
        if needed == 0:
            break
        to_withdraw: uint256 = 0
        worth: uint256 = 0
        to_withdraw, worth = self._portion(strategy, needed, take_losses)
        needed -= to_withdraw
    return max_assets - needed


@internal
def _withdraw_from_strategy(strategy: address, assets: uint256) -> uint256:
    """Withdraw assets from the strategy; what actually arrived."""
    before: uint256 = staticcall ASSET.balanceOf(self)
    extcall IStrategy(strategy).withdraw(assets, self, self)
    withdrawn: uint256 = staticcall ASSET.balanceOf(self) - before
    assert withdrawn >= assets, "vault: strategy returned less than asked"
    return withdrawn


@internal
def _deposit(receiver: address, assets: uint256, shares: uint256):
    erc4626._deposit(msg.sender, receiver, assets, shares)
    self.total_idle += assets


@internal
def _redeem(receiver: address, owner: address, assets: uint256, shares: uint256, take_losses: bool) -> uint256:
    """Burn the owner's shares and send the receiver their assets, less the owner's share of losses taken; what was sent."""
    assert receiver != self, "vault: cannot withdraw to the vault"
    assert shares > 0, "vault: no shares to redeem"
    assert assets > 0, "vault: no assets to withdraw"
    requested: uint256 = assets
    idle: uint256 = self.total_idle
    if requested > idle:
        needed: uint256 = requested - idle
        for strategy: address in self.default_queue:
            if needed == 0:
                break
            to_withdraw: uint256 = 0
            worth: uint256 = 0
            to_withdraw, worth = self._portion(strategy, needed, take_losses)
            if to_withdraw == 0:
                continue
            if worth > 0:
                idle += self._withdraw_from_strategy(strategy, worth)
            current_debt: uint256 = self.strategies[strategy].current_debt
            # what comes back beyond the debt (a strategy's rounding) is idle, not a debt below zero
            retired: uint256 = min(to_withdraw, current_debt)
            self.strategies[strategy].current_debt = current_debt - retired
            self.total_debt -= retired
            needed -= to_withdraw
            requested -= to_withdraw - worth
            log DebtUpdated(strategy=strategy, current_debt=current_debt, new_debt=current_debt - retired)
        assert needed == 0, "vault: not enough assets"
    self.total_idle = idle - requested
    erc4626._withdraw(msg.sender, receiver, owner, requested, shares)
    return requested
