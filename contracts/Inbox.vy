# pragma version ~=0.4.3
# Balances that move between addresses. Each account may open an inbox: an address the contract
# derives for it and keeps to itself. Planted bug: sending to your own inbox credits you twice.

balances: public(HashMap[address, uint256])
inbox: HashMap[address, address]


@deploy
def __init__(_supply: uint256):
    self.balances[msg.sender] = _supply


@external
def open_inbox():
    assert self.inbox[msg.sender] == empty(address), "inbox already open"
    self.inbox[msg.sender] = convert(convert(keccak256(concat(convert(msg.sender, bytes20), b"inbox")), uint256) % 2**160, address)


@external
def send(_to: address, _amount: uint256):
    assert self.balances[msg.sender] >= _amount, "insufficient balance"
    self.balances[msg.sender] -= _amount
    if _to == self.inbox[msg.sender]:
        self.balances[msg.sender] += 2 * _amount  # the bug: should credit the inbox once
    else:
        self.balances[_to] += _amount
