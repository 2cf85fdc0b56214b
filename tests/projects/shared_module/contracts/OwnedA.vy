# OwnedA and OwnedB have the same source, so the same code: only the deployment tells them apart
from snekmate.auth import ownable

initializes: ownable
exports: ownable.__interface__


@deploy
def __init__():
    ownable.__init__()
