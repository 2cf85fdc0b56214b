# pragma version ~=0.4.3
"""
@title A vault factory: it deploys and initializes a VaultV3, and answers its protocol_fee_config()
@notice As Yearn's VaultFactory: a new vault is a minimal proxy of the original VaultV3 (whose own
        constructor leaves it uninitializable), initialized here. The vault takes the address that
        called initialize() as its factory, and asks it at each report with fees for the protocol's
        cut (basis points of the fees) and who receives it.
"""

interface IVault:
    def initialize(asset: address, name: String[64], symbol: String[32], role_manager: address, profit_max_unlock_time: uint256): nonpayable


event NewVault:
    vault: address


protocol_fee_bps: public(uint16)
protocol_fee_recipient: public(address)


@deploy
def __init__(protocol_fee_bps: uint16, protocol_fee_recipient: address):
    self.protocol_fee_bps = protocol_fee_bps
    self.protocol_fee_recipient = protocol_fee_recipient


@external
def deploy_new_vault(original: address, asset: address, role_manager: address, profit_max_unlock_time: uint256) -> address:
    vault: address = create_minimal_proxy_to(original)
    extcall IVault(vault).initialize(asset, "Yearn Vault", "yvAST", role_manager, profit_max_unlock_time)
    log NewVault(vault=vault)
    return vault


@view
@external
def protocol_fee_config() -> (uint16, address):
    return (self.protocol_fee_bps, self.protocol_fee_recipient)
