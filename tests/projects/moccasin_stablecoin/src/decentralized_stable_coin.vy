# pragma version 0.4.1
"""
@title decentralized_stable_coin
@notice The stablecoin: an ERC20 that only its engine (the owner, a minter) mints and burns.
"""
from snekmate.auth import ownable as ow
from snekmate.tokens import erc20

initializes: ow
initializes: erc20[ownable := ow]

exports: (
    erc20.IERC20,
    erc20.burn_from,
    erc20.mint,
    erc20.set_minter,
    erc20.is_minter,
    ow.owner,
    erc20.transfer_ownership,
)

NAME: constant(String[25]) = "Decentralized Stable Coin"
SYMBOL: constant(String[5]) = "DSC"
NAME_EIP712: constant(String[50]) = "Decentralized Stable Coin"
VERSION_EIP712: constant(String[20]) = "1"


@deploy
def __init__():
    ow.__init__()
    erc20.__init__(NAME, SYMBOL, 18, NAME_EIP712, VERSION_EIP712)
