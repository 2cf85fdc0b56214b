"""snekmate's ERC20, ERC721 and ERC4626 under the property packs alone: no property of the machines' own."""

from evmstate.properties import (
    ERC20Adapter,
    ERC20Properties,
    ERC721Adapter,
    ERC721Properties,
    ERC2612Adapter,
    ERC2612Properties,
    ERC4626Adapter,
    ERC4626Properties,
)


class ERC20PackMachine(ERC20Properties, ERC2612Properties):
    def __init__(cls, accounts, ERC20Mock):
        token = ERC20Mock.deploy("Token", "TKN", "1000 ether", "Token", "1", {"from": accounts[0]})
        cls.erc20 = ERC20Adapter(token, accounts, minter=accounts[0])
        cls.erc2612 = ERC2612Adapter(token, accounts)


class ERC721PackMachine(ERC721Properties):
    def __init__(cls, accounts, ERC721Mock):
        nft = ERC721Mock.deploy("Token", "TKN", "https://x.test/", "Token", "1", {"from": accounts[0]})
        cls.erc721 = ERC721Adapter(nft, accounts, mint=lambda to: nft.safe_mint(to, "", {"from": accounts[0]}))


class ERC4626PackMachine(ERC4626Properties):
    def __init__(cls, accounts, ERC20Mock, ERC4626Mock):
        asset = ERC20Mock.deploy("Asset", "AST", 0, "Asset", "1", {"from": accounts[0]})
        vault = ERC4626Mock.deploy("Vault", "VLT", asset, 0, "Vault", "1", {"from": accounts[0]})
        cls.erc4626 = ERC4626Adapter(vault, accounts, asset=asset)
