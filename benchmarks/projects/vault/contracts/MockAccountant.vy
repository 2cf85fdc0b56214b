# pragma version ~=0.4.3
"""
@title An accountant with a management fee, a performance fee and a refund knob
@notice The vault asks it, at each report, what fees to charge and what to refund: a management
        fee on the strategy's debt for the time since its last report (basis points a year), a
        performance fee on the gain (basis points of it), and a refund of part of a loss (basis
        points of it), paid from the asset it holds (the vault takes no more than it holds).
"""

from ethereum.ercs import IERC20


struct StrategyParams:
    activation: uint256
    last_report: uint256
    current_debt: uint256
    max_debt: uint256


interface IVault:
    def strategies(strategy: address) -> StrategyParams: view


MAX_BPS: constant(uint256) = 10_000
SECONDS_PER_YEAR: constant(uint256) = 31_556_952

owner: public(address)
vault: public(address)
management_fee: public(uint256)
performance_fee: public(uint256)
refund_ratio: public(uint256)


@deploy
def __init__(asset_: IERC20, vault_: address):
    self.owner = msg.sender
    self.vault = vault_
    assert extcall asset_.approve(vault_, max_value(uint256), default_return_value=True), "accountant: approve failed"


@external
def set_fees(management_fee: uint256, performance_fee: uint256, refund_ratio: uint256):
    assert msg.sender == self.owner, "accountant: not the owner"
    assert management_fee <= MAX_BPS and performance_fee <= MAX_BPS and refund_ratio <= MAX_BPS, "accountant: more than 100%"
    self.management_fee = management_fee
    self.performance_fee = performance_fee
    self.refund_ratio = refund_ratio


@external
def report(strategy: address, gain: uint256, loss: uint256) -> (uint256, uint256):
    assert msg.sender == self.vault, "accountant: not the vault"
    params: StrategyParams = staticcall IVault(msg.sender).strategies(strategy)
    duration: uint256 = block.timestamp - params.last_report
    management: uint256 = params.current_debt * duration * self.management_fee // MAX_BPS // SECONDS_PER_YEAR
    performance: uint256 = gain * self.performance_fee // MAX_BPS
    refunds: uint256 = loss * self.refund_ratio // MAX_BPS
    return (management + performance, refunds)
