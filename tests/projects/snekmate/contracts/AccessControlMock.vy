# pragma version ~=0.4.3
# Role-based access control from snekmate's access_control module.
from snekmate.auth import access_control as ac
initializes: ac

exports: ac.__interface__


@deploy
@payable
def __init__():
    ac.__init__()
