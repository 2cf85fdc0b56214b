"""The vault under ERC4626Properties alone: no property of the machine's own."""

from evmstate.properties import ERC4626Adapter, ERC4626Properties

CAP = 2 * 10**24  # two of the four actors' million tokens


class VaultMachine(ERC4626Properties):
    def __init__(cls, accounts, Asset, Vault):
        asset = Asset.deploy({"from": accounts[0]})
        vault = Vault.deploy(asset, CAP, {"from": accounts[0]})
        cls.erc4626 = ERC4626Adapter(vault, accounts, asset=asset)
