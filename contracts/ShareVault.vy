# pragma version ~=0.4.3
# An ERC-4626 style vault: shares priced by the assets it holds, with no virtual shares and no
# minimum mint. A plain transfer to the vault (a donation) raises the price of a share, and
# deposit() rounds the shares it mints down, to none at all: the first depositor can make a
# later deposit mint nothing and own what it brought (the "inflation attack" on ERC-4626 vaults).

from ethereum.ercs import IERC20

asset: public(IERC20)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])


@deploy
def __init__(_asset: IERC20):
    self.asset = _asset


@view
@external
def totalAssets() -> uint256:
    return staticcall self.asset.balanceOf(self)


@view
@internal
def _to_shares(assets: uint256) -> uint256:
    supply: uint256 = self.totalSupply
    if supply == 0:
        return assets
    return assets * supply // staticcall self.asset.balanceOf(self)  # rounds down, in the vault's favour


@view
@internal
def _to_assets(shares: uint256) -> uint256:
    supply: uint256 = self.totalSupply
    if supply == 0:
        return shares
    return shares * staticcall self.asset.balanceOf(self) // supply


@view
@external
def convertToShares(assets: uint256) -> uint256:
    return self._to_shares(assets)


@view
@external
def convertToAssets(shares: uint256) -> uint256:
    return self._to_assets(shares)


@external
def deposit(assets: uint256, receiver: address) -> uint256:
    shares: uint256 = self._to_shares(assets)
    assert extcall self.asset.transferFrom(msg.sender, self, assets)
    self.totalSupply += shares
    self.balanceOf[receiver] += shares
    return shares


@external
def redeem(shares: uint256, receiver: address, owner: address) -> uint256:
    assert msg.sender == owner, "not the owner"
    assets: uint256 = self._to_assets(shares)
    self.balanceOf[owner] -= shares
    self.totalSupply -= shares
    assert extcall self.asset.transfer(receiver, assets)
    return assets
