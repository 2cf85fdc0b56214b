# pragma version ^0.4.0
"""
@title snek_token
@license MIT
@notice An ERC20 on snekmate's modules, with a few extras of its own.
"""
from pcaversaccio.snekmate.src.snekmate.auth import ownable as ow
from pcaversaccio.snekmate.src.snekmate.tokens import erc20
from ethereum.ercs import IERC20

initializes: ow
initializes: erc20[ownable := ow]

exports: erc20.__interface__

NAME: constant(String[25]) = "snek_token"
SYMBOL: constant(String[5]) = "SNEK"
DECIMALS: constant(uint8) = 18
EIP712_VERSION: constant(String[20]) = "1"
SUPER_MINT_AMOUNT: constant(uint256) = 100 * 10**18


@deploy
def __init__(initial_supply: uint256):
    ow.__init__()
    erc20.__init__(NAME, SYMBOL, DECIMALS, NAME, EIP712_VERSION)
    erc20._mint(msg.sender, initial_supply)


@external
def super_mint():
    """A promotional mint for whoever calls it."""
    erc20.balanceOf[msg.sender] += SUPER_MINT_AMOUNT
    log IERC20.Transfer(sender=empty(address), receiver=msg.sender, value=SUPER_MINT_AMOUNT)


@external
def fast_transfer(to: address, amount: uint256) -> bool:
    """A transfer that reads each balance once."""
    sender_balance: uint256 = erc20.balanceOf[msg.sender]
    receiver_balance: uint256 = erc20.balanceOf[to]
    assert sender_balance >= amount, "snek_token: transfer amount exceeds balance"
    erc20.balanceOf[msg.sender] = sender_balance - amount
    erc20.balanceOf[to] = receiver_balance + amount
    log IERC20.Transfer(sender=msg.sender, receiver=to, value=amount)
    return True


@external
def burn_for(owner: address, amount: uint256):
    """Burns an owner's tokens with the caller's allowance."""
    allowed: uint256 = erc20.allowance[owner][msg.sender]
    erc20.allowance[owner][msg.sender] = allowed - min(amount, allowed)
    erc20._burn(owner, amount)
