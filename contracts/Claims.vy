# pragma version ~=0.4.3
# Each account registers for a claim code that the contract derives and keeps to itself; the
# code, passed back, pays the claim once. Planted bug: a paid claim keeps its code.

claim_code: HashMap[address, uint256]
claimed: public(uint256)


@external
def register():
    assert self.claim_code[msg.sender] == 0, "already registered"
    self.claim_code[msg.sender] = convert(keccak256(concat(convert(msg.sender, bytes20), b"claim")), uint256)


@external
def claim(_code: uint256):
    assert _code != 0 and _code == self.claim_code[msg.sender], "wrong code"
    self.claimed += 1
    # the bug: the code should be spent here, self.claim_code[msg.sender] = max_value(uint256)
