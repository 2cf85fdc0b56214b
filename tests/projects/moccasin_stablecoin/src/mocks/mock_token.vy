# pragma version 0.4.1
"""
@title mock_token
@notice Collateral for tests: an ERC20 anyone can mint.
"""
from snekmate.auth import ownable as ow
from snekmate.tokens import erc20

initializes: ow
initializes: erc20[ownable := ow]

exports: erc20.__interface__


@deploy
def __init__():
    ow.__init__()
    erc20.__init__("Mock Token", "MOCK", 18, "Mock Token", "1")


@external
def mint_amount(amount: uint256):
    erc20._mint(msg.sender, amount)
