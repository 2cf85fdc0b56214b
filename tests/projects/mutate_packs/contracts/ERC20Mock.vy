# pragma version ~=0.4.3
# An ERC20 token built from snekmate's erc20 and ownable modules.
from snekmate.auth import ownable as ow
initializes: ow

from snekmate.tokens import erc20
initializes: erc20[ownable := ow]

exports: erc20.__interface__


@deploy
@payable
def __init__(name_: String[25], symbol_: String[5], initial_supply_: uint256, name_eip712_: String[50], version_eip712_: String[20]):
    ow.__init__()
    erc20.__init__(name_, symbol_, 18, name_eip712_, version_eip712_)
    erc20._mint(msg.sender, initial_supply_)
