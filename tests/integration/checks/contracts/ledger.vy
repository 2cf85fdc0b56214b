# pragma version ~=0.4.3
# A library module: its checks are reported at its own lines.

held: uint256


@internal
def take(_x: uint256):
    self.held -= _x  # dev: not enough in the ledger
