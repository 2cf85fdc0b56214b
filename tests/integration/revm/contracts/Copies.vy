# pragma version ~=0.4.3
# pragma evm-version shanghai
# Before Cancun's MCOPY vyper copies memory through the identity precompile (0x04): every dynamic
# bytes value here is copied that way. sha256 is the precompile at 0x02.

kept: public(Bytes[96])
digest: public(bytes32)


@external
def keep(_data: Bytes[96], _limit: uint256) -> bytes32:
    copy: Bytes[96] = _data
    if len(copy) > _limit:
        copy = slice(copy, 0, _limit)
    self.kept = copy
    d: bytes32 = sha256(copy)
    if convert(d, uint256) % 4 == 0:
        self.digest = d
    return d


@external
def joined(_a: Bytes[32], _b: Bytes[32]) -> Bytes[64]:
    out: Bytes[64] = concat(_a, _b)
    if len(out) == 7:
        self.kept = out
    return out
