"""Addresses, the bottom of the contract layer: 20 raw bytes, their EIP-55 checksummed form, and equality.

Everything else in the contract layer (the codec, events, accounts, contracts) builds on these.
"""

from __future__ import annotations

import functools

from eth_utils import to_checksum_address

from ..errors import ContractError
from ..values import format_value

_HEX = set("0123456789abcdefABCDEF")


@functools.lru_cache(maxsize=65536)
def checksum(raw: bytes) -> str:
    """EIP-55 checksummed hex form of a 20-byte address."""
    return to_checksum_address(raw)


def to_raw_address(value: object, *, what: str = "address") -> bytes:
    """20 address bytes from an Account, a Contract, a hex string or 20 bytes."""
    raw = getattr(value, "raw_address", None)
    if isinstance(raw, bytes):
        return raw
    if isinstance(value, str):
        text = value[2:] if value[:2] in ("0x", "0X") else value
        if len(text) == 40 and set(text) <= _HEX:
            return bytes.fromhex(text)
    elif isinstance(value, (bytes, bytearray)) and len(value) == 20:
        return bytes(value)
    raise ContractError(
        f"{what}: expected an account, a contract or a 0x-prefixed 40-digit hex address, got {format_value(value)}"
    )


def same_address(raw_address: bytes, address: str, other: object) -> bool | type(NotImplemented):  # type: ignore[valid-type]
    """Equality shared by accounts and contracts: equal to anything with the same address."""
    if isinstance(other, str):
        return other.lower() == address.lower()
    raw = getattr(other, "raw_address", None)
    if isinstance(raw, bytes):
        return raw == raw_address
    return NotImplemented
