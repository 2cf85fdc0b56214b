# pragma version 0.4.1
"""
@title oracle_lib
@notice Reads a Chainlink-style price feed and refuses a stale answer.
"""
from src.interfaces import AggregatorV3Interface

TIMEOUT: constant(uint256) = 72 * 3600


@internal
@view
def _stale_check_latest_round_data(price_feed_address: address) -> (uint80, int256, uint256, uint256, uint80):
    price_feed: AggregatorV3Interface = AggregatorV3Interface(price_feed_address)
    round_id: uint80 = 0
    price: int256 = 0
    started_at: uint256 = 0
    updated_at: uint256 = 0
    answered_in_round: uint80 = 0
    (round_id, price, started_at, updated_at, answered_in_round) = staticcall price_feed.latestRoundData()
    assert updated_at != 0, "oracle_lib: stale price"
    assert answered_in_round >= round_id, "oracle_lib: stale price"
    assert block.timestamp - updated_at <= TIMEOUT, "oracle_lib: stale price"
    return (round_id, price, started_at, updated_at, answered_in_round)
