# pragma version ~=0.4.3
# A timelock controller from snekmate's governance module.
from snekmate.auth import access_control as ac
initializes: ac

from snekmate.governance import timelock_controller as tc
initializes: tc[access_control := ac]

exports: tc.__interface__


@deploy
@payable
def __init__(minimum_delay_: uint256, proposers_: DynArray[address, 255], executors_: DynArray[address, 255], admin_: address):
    ac.__init__()
    tc.__init__(minimum_delay_, proposers_, executors_, admin_)
