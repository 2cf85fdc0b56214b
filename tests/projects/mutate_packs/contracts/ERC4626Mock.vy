# pragma version ~=0.4.3
# A tokenised vault built from snekmate's erc4626 module.
from ethereum.ercs import IERC20

from snekmate.extensions import erc4626
initializes: erc4626

exports: erc4626.__interface__


@deploy
@payable
def __init__(name_: String[25], symbol_: String[5], asset_: IERC20, decimals_offset_: uint8, name_eip712_: String[50], version_eip712_: String[20]):
    erc4626.__init__(name_, symbol_, asset_, decimals_offset_, name_eip712_, version_eip712_)
