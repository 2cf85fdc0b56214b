# pragma version ~=0.4.3
# A timelock queue. Planted bug: an operation's id leaves out its amount, so two operations
# that differ only in their amount collide.

event CallScheduled:
    id: indexed(bytes32)
    target: address
    amount: uint256
    salt: bytes32
    delay: uint256

event Cancelled:
    id: indexed(bytes32)

MIN_DELAY: constant(uint256) = 3600

timestamps: public(HashMap[bytes32, uint256])


@internal
@pure
def _hash(target: address, amount: uint256, salt: bytes32) -> bytes32:
    return keccak256(concat(convert(target, bytes20), salt))


@external
@pure
def hash_operation(target: address, amount: uint256, salt: bytes32) -> bytes32:
    return self._hash(target, amount, salt)


@external
def schedule(target: address, amount: uint256, salt: bytes32, delay: uint256) -> bytes32:
    assert salt != empty(bytes32), "no salt"
    assert delay >= MIN_DELAY, "delay too short"
    id: bytes32 = self._hash(target, amount, salt)
    if self.timestamps[id] != 0:
        raw_revert(concat(method_id("AlreadyScheduled(bytes32)"), abi_encode(id)))
    self.timestamps[id] = block.timestamp + delay
    log CallScheduled(id=id, target=target, amount=amount, salt=salt, delay=delay)
    return id


@external
def cancel(id: bytes32):
    assert self.timestamps[id] != 0, "not pending"
    self.timestamps[id] = 0
    log Cancelled(id=id)
