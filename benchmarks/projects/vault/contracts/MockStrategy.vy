# pragma version ~=0.4.3
"""
@title An ERC-4626 strategy with knobs
@notice snekmate's erc4626 vault over the asset, with three knobs its keeper turns: a gain (the
        strategy is paid `amount` of the asset, as yield), a loss (it burns `amount` of what it
        holds) and a lock (up to `amount` of what it holds cannot be withdrawn, as funds lent out
        or staked for a while). Withdrawals are limited to what is not locked.
"""

from ethereum.ercs import IERC20

from snekmate.extensions import erc4626
from snekmate.tokens import erc20

initializes: erc4626
uses: erc20

exports: (
    erc4626.asset,
    erc4626.totalAssets,
    erc4626.convertToShares,
    erc4626.convertToAssets,
    erc4626.maxDeposit,
    erc4626.previewDeposit,
    erc4626.deposit,
    erc4626.maxMint,
    erc4626.previewMint,
    erc4626.mint,
    erc4626.previewWithdraw,
    erc4626.previewRedeem,
    erc20.totalSupply,
    erc20.balanceOf,
    erc20.transfer,
    erc20.transferFrom,
    erc20.approve,
    erc20.allowance,
    erc20.name,
    erc20.symbol,
    erc20.decimals,
)


interface IMintable:
    def mint(owner: address, amount: uint256): nonpayable
    def burn(amount: uint256): nonpayable


ASSET: immutable(address)

keeper: public(address)
locked: public(uint256)


@deploy
def __init__(asset_: IERC20, name_: String[25], symbol_: String[5]):
    erc4626.__init__(name_, symbol_, asset_, 0, name_, "1")
    ASSET = asset_.address
    self.keeper = msg.sender


@external
@view
def available() -> uint256:
    """What can be withdrawn now: the strategy's assets that are not locked."""
    return self._available()


@external
@view
def maxWithdraw(owner: address) -> uint256:
    return min(erc4626._convert_to_assets(erc20.balanceOf[owner], False), self._available())


@external
@view
def maxRedeem(owner: address) -> uint256:
    return min(erc20.balanceOf[owner], erc4626._convert_to_shares(self._available(), False))


@external
def withdraw(assets: uint256, receiver: address, owner: address) -> uint256:
    assert assets <= min(erc4626._convert_to_assets(erc20.balanceOf[owner], False), self._available()), "strategy: withdraw more than maximum"
    shares: uint256 = erc4626._preview_withdraw(assets)
    erc4626._withdraw(msg.sender, receiver, owner, assets, shares)
    return shares


@external
def redeem(shares: uint256, receiver: address, owner: address) -> uint256:
    assets: uint256 = erc4626._preview_redeem(shares)
    assert shares <= erc20.balanceOf[owner] and assets <= self._available(), "strategy: redeem more than maximum"
    erc4626._withdraw(msg.sender, receiver, owner, assets, shares)
    return assets


@external
def simulate_gain(amount: uint256):
    assert msg.sender == self.keeper, "strategy: not the keeper"
    extcall IMintable(ASSET).mint(self, amount)


@external
def simulate_loss(amount: uint256):
    assert msg.sender == self.keeper, "strategy: not the keeper"
    extcall IMintable(ASSET).burn(amount)


@external
def set_locked(amount: uint256):
    assert msg.sender == self.keeper, "strategy: not the keeper"
    self.locked = amount


@internal
@view
def _available() -> uint256:
    balance: uint256 = staticcall IERC20(ASSET).balanceOf(self)
    return balance - min(balance, self.locked)
