"""Property packs: the ERC standards' properties as mixins a machine inherits; a first machine written from a contract.

    from evmstate.properties import ERC20Adapter, ERC20Properties

    class TokenMachine(ERC20Properties):
        def __init__(cls, accounts, Token):
            cls.erc20 = ERC20Adapter(Token.deploy(..., {"from": accounts[0]}), accounts)

Each property is a rule or an invariant named for what it checks, whose docstring quotes the EIP
sentence it enforces (docs/properties.md lists them); `rule_erc20_<name> = None` in the class
body switches one off. exercised() is the canary the packs plant: a machine's own rules may
call it too. May import: the engine and every layer below it; never scale, runner or the CLI.
"""

from .base import exercised
from .erc20 import ERC20Properties
from .erc20_transfers import ERC20Adapter
from .erc721 import ERC721Properties
from .erc721_transfers import ERC721Adapter
from .erc2612 import ERC2612Adapter, ERC2612Properties
from .erc4626 import ERC4626Adapter, ERC4626Properties

__all__ = [
    "ERC20Adapter",
    "ERC20Properties",
    "ERC721Adapter",
    "ERC721Properties",
    "ERC2612Adapter",
    "ERC2612Properties",
    "ERC4626Adapter",
    "ERC4626Properties",
    "exercised",
]
