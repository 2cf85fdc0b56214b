# pragma version 0.4.1
"""
@title mock_v3_aggregator
@notice A Chainlink-style price feed whose answer a test sets.
"""

decimals: public(uint8)
latestAnswer: public(int256)
latestTimestamp: public(uint256)
latestRound: public(uint80)


@deploy
def __init__(_decimals: uint8, _initial_answer: int256):
    self.decimals = _decimals
    self._update_answer(_initial_answer)


@external
def updateAnswer(_answer: int256):
    self._update_answer(_answer)


@internal
def _update_answer(_answer: int256):
    self.latestAnswer = _answer
    self.latestTimestamp = block.timestamp
    self.latestRound += 1


@external
@view
def latestRoundData() -> (uint80, int256, uint256, uint256, uint80):
    return (self.latestRound, self.latestAnswer, self.latestTimestamp, self.latestTimestamp, self.latestRound)
