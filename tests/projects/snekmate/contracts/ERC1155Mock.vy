# pragma version ~=0.4.3
# An ERC1155 multi-token built from snekmate's erc1155 and ownable modules.
from snekmate.auth import ownable as ow
initializes: ow

from snekmate.tokens import erc1155
initializes: erc1155[ownable := ow]

exports: erc1155.__interface__


@deploy
@payable
def __init__(base_uri_: String[80]):
    ow.__init__()
    erc1155.__init__(base_uri_)
