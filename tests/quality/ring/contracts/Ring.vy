# pragma version ~=0.4.3
# A 4-slot ring buffer whose tail wraps at the wrong modulus (5 instead of 4).

buf: uint256[5]
head: uint256
tail: uint256
count: public(uint256)


@external
def push(_value: uint256):
    assert self.count < 4, "Full"
    self.buf[self.tail] = _value
    self.tail = (self.tail + 1) % 5
    self.count += 1


@external
def pop() -> uint256:
    assert self.count > 0, "Empty"
    value: uint256 = self.buf[self.head]
    self.head = (self.head + 1) % 4
    self.count -= 1
    return value
