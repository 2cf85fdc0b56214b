# pragma version ~=0.4.3
"""An ether vault that issues shares, version 2: previewRedeem rounds up (the planted divergence: redeem still rounds down)."""

event Deposit:
    owner: indexed(address)
    assets: uint256
    shares: uint256

event Redeem:
    owner: indexed(address)
    assets: uint256
    shares: uint256

totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])


@view
@internal
def _to_assets(shares: uint256) -> uint256:
    supply: uint256 = self.totalSupply
    if supply == 0:
        return shares
    return shares * self.balance // supply


@view
@external
def totalAssets() -> uint256:
    return self.balance


@view
@external
def previewRedeem(shares: uint256) -> uint256:
    supply: uint256 = self.totalSupply
    if supply == 0:
        return shares
    return (shares * self.balance + supply - 1) // supply


@payable
@external
def deposit() -> uint256:
    supply: uint256 = self.totalSupply
    held: uint256 = self.balance - msg.value
    shares: uint256 = msg.value
    if supply != 0:
        shares = msg.value * supply // held
    assert shares != 0, "no shares"
    self.totalSupply = supply + shares
    self.balanceOf[msg.sender] += shares
    log Deposit(owner=msg.sender, assets=msg.value, shares=shares)
    return shares


@external
def redeem(shares: uint256) -> uint256:
    assets: uint256 = self._to_assets(shares)
    self.balanceOf[msg.sender] -= shares
    self.totalSupply -= shares
    send(msg.sender, assets)
    log Redeem(owner=msg.sender, assets=assets, shares=shares)
    return assets


@payable
@external
def __default__():
    pass  # a donation: the shares are worth more
