# pragma version ~=0.4.0
"""
@title A vault of ether whose shares are paid out before they are burnt
@notice withdraw() reads the holder's shares, pays the ether, then writes back the shares it read
        less those withdrawn: a holder that re-enters withdraw() from its receive hook is paid twice
        and charged once.
"""

balance_of: public(HashMap[address, uint256])
total_supply: public(uint256)


event Deposit:
    owner: indexed(address)
    assets: uint256
    shares: uint256


event Withdraw:
    owner: indexed(address)
    assets: uint256
    shares: uint256


@external
@payable
def deposit() -> uint256:
    assert msg.value > 0, "nothing deposited"
    assets_before: uint256 = self.balance - msg.value
    shares: uint256 = msg.value
    if self.total_supply > 0:
        shares = msg.value * self.total_supply // assets_before
    assert shares > 0, "too small a deposit"
    self.balance_of[msg.sender] += shares
    self.total_supply += shares
    log Deposit(owner=msg.sender, assets=msg.value, shares=shares)
    return shares


@external
def withdraw(shares: uint256) -> uint256:
    owned: uint256 = self.balance_of[msg.sender]
    assert shares <= owned, "not enough shares"
    assets: uint256 = shares * self.balance // self.total_supply
    raw_call(msg.sender, b"", value=assets)
    self.balance_of[msg.sender] = owned - shares
    self.total_supply -= shares
    log Withdraw(owner=msg.sender, assets=assets, shares=shares)
    return assets
