# pragma version ~=0.4.0
"""
@title A constant-product pool of two tokens
@notice Liquidity providers add both tokens and get shares: the first provider
        sqrt(amount0 * amount1) less MINIMUM_LIQUIDITY, locked for good, later ones the
        smaller of their two amounts' shares of the reserves. Traders swap one token for the
        other at the price the reserves set, less a 0.3% fee that stays in the pool
        (Uniswap V2's rules, without flash swaps or the price oracle).
"""

from ethereum.ercs import IERC20

event Mint:
    provider: indexed(address)
    amount0: uint256
    amount1: uint256
    shares: uint256

event Burn:
    provider: indexed(address)
    amount0: uint256
    amount1: uint256
    shares: uint256

event Swap:
    trader: indexed(address)
    amount_in: uint256
    amount_out: uint256
    zero_for_one: bool

MINIMUM_LIQUIDITY: public(constant(uint256)) = 1000
FEE_DENOMINATOR: constant(uint256) = 1000
FEE_KEPT: constant(uint256) = 997

token0: public(IERC20)
token1: public(IERC20)
reserve0: public(uint256)
reserve1: public(uint256)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])


@deploy
def __init__(token0: IERC20, token1: IERC20):
    self.token0 = token0
    self.token1 = token1


@external
def add_liquidity(amount0: uint256, amount1: uint256) -> uint256:
    supply: uint256 = self.totalSupply
    shares: uint256 = 0
    if supply == 0:
        root: uint256 = isqrt(amount0 * amount1)
        assert root > MINIMUM_LIQUIDITY, "insufficient liquidity minted"
        shares = root - MINIMUM_LIQUIDITY
        self.balanceOf[empty(address)] = MINIMUM_LIQUIDITY
        supply = MINIMUM_LIQUIDITY
    else:
        shares = min(amount0 * supply // self.reserve0, amount1 * supply // self.reserve1)
        assert shares > 0, "insufficient liquidity minted"
    assert extcall self.token0.transferFrom(msg.sender, self, amount0)
    assert extcall self.token1.transferFrom(msg.sender, self, amount1)
    self.balanceOf[msg.sender] += shares
    self.totalSupply = supply + shares
    self.reserve0 += amount0
    self.reserve1 += amount1
    log Mint(provider=msg.sender, amount0=amount0, amount1=amount1, shares=shares)
    return shares


@external
def remove_liquidity(shares: uint256) -> (uint256, uint256):
    assert self.balanceOf[msg.sender] >= shares, "insufficient shares"
    supply: uint256 = self.totalSupply
    amount0: uint256 = shares * self.reserve0 // supply
    amount1: uint256 = shares * self.reserve1 // supply
    assert amount0 > 0 and amount1 > 0, "insufficient liquidity burned"
    self.balanceOf[msg.sender] -= shares
    self.totalSupply = supply - shares
    self.reserve0 -= amount0
    self.reserve1 -= amount1
    assert extcall self.token0.transfer(msg.sender, amount0)
    assert extcall self.token1.transfer(msg.sender, amount1)
    log Burn(provider=msg.sender, amount0=amount0, amount1=amount1, shares=shares)
    return amount0, amount1


@external
def swap(amount_in: uint256, zero_for_one: bool) -> uint256:
    reserve_in: uint256 = self.reserve0
    reserve_out: uint256 = self.reserve1
    token_in: IERC20 = self.token0
    token_out: IERC20 = self.token1
    if not zero_for_one:
        reserve_in = self.reserve1
        reserve_out = self.reserve0
        token_in = self.token1
        token_out = self.token0
    with_fee: uint256 = amount_in * FEE_KEPT
    amount_out: uint256 = with_fee * reserve_out // (reserve_in * FEE_DENOMINATOR + with_fee)
    assert amount_out > 0, "insufficient output"
    assert extcall token_in.transferFrom(msg.sender, self, amount_in)
    assert extcall token_out.transfer(msg.sender, amount_out)
    if zero_for_one:
        self.reserve0 += amount_in
        self.reserve1 -= amount_out
    else:
        self.reserve1 += amount_in
        self.reserve0 -= amount_out
    log Swap(trader=msg.sender, amount_in=amount_in, amount_out=amount_out, zero_for_one=zero_for_one)
    return amount_out
