# @version 0.3.10
"""A two-coin constant-sum pool in the shape of Curve's stableswap pools: coins moved with raw_call, a nonreentrant lock, LP shares in a HashMap.

Planted bug: remove_liquidity burns the shares before it prices them, so it divides by the supply left.
"""

from vyper.interfaces import ERC20
import interfaces.IERC20Meta as IERC20Meta

interface Coin:
    def transferFrom(sender: address, receiver: address, amount: uint256) -> bool: nonpayable

struct Position:
    deposited: uint256
    last_deposit: uint256

event TokenExchange:
    buyer: indexed(address)
    sold_id: int128
    tokens_sold: uint256
    bought_id: int128
    tokens_bought: uint256

event AddLiquidity:
    provider: indexed(address)
    token_amounts: uint256[N_COINS]
    token_supply: uint256

event RemoveLiquidity:
    provider: indexed(address)
    token_amounts: uint256[N_COINS]
    token_supply: uint256

N_COINS: constant(uint256) = 2
FEE_DENOMINATOR: constant(uint256) = 10 ** 10
MAX_FEE: constant(uint256) = 5 * 10 ** 9

coins: public(address[N_COINS])
balances: public(uint256[N_COINS])
fee: public(uint256)
admin: public(address)
balanceOf: public(HashMap[address, uint256])
totalSupply: public(uint256)
positions: public(HashMap[address, Position])


@external
def __init__(_coins: address[N_COINS], _fee: uint256):
    assert _fee <= MAX_FEE, "fee too high"
    for coin in _coins:
        assert coin != empty(address), "zero coin"
        assert IERC20Meta(coin).decimals() == 18, "18 decimals only"
    self.coins = _coins
    self.fee = _fee
    self.admin = msg.sender


@internal
def _transfer_in(i: int128, amount: uint256, sender: address):
    assert Coin(self.coins[i]).transferFrom(sender, self, amount, default_return_value=True), "transferFrom failed"


@internal
def _transfer_out(i: int128, amount: uint256, receiver: address):
    response: Bytes[32] = raw_call(
        self.coins[i],
        concat(method_id("transfer(address,uint256)"), convert(receiver, bytes32), convert(amount, bytes32)),
        max_outsize=32,
    )
    if len(response) > 0:
        assert convert(response, bool), "transfer failed"


@external
@nonreentrant("lock")
def add_liquidity(amounts: uint256[N_COINS], min_mint_amount: uint256) -> uint256:
    mint_amount: uint256 = 0
    for i in range(N_COINS):
        if amounts[i] > 0:
            self._transfer_in(convert(i, int128), amounts[i], msg.sender)
            self.balances[i] += amounts[i]
            mint_amount += amounts[i]
    assert mint_amount >= min_mint_amount, "Slippage screwed you"
    assert mint_amount > 0, "nothing to add"
    self.balanceOf[msg.sender] += mint_amount
    self.totalSupply += mint_amount
    self.positions[msg.sender] = Position({deposited: self.positions[msg.sender].deposited + mint_amount, last_deposit: block.timestamp})
    log AddLiquidity(msg.sender, amounts, self.totalSupply)
    return mint_amount


@view
@external
def get_dy(i: int128, j: int128, dx: uint256) -> uint256:
    return dx - dx * self.fee / FEE_DENOMINATOR


@external
@nonreentrant("lock")
def exchange(i: int128, j: int128, dx: uint256, min_dy: uint256) -> uint256:
    assert i != j, "same coin"
    dy: uint256 = dx - dx * self.fee / FEE_DENOMINATOR
    assert dy >= min_dy, "Exchange resulted in fewer coins than expected"
    self._transfer_in(i, dx, msg.sender)
    self.balances[i] += dx
    self.balances[j] -= dy
    self._transfer_out(j, dy, msg.sender)
    log TokenExchange(msg.sender, i, dx, j, dy)
    return dy


@external
@nonreentrant("lock")
def remove_liquidity(burn_amount: uint256, min_amounts: uint256[N_COINS]) -> uint256[N_COINS]:
    self.balanceOf[msg.sender] -= burn_amount
    self.totalSupply -= burn_amount
    amounts: uint256[N_COINS] = empty(uint256[N_COINS])
    for i in range(N_COINS):
        value: uint256 = self.balances[i] * burn_amount / self.totalSupply
        assert value >= min_amounts[i], "Withdrawal resulted in fewer coins than expected"
        self.balances[i] -= value
        amounts[i] = value
        self._transfer_out(convert(i, int128), value, msg.sender)
    log RemoveLiquidity(msg.sender, amounts, self.totalSupply)
    return amounts
