# pragma version ~=0.4.3
"""
@title An accountant: a management fee, a performance fee and refunds
@notice VaultV3 calls report(strategy, gain, loss) at each report and charges the fees it returns
        (as shares) and pulls the refunds it returns (the asset, up to what this holds and allows):
        the management fee is basis points a year of the strategy's debt since its last report, the
        performance fee basis points of the gain, the refund basis points of the loss.
"""

interface IAsset:
    def approve(spender: address, amount: uint256) -> bool: nonpayable


struct StrategyParams:
    activation: uint256
    last_report: uint256
    current_debt: uint256
    max_debt: uint256


interface IVault:
    def strategies(strategy: address) -> StrategyParams: view


MAX_BPS: constant(uint256) = 10_000
YEAR: constant(uint256) = 31_556_952

vault: public(address)
management_fee: public(uint256)
performance_fee: public(uint256)
refund_ratio: public(uint256)


@deploy
def __init__(asset: address, vault: address):
    self.vault = vault
    extcall IAsset(asset).approve(vault, max_value(uint256))


@external
def set_fees(management_fee: uint256, performance_fee: uint256, refund_ratio: uint256):
    assert management_fee <= MAX_BPS and performance_fee <= MAX_BPS and refund_ratio <= MAX_BPS, "accountant: more than 100%"
    self.management_fee = management_fee
    self.performance_fee = performance_fee
    self.refund_ratio = refund_ratio


@external
def report(strategy: address, gain: uint256, loss: uint256) -> (uint256, uint256):
    assert msg.sender == self.vault, "accountant: not the vault"
    params: StrategyParams = staticcall IVault(msg.sender).strategies(strategy)
    management: uint256 = params.current_debt * (block.timestamp - params.last_report) * self.management_fee // MAX_BPS // YEAR
    return (management + gain * self.performance_fee // MAX_BPS, loss * self.refund_ratio // MAX_BPS)
