# pragma version ~=0.4.3
# EIP-2612 permit checked with ecrecover, as the EIP specifies; EIP-191 personal messages.

DOMAIN_TYPEHASH: constant(bytes32) = keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
PERMIT_TYPEHASH: constant(bytes32) = keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")

name: public(String[32])
nonces: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__(_name: String[32]):
    self.name = _name


@internal
@view
def _domain_separator() -> bytes32:
    return keccak256(abi_encode(DOMAIN_TYPEHASH, keccak256(self.name), keccak256("1"), chain.id, self))


@external
@view
def DOMAIN_SEPARATOR() -> bytes32:
    return self._domain_separator()


@external
def permit(owner: address, spender: address, amount: uint256, deadline: uint256, v: uint8, r: bytes32, s: bytes32):
    assert block.timestamp <= deadline, "permit expired"
    nonce: uint256 = self.nonces[owner]
    struct_hash: bytes32 = keccak256(abi_encode(PERMIT_TYPEHASH, owner, spender, amount, nonce, deadline))
    digest: bytes32 = keccak256(concat(b"\x19\x01", self._domain_separator(), struct_hash))
    signer: address = ecrecover(digest, v, r, s)
    assert signer != empty(address) and signer == owner, "invalid signature"
    self.nonces[owner] = nonce + 1
    self.allowance[owner][spender] = amount


@external
@pure
def personal_signer(message: Bytes[64], v: uint8, r: bytes32, s: bytes32) -> address:
    length: String[78] = uint2str(len(message))
    digest: bytes32 = keccak256(concat(b"\x19Ethereum Signed Message:\n", convert(length, Bytes[78]), message))
    return ecrecover(digest, v, r, s)
