# pragma version ~=0.4.0
"""
@title An actor evmstate deploys for a machine that asks for it
@notice A contract account. evmstate sends transactions from its address as it does from a
        funded account's, and the answers it gives when it is paid ether or sent a token are
        set, one per kind of callback, when it is deployed: accept, refuse (revert), or
        re-enter (call back once, then accept). It re-enters the operator that moved a token
        when the actor has sent it a call (a vault paying out), else the contract that called
        it, with a call the actor sent to that contract: evmstate writes each transaction the
        actor sends into its storage first, and which call to re-enter with (the last one, or
        for the kind that re-enters another function, the last call of another function, its
        own or else another account's).
"""

ACCEPT: constant(uint8) = 0
REFUSE: constant(uint8) = 1
REENTER: constant(uint8) = 2

# the re-entry call is at most this long: a longer call is not repeated
MAX_CALL: constant(uint256) = 2048
# a callback paid with a stipend (send(), 2300 gas) cannot call back: it accepts
REENTRY_GAS: constant(uint256) = 40000

ON_ETHER: public(immutable(uint8))
ON_ERC721: public(immutable(uint8))
ON_ERC1155: public(immutable(uint8))
ON_ERC777: public(immutable(uint8))

# the call the actor re-enters each contract with: its value and calldata
reentry_value: public(HashMap[address, uint256])
reentry_data: public(HashMap[address, Bytes[MAX_CALL]])
# set while the actor calls back: a callback inside its own re-entry accepts
reentering: public(bool)
# the last call the actor sent to each contract (evmstate's record, from which it picks another
# function's call for the re-entry)
sent_value: public(HashMap[address, uint256])
sent_data: public(HashMap[address, Bytes[MAX_CALL]])
# the last call any other account sent to each contract, and the last before it of another function
# (evmstate's record too: the other function's call, where the actor sent none)
heard_value: public(HashMap[address, uint256])
heard_data: public(HashMap[address, Bytes[MAX_CALL]])
heard_other_value: public(HashMap[address, uint256])
heard_other_data: public(HashMap[address, Bytes[MAX_CALL]])


event Reentered:
    target: indexed(address)
    selector: bytes4
    success: bool


@deploy
def __init__(on_ether: uint8, on_erc721: uint8, on_erc1155: uint8, on_erc777: uint8):
    ON_ETHER = on_ether
    ON_ERC721 = on_erc721
    ON_ERC1155 = on_erc1155
    ON_ERC777 = on_erc777


@internal
def _answer(how: uint8, refusal: String[64], operator: address):
    if how == REFUSE:
        raise refusal
    if how == REENTER and msg.gas >= REENTRY_GAS:
        self._reenter(operator)


@internal
def _reenter(operator: address):
    if self.reentering:
        return
    # the operator that moved a token (a vault paying out), else the contract that called: the
    # first of them the actor has sent a call to
    target: address = msg.sender
    if operator != self and operator != msg.sender and len(self.reentry_data[operator]) > 0:
        target = operator
    if len(self.reentry_data[target]) == 0:
        return
    self.reentering = True
    value: uint256 = self.reentry_value[target]
    if value > self.balance:
        value = 0
    data: Bytes[MAX_CALL] = self.reentry_data[target]
    success: bool = raw_call(target, data, value=value, max_outsize=0, revert_on_failure=False)
    self.reentering = False
    selector: bytes4 = empty(bytes4)
    if len(data) >= 4:
        selector = convert(slice(data, 0, 4), bytes4)
    log Reentered(target=target, selector=selector, success=success)


@external
@payable
def __default__():
    if msg.value > 0:
        self._answer(ON_ETHER, "actor refuses ether", empty(address))


@external
def onERC721Received(operator: address, sender: address, token_id: uint256, data: Bytes[16384]) -> bytes4:
    self._answer(ON_ERC721, "actor refuses ERC-721 tokens", operator)
    return 0x150b7a02


@external
def onERC1155Received(operator: address, sender: address, id: uint256, amount: uint256, data: Bytes[16384]) -> bytes4:
    self._answer(ON_ERC1155, "actor refuses ERC-1155 tokens", operator)
    return 0xf23a6e61


@external
def onERC1155BatchReceived(operator: address, sender: address, ids: DynArray[uint256, 1024], amounts: DynArray[uint256, 1024], data: Bytes[16384]) -> bytes4:
    self._answer(ON_ERC1155, "actor refuses ERC-1155 tokens", operator)
    return 0xbc197c81


@external
def tokensReceived(operator: address, sender: address, to: address, amount: uint256, user_data: Bytes[16384], operator_data: Bytes[16384]):
    self._answer(ON_ERC777, "actor refuses ERC-777 tokens", operator)


@external
@view
def supportsInterface(interface_id: bytes4) -> bool:
    # ERC-165 itself, and the ERC-1155 receiver's interface
    return interface_id in [0x01ffc9a7, 0x4e2312e0]
