# @version 0.3.7
# The interface a strategy offers the vault (a 0.3 interface file: functions without bodies).

@view
@external
def asset() -> address:
    pass

@external
def withdraw(amount: uint256, receiver: address):
    pass
