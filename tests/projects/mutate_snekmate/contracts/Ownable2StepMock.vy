# pragma version ~=0.4.3
# Two-step ownership from snekmate's ownable_2step module.
from snekmate.auth import ownable as ow
initializes: ow

from snekmate.auth import ownable_2step as o2
initializes: o2[ownable := ow]

exports: o2.__interface__


@deploy
@payable
def __init__():
    ow.__init__()
    o2.__init__()
