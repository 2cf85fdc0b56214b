# pragma version ~=0.4.0
"""
@title A drop of one token per address, by claim or by referral
@notice claim() holds the reentrancy lock and books the claim after the mint, whose receiver hook
        a contract gets; claim_with_referral() books first and takes no lock. A receiver that
        calls claim_with_referral() from the hook of its claim() gets a second token: the lock
        guards claim() alone, and the claim is not booked yet (cross-function reentrancy into a
        second way in).
"""

interface ERC721Receiver:
    def onERC721Received(operator: address, sender: address, token_id: uint256, data: Bytes[1024]) -> bytes4: nonpayable

owner_of: public(HashMap[uint256, address])
balance_of: public(HashMap[address, uint256])
claimed: public(HashMap[address, bool])
referrals: public(HashMap[address, uint256])
minted: public(uint256)


@internal
def _mint(to: address):
    token: uint256 = self.minted
    self.minted = token + 1
    self.owner_of[token] = to
    self.balance_of[to] += 1
    if to.is_contract:
        answer: bytes4 = extcall ERC721Receiver(to).onERC721Received(msg.sender, empty(address), token, b"")
        assert answer == 0x150b7a02, "not a receiver"


@external
@nonreentrant
def claim():
    assert not self.claimed[msg.sender], "claimed"
    self._mint(msg.sender)
    self.claimed[msg.sender] = True


@external
def claim_with_referral(referrer: address):
    assert not self.claimed[msg.sender], "claimed"
    assert referrer != msg.sender, "self referral"
    self.claimed[msg.sender] = True
    self.referrals[referrer] += 1
    self._mint(msg.sender)
