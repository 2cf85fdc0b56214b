# pragma version ~=0.4.3
# An ERC721-style token: the same Transfer signature, with all three fields indexed.

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    token_id: indexed(uint256)

ownerOf: public(HashMap[uint256, address])


@external
def mint(receiver: address, token_id: uint256):
    assert self.ownerOf[token_id] == empty(address), "minted"
    self.ownerOf[token_id] = receiver
    log Transfer(sender=empty(address), receiver=receiver, token_id=token_id)


@external
def transferFrom(sender: address, receiver: address, token_id: uint256):
    assert self.ownerOf[token_id] == sender, "not owner"
    self.ownerOf[token_id] = receiver
    log Transfer(sender=sender, receiver=receiver, token_id=token_id)
