# pragma version ~=0.4.3
# An ERC20 token built from snekmate's erc20 and ownable modules, with a burn on an owner's behalf.
# Planted bug: burn_for spends no allowance, so anyone may burn anyone's tokens.
from snekmate.auth import ownable as ow
initializes: ow

from snekmate.tokens import erc20
initializes: erc20[ownable := ow]

exports: erc20.__interface__


@deploy
def __init__(initial_supply_: uint256):
    ow.__init__()
    erc20.__init__("Token", "TKN", 18, "Token", "1")
    erc20._mint(msg.sender, initial_supply_)


@external
def burn_for(owner_: address, amount_: uint256):
    # the bug: the caller's allowance is not spent first (erc20._spend_allowance(owner_, msg.sender, amount_))
    erc20._burn(owner_, amount_)
