from snekmate.auth import ownable
from lib import tally

initializes: ownable
initializes: tally
exports: (ownable.owner, ownable.transfer_ownership)


@deploy
def __init__():
    ownable.__init__()


@external
def bump():
    ownable._check_owner()
    tally._add(1)


@external
@view
def total() -> uint256:
    return tally.count
