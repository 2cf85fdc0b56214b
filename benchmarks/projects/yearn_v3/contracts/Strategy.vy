# pragma version ~=0.4.3
"""
@title An ERC-4626 strategy with a gain and a loss knob
@notice Shares convert at (total assets + 1) / (supply + 1), rounding down but in previewWithdraw;
        it holds the asset and nothing else. The gain knob mints it assets (yield), the loss knob
        burns some of what it holds. Only its depositor, the vault, redeems (for itself).
"""

interface IAsset:
    def balanceOf(owner: address) -> uint256: view
    def transfer(receiver: address, amount: uint256) -> bool: nonpayable
    def transferFrom(owner: address, receiver: address, amount: uint256) -> bool: nonpayable
    def mint(receiver: address, amount: uint256): nonpayable
    def burn(amount: uint256): nonpayable


asset: public(address)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])


@deploy
def __init__(asset_: address):
    self.asset = asset_


@view
@external
def totalAssets() -> uint256:
    return staticcall IAsset(self.asset).balanceOf(self)


@view
@external
def convertToAssets(shares: uint256) -> uint256:
    return self._to_assets(shares)


@view
@external
def convertToShares(assets: uint256) -> uint256:
    return assets * (self.totalSupply + 1) // (staticcall IAsset(self.asset).balanceOf(self) + 1)


@view
@external
def previewWithdraw(assets: uint256) -> uint256:
    numerator: uint256 = assets * (self.totalSupply + 1)
    total: uint256 = staticcall IAsset(self.asset).balanceOf(self) + 1
    return numerator // total + (1 if numerator % total != 0 else 0)


@view
@external
def maxDeposit(receiver: address) -> uint256:
    return max_value(uint256)


@view
@external
def maxRedeem(owner: address) -> uint256:
    return self.balanceOf[owner]


@external
def deposit(assets: uint256, receiver: address) -> uint256:
    shares: uint256 = assets * (self.totalSupply + 1) // (staticcall IAsset(self.asset).balanceOf(self) + 1)
    assert extcall IAsset(self.asset).transferFrom(msg.sender, self, assets)
    self.balanceOf[receiver] += shares
    self.totalSupply += shares
    return shares


@external
def redeem(shares: uint256, receiver: address, owner: address) -> uint256:
    assert msg.sender == owner, "strategy: not the owner"
    assert self.balanceOf[owner] >= shares, "strategy: redeem more than balance"
    assets: uint256 = self._to_assets(shares)
    self.balanceOf[owner] -= shares
    self.totalSupply -= shares
    assert extcall IAsset(self.asset).transfer(receiver, assets)
    return assets


@external
def simulate_gain(amount: uint256):
    extcall IAsset(self.asset).mint(self, amount)


@external
def simulate_loss(amount: uint256):
    extcall IAsset(self.asset).burn(amount)


@view
@internal
def _to_assets(shares: uint256) -> uint256:
    return shares * (staticcall IAsset(self.asset).balanceOf(self) + 1) // (self.totalSupply + 1)
