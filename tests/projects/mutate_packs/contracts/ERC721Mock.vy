# pragma version ~=0.4.3
# An ERC721 token built from snekmate's erc721 and ownable modules.
from snekmate.auth import ownable as ow
initializes: ow

from snekmate.tokens import erc721
initializes: erc721[ownable := ow]

exports: erc721.__interface__


@deploy
@payable
def __init__(name_: String[25], symbol_: String[5], base_uri_: String[80], name_eip712_: String[50], version_eip712_: String[20]):
    ow.__init__()
    erc721.__init__(name_, symbol_, base_uri_, name_eip712_, version_eip712_)
