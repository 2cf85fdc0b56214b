# @version 0.3.7
"""A share vault in the shape of Yearn V3's VaultV3.vy: assets idle or lent to strategies, shares priced by the total.

Planted bug: transfer() reads both balances before writing either, so a transfer to oneself mints shares.
"""

from vyper.interfaces import ERC20
import interfaces.IStrategy as IStrategy

struct StrategyParams:
    activation: uint256
    last_report: uint256
    current_debt: uint256
    max_debt: uint256

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

event Deposit:
    sender: indexed(address)
    owner: indexed(address)
    assets: uint256
    shares: uint256

event Withdraw:
    sender: indexed(address)
    receiver: indexed(address)
    owner: indexed(address)
    assets: uint256
    shares: uint256

event DebtUpdated:
    strategy: indexed(address)
    current_debt: uint256
    new_debt: uint256

asset: public(address)
role_manager: public(address)
strategies: public(HashMap[address, StrategyParams])
balanceOf: public(HashMap[address, uint256])
totalSupply: public(uint256)
total_idle: public(uint256)
total_debt: public(uint256)
deposit_limit: public(uint256)


@external
def __init__(asset: address, deposit_limit: uint256):
    assert asset != empty(address), "ZERO ADDRESS"
    self.asset = asset
    self.role_manager = msg.sender
    self.deposit_limit = deposit_limit


@internal
def _erc20_safe_transfer_from(token: address, sender: address, receiver: address, amount: uint256):
    assert ERC20(token).transferFrom(sender, receiver, amount, default_return_value=True), "Transfer failed."


@internal
def _erc20_safe_transfer(token: address, receiver: address, amount: uint256):
    response: Bytes[32] = raw_call(
        token,
        _abi_encode(receiver, amount, method_id=method_id("transfer(address,uint256)")),
        max_outsize=32,
    )
    if len(response) > 0:
        assert convert(response, bool), "Transfer failed!"


@view
@internal
def _total_assets() -> uint256:
    return self.total_idle + self.total_debt


@view
@internal
def _convert_to_shares(assets: uint256) -> uint256:
    total_supply: uint256 = self.totalSupply
    if total_supply == 0:
        return assets
    return assets * total_supply / self._total_assets()


@view
@internal
def _convert_to_assets(shares: uint256) -> uint256:
    total_supply: uint256 = self.totalSupply
    if total_supply == 0:
        return shares
    return shares * self._total_assets() / total_supply


@view
@external
def totalAssets() -> uint256:
    return self._total_assets()


@external
@nonreentrant("lock")
def deposit(assets: uint256, receiver: address) -> uint256:
    assert receiver not in [empty(address), self], "invalid receiver"
    assert self._total_assets() + assets <= self.deposit_limit, "exceed deposit limit"
    shares: uint256 = self._convert_to_shares(assets)
    assert shares > 0, "cannot mint zero"
    self._erc20_safe_transfer_from(self.asset, msg.sender, self, assets)
    self.total_idle += assets
    self.balanceOf[receiver] += shares
    self.totalSupply += shares
    log Deposit(msg.sender, receiver, assets, shares)
    return shares


@external
@nonreentrant("lock")
def redeem(shares: uint256, receiver: address, owner: address) -> uint256:
    assert msg.sender == owner, "not owner"
    assets: uint256 = self._convert_to_assets(shares)
    self.balanceOf[owner] -= shares  # dev: insufficient shares
    self.totalSupply -= shares
    assert assets <= self.total_idle, "insufficient idle"
    self.total_idle -= assets
    self._erc20_safe_transfer(self.asset, receiver, assets)
    log Withdraw(msg.sender, receiver, owner, assets, shares)
    return assets


@external
def transfer(receiver: address, amount: uint256) -> bool:
    sender_balance: uint256 = self.balanceOf[msg.sender]
    receiver_balance: uint256 = self.balanceOf[receiver]
    assert sender_balance >= amount, "insufficient funds"
    self.balanceOf[msg.sender] = sender_balance - amount
    self.balanceOf[receiver] = receiver_balance + amount
    log Transfer(msg.sender, receiver, amount)
    return True


@external
def add_strategy(strategy: address, max_debt: uint256):
    assert msg.sender == self.role_manager, "not allowed"
    assert strategy != empty(address), "strategy cannot be zero address"
    assert IStrategy(strategy).asset() == self.asset, "invalid asset"
    assert self.strategies[strategy].activation == 0, "strategy already active"
    self.strategies[strategy] = StrategyParams({
        activation: block.timestamp,
        last_report: block.timestamp,
        current_debt: 0,
        max_debt: max_debt,
    })


@external
@nonreentrant("lock")
def update_debt(strategy: address, target_debt: uint256) -> uint256:
    assert msg.sender == self.role_manager, "not allowed"
    params: StrategyParams = self.strategies[strategy]
    assert params.activation != 0, "inactive strategy"
    current_debt: uint256 = params.current_debt
    if target_debt > current_debt:
        new_debt: uint256 = min(target_debt, params.max_debt)
        to_deposit: uint256 = min(new_debt - current_debt, self.total_idle)
        self._erc20_safe_transfer(self.asset, strategy, to_deposit)
        self.total_idle -= to_deposit
        self.total_debt += to_deposit
        current_debt += to_deposit
    elif target_debt < current_debt:
        to_withdraw: uint256 = current_debt - target_debt
        IStrategy(strategy).withdraw(to_withdraw, self)
        self.total_idle += to_withdraw
        self.total_debt -= to_withdraw
        current_debt -= to_withdraw
    log DebtUpdated(strategy, params.current_debt, current_debt)
    self.strategies[strategy].current_debt = current_debt
    return current_debt
