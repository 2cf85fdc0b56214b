# pragma version ~=0.4.3
"""
@title A small ERC-4626 vault, written from the EIP for the property pack's tests
@notice Shares are an ERC-20; the assets stay idle in the vault. One virtual share and one
        virtual asset set the price of an empty vault, so that a first depositor cannot inflate
        it. Deposits stop at a cap (maxDeposit and maxMint say so), and the owner may shut the
        vault, after which only withdrawals and redemptions work. tests/quality/test_vault_bugs.py
        plants one bug at a time in copies of it.
"""

from ethereum.ercs import IERC20

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

event Approval:
    owner: indexed(address)
    spender: indexed(address)
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

VIRTUAL: constant(uint256) = 1  # one virtual share and one virtual asset

name: public(String[32])
symbol: public(String[8])
decimals: public(uint8)
asset: public(address)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])
owner: public(address)
shut: public(bool)
cap: public(uint256)


@deploy
def __init__(asset: address, cap: uint256):
    self.name = "Vault"
    self.symbol = "VLT"
    self.decimals = 18
    self.asset = asset
    self.cap = cap
    self.owner = msg.sender


@external
def shutdown():
    assert msg.sender == self.owner, "only the owner"
    self.shut = True


# -- ERC-20: the shares ----------------------------------------------------------------

@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._transfer(msg.sender, receiver, amount)
    return True


@external
def transferFrom(sender: address, receiver: address, amount: uint256) -> bool:
    self._spend(sender, msg.sender, amount)
    self._transfer(sender, receiver, amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, value=amount)
    return True


@internal
def _transfer(sender: address, receiver: address, amount: uint256):
    assert receiver != empty(address), "transfer to the zero address"
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=sender, receiver=receiver, value=amount)


@internal
def _spend(owner: address, spender: address, amount: uint256):
    allowed: uint256 = self.allowance[owner][spender]
    if allowed != max_value(uint256):
        self.allowance[owner][spender] = allowed - amount


# -- ERC-4626: accounting ----------------------------------------------------------------

@internal
@pure
def _mul_div(x: uint256, y: uint256, d: uint256, roundup: bool) -> uint256:
    q: uint256 = x * y // d
    if roundup and (x * y) % d != 0:
        q += 1
    return q


@internal
@view
def _total_assets() -> uint256:
    return staticcall IERC20(self.asset).balanceOf(self)


@internal
@view
def _to_shares(assets: uint256, roundup: bool) -> uint256:
    supply: uint256 = self.totalSupply + VIRTUAL
    if supply == 0:  # no virtual share: the first deposit sets the price, one share per asset
        return assets
    return self._mul_div(assets, supply, self._total_assets() + VIRTUAL, roundup)


@internal
@view
def _to_assets(shares: uint256, roundup: bool) -> uint256:
    supply: uint256 = self.totalSupply + VIRTUAL
    if supply == 0:
        return shares
    return self._mul_div(shares, self._total_assets() + VIRTUAL, supply, roundup)


@internal
@view
def _max_deposit(receiver: address) -> uint256:
    total: uint256 = self._total_assets()
    if self.shut or total >= self.cap:
        return 0
    return self.cap - total


@internal
@view
def _max_withdraw(owner: address) -> uint256:
    return self._to_assets(self.balanceOf[owner], False)


@external
@view
def totalAssets() -> uint256:
    return self._total_assets()


@external
@view
def convertToShares(assets: uint256) -> uint256:
    return self._to_shares(assets, False)


@external
@view
def convertToAssets(shares: uint256) -> uint256:
    return self._to_assets(shares, False)


@external
@view
def maxDeposit(receiver: address) -> uint256:
    return self._max_deposit(receiver)


@external
@view
def maxMint(receiver: address) -> uint256:
    limit: uint256 = self._max_deposit(receiver)
    if limit == max_value(uint256):
        return limit
    return self._to_shares(limit, False)


@external
@view
def maxWithdraw(owner: address) -> uint256:
    return self._max_withdraw(owner)


@external
@view
def maxRedeem(owner: address) -> uint256:
    return self.balanceOf[owner]


@external
@view
def previewDeposit(assets: uint256) -> uint256:
    return self._to_shares(assets, False)


@external
@view
def previewMint(shares: uint256) -> uint256:
    return self._to_assets(shares, True)


@external
@view
def previewWithdraw(assets: uint256) -> uint256:
    return self._to_shares(assets, True)


@external
@view
def previewRedeem(shares: uint256) -> uint256:
    return self._to_assets(shares, False)


# -- ERC-4626: the four actions ------------------------------------------------------------

@external
def deposit(assets: uint256, receiver: address) -> uint256:
    assert not self.shut, "shut"
    assert self._total_assets() + assets <= self.cap, "over the cap"
    shares: uint256 = self._to_shares(assets, False)
    self._pull(assets)
    self._mint(receiver, shares)
    log Deposit(sender=msg.sender, owner=receiver, assets=assets, shares=shares)
    return shares


@external
def mint(shares: uint256, receiver: address) -> uint256:
    assert not self.shut, "shut"
    assets: uint256 = self._to_assets(shares, True)
    assert self._total_assets() + assets <= self.cap, "over the cap"
    self._pull(assets)
    self._mint(receiver, shares)
    log Deposit(sender=msg.sender, owner=receiver, assets=assets, shares=shares)
    return assets


@external
def withdraw(assets: uint256, receiver: address, owner: address) -> uint256:
    assert assets <= self._max_withdraw(owner), "more than the owner's shares"
    shares: uint256 = self._to_shares(assets, True)
    if msg.sender != owner:
        self._spend(owner, msg.sender, shares)
    self._burn(owner, shares)
    assert extcall IERC20(self.asset).transfer(receiver, assets, default_return_value=True)
    log Withdraw(sender=msg.sender, receiver=receiver, owner=owner, assets=assets, shares=shares)
    return shares


@external
def redeem(shares: uint256, receiver: address, owner: address) -> uint256:
    assert shares <= self.balanceOf[owner], "more than the owner's shares"
    assets: uint256 = self._to_assets(shares, False)
    if msg.sender != owner:
        self._spend(owner, msg.sender, shares)
    self._burn(owner, shares)
    assert extcall IERC20(self.asset).transfer(receiver, assets, default_return_value=True)
    log Withdraw(sender=msg.sender, receiver=receiver, owner=owner, assets=assets, shares=shares)
    return assets


@internal
def _pull(assets: uint256):
    assert extcall IERC20(self.asset).transferFrom(msg.sender, self, assets, default_return_value=True)


@internal
def _mint(receiver: address, shares: uint256):
    assert receiver != empty(address), "mint to the zero address"
    self.totalSupply += shares
    self.balanceOf[receiver] += shares
    log Transfer(sender=empty(address), receiver=receiver, value=shares)


@internal
def _burn(owner: address, shares: uint256):
    self.balanceOf[owner] -= shares
    self.totalSupply -= shares
    log Transfer(sender=owner, receiver=empty(address), value=shares)
