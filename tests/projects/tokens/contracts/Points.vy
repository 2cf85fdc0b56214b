# pragma version ~=0.4.3
# Another Transfer(address,address,uint256) with the indexing of Coin but other field names,
# and logs of any shape, for logs no single ABI explains.

event Transfer:
    owner: indexed(address)
    to: indexed(address)
    amount: uint256


@external
def emit_transfer(to: address, amount: uint256):
    log Transfer(owner=msg.sender, to=to, amount=amount)


@external
def emit_raw(topics: DynArray[bytes32, 4], data: Bytes[96]):
    if len(topics) == 0:
        raw_log([], data)
    elif len(topics) == 1:
        raw_log([topics[0]], data)
    elif len(topics) == 2:
        raw_log([topics[0], topics[1]], data)
    elif len(topics) == 3:
        raw_log([topics[0], topics[1], topics[2]], data)
    else:
        raw_log([topics[0], topics[1], topics[2], topics[3]], data)
