count: uint256


@internal
def _add(amount: uint256):
    self.count += amount
