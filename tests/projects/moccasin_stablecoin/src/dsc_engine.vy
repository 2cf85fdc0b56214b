# pragma version 0.4.1
"""
@title dsc_engine
@notice Mints the stablecoin against exogenous collateral (two tokens), valued by price feeds.
    A user may mint up to half the value of what they deposited; below that, anyone may
    liquidate them for a bonus.
"""
from ethereum.ercs import IERC20
from src.interfaces import AggregatorV3Interface
from src.interfaces import i_decentralized_stable_coin
from src import oracle_lib

LIQUIDATION_THRESHOLD: public(constant(uint256)) = 50
LIQUIDATION_BONUS: public(constant(uint256)) = 10
LIQUIDATION_PRECISION: public(constant(uint256)) = 100
MIN_HEALTH_FACTOR: public(constant(uint256)) = 10**18
PRECISION: public(constant(uint256)) = 10**18
ADDITIONAL_FEED_PRECISION: public(constant(uint256)) = 10**10

DSC: public(immutable(i_decentralized_stable_coin))
COLLATERAL_TOKENS: public(immutable(address[2]))

token_address_to_price_feed: public(HashMap[address, address])
user_to_token_address_to_amount_deposited: public(HashMap[address, HashMap[address, uint256]])
user_to_dsc_minted: public(HashMap[address, uint256])


event CollateralDeposited:
    user: indexed(address)
    token: indexed(address)
    amount: uint256


event CollateralRedeemed:
    token: indexed(address)
    amount: uint256
    _from: address
    _to: address


@deploy
def __init__(token_addresses: address[2], price_feed_addresses: address[2], dsc_address: address):
    DSC = i_decentralized_stable_coin(dsc_address)
    COLLATERAL_TOKENS = token_addresses
    self.token_address_to_price_feed[token_addresses[0]] = price_feed_addresses[0]
    self.token_address_to_price_feed[token_addresses[1]] = price_feed_addresses[1]


@external
def deposit_collateral(token_collateral_address: address, amount_collateral: uint256):
    self._deposit_collateral(token_collateral_address, amount_collateral)


@external
def deposit_collateral_and_mint_dsc(token_collateral_address: address, amount_collateral: uint256, amount_dsc_to_mint: uint256):
    self._deposit_collateral(token_collateral_address, amount_collateral)
    self._mint_dsc(amount_dsc_to_mint)


@external
def mint_dsc(amount_dsc_to_mint: uint256):
    self._mint_dsc(amount_dsc_to_mint)


@external
def redeem_collateral(token_collateral_address: address, amount_collateral: uint256):
    self._redeem_collateral(token_collateral_address, amount_collateral, msg.sender, msg.sender)
    self._revert_if_health_factor_is_broken(msg.sender)


@external
def burn_dsc(amount_dsc_to_burn: uint256):
    self._burn_dsc(amount_dsc_to_burn, msg.sender, msg.sender)
    self._revert_if_health_factor_is_broken(msg.sender)


@external
def liquidate(collateral: address, user: address, debt_to_cover: uint256):
    assert debt_to_cover > 0, "DSCEngine__NeedsMoreThanZero"
    starting_health_factor: uint256 = self._health_factor(user)
    assert starting_health_factor < MIN_HEALTH_FACTOR, "DSCEngine__HealthFactorOk"
    token_amount: uint256 = self._get_token_amount_from_usd(collateral, debt_to_cover)
    bonus: uint256 = token_amount * LIQUIDATION_BONUS // LIQUIDATION_PRECISION
    self._redeem_collateral(collateral, token_amount + bonus, user, msg.sender)
    self._burn_dsc(debt_to_cover, user, msg.sender)
    assert self._health_factor(user) > starting_health_factor, "DSCEngine__HealthFactorNotImproved"
    self._revert_if_health_factor_is_broken(msg.sender)


@external
@view
def health_factor(user: address) -> uint256:
    return self._health_factor(user)


@external
@view
def get_usd_value(token: address, amount: uint256) -> uint256:
    return self._get_usd_value(token, amount)


@external
@view
def get_token_amount_from_usd(token: address, usd_amount_in_wei: uint256) -> uint256:
    return self._get_token_amount_from_usd(token, usd_amount_in_wei)


@external
@view
def get_collateral_balance_of_user(user: address, token: address) -> uint256:
    return self.user_to_token_address_to_amount_deposited[user][token]


@external
@view
def get_account_information(user: address) -> (uint256, uint256):
    return self.user_to_dsc_minted[user], self._get_account_collateral_value(user)


@internal
def _deposit_collateral(token_collateral_address: address, amount_collateral: uint256):
    assert amount_collateral > 0, "DSCEngine__NeedsMoreThanZero"
    assert self.token_address_to_price_feed[token_collateral_address] != empty(address), "DSCEngine__TokenNotAllowed"
    self.user_to_token_address_to_amount_deposited[msg.sender][token_collateral_address] += amount_collateral
    log CollateralDeposited(user=msg.sender, token=token_collateral_address, amount=amount_collateral)
    success: bool = extcall IERC20(token_collateral_address).transferFrom(msg.sender, self, amount_collateral)
    assert success, "DSCEngine__TransferFailed"


@internal
def _mint_dsc(amount_dsc_to_mint: uint256):
    assert amount_dsc_to_mint > 0, "DSCEngine__NeedsMoreThanZero"
    self.user_to_dsc_minted[msg.sender] += amount_dsc_to_mint
    self._revert_if_health_factor_is_broken(msg.sender)
    extcall DSC.mint(msg.sender, amount_dsc_to_mint)


@internal
def _redeem_collateral(token_collateral_address: address, amount_collateral: uint256, _from: address, _to: address):
    self.user_to_token_address_to_amount_deposited[_from][token_collateral_address] -= amount_collateral
    log CollateralRedeemed(token=token_collateral_address, amount=amount_collateral, _from=_from, _to=_to)
    success: bool = extcall IERC20(token_collateral_address).transfer(_to, amount_collateral)
    assert success, "DSCEngine__TransferFailed"


@internal
def _burn_dsc(amount_dsc_to_burn: uint256, on_behalf_of: address, dsc_from: address):
    self.user_to_dsc_minted[on_behalf_of] -= amount_dsc_to_burn
    extcall DSC.burn_from(dsc_from, amount_dsc_to_burn)


@internal
@view
def _revert_if_health_factor_is_broken(user: address):
    assert self._health_factor(user) >= MIN_HEALTH_FACTOR, "DSCEngine__BreaksHealthFactor"


@internal
@view
def _health_factor(user: address) -> uint256:
    minted: uint256 = self.user_to_dsc_minted[user]
    if minted == 0:
        return max_value(uint256)
    collateral_value: uint256 = self._get_account_collateral_value(user)
    adjusted: uint256 = collateral_value * LIQUIDATION_THRESHOLD // LIQUIDATION_PRECISION
    return adjusted * PRECISION // minted


@internal
@view
def _get_account_collateral_value(user: address) -> uint256:
    total: uint256 = 0
    for token: address in COLLATERAL_TOKENS:
        total += self._get_usd_value(token, self.user_to_token_address_to_amount_deposited[user][token])
    return total


@internal
@view
def _price(token: address) -> uint256:
    round_id: uint80 = 0
    price: int256 = 0
    started_at: uint256 = 0
    updated_at: uint256 = 0
    answered_in_round: uint80 = 0
    (round_id, price, started_at, updated_at, answered_in_round) = oracle_lib._stale_check_latest_round_data(
        self.token_address_to_price_feed[token]
    )
    return convert(price, uint256)


@internal
@view
def _get_usd_value(token: address, amount: uint256) -> uint256:
    return self._price(token) * ADDITIONAL_FEED_PRECISION * amount // PRECISION


@internal
@view
def _get_token_amount_from_usd(token: address, usd_amount_in_wei: uint256) -> uint256:
    return usd_amount_in_wei * PRECISION // (self._price(token) * ADDITIONAL_FEED_PRECISION)
