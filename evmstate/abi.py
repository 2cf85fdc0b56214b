"""The ABI codec: type strings, Python values <-> ABI values, encoding and decoding. The only eth-abi user."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import eth_abi
from eth_utils import keccak

from .accounts import checksum, to_raw_address
from .errors import ContractError
from .units import to_wei


def encode(types: Sequence[str], values: Sequence[Any]) -> bytes:
    """eth-abi encoding of values (already ABI values) as the tuple of types."""
    return eth_abi.encode(list(types), list(values))


def decode(types: Sequence[str], data: bytes) -> tuple[Any, ...]:
    """eth-abi decoding of data as the tuple of types."""
    return eth_abi.decode(list(types), data)


def selector(signature: str) -> bytes:
    """The 4-byte selector of a signature such as "transfer(address,uint256)"."""
    return keccak(text=signature)[:4]


# -- ABI type strings and value conversion -------------------------------


def abi_type(param: Mapping[str, Any]) -> str:
    """The canonical type string of an ABI parameter, with tuples spelled out."""
    t = param["type"]
    if t.startswith("tuple"):
        inner = ",".join(abi_type(c) for c in param["components"])
        return f"({inner}){t[5:]}"
    return t


def _split_array(t: str) -> tuple[str, str | None]:
    """'uint256[3][]' -> ('uint256[3]', ''), 'uint256[3]' -> ('uint256', '3'), 'uint256' -> (..., None)."""
    if not t.endswith("]"):
        return t, None
    i = t.rindex("[")
    return t[:i], t[i + 1 : -1]


def _tuple_parts(t: str) -> list[str]:
    body, parts, depth, start = t[1:-1], [], 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    if body:
        parts.append(body[start:])
    return parts


def to_abi_value(t: str, value: Any, what: str) -> Any:
    """A Python value made acceptable to eth-abi for type t (accounts -> addresses, amounts -> ints)."""
    base, dim = _split_array(t)
    if dim is not None:
        if not isinstance(value, (list, tuple)):
            raise ContractError(f"{what}: expected a list for {t}, got {type(value).__name__} {value!r}")
        if dim and len(value) != int(dim):
            raise ContractError(f"{what}: {t} needs exactly {dim} items, got {len(value)}")
        return [to_abi_value(base, v, what) for v in value]
    if t.startswith("("):
        parts = _tuple_parts(t)
        if not isinstance(value, (list, tuple)) or len(value) != len(parts):
            raise ContractError(f"{what}: expected a tuple of {len(parts)} for {t}, got {value!r}")
        return tuple(to_abi_value(p, v, what) for p, v in zip(parts, value))
    if t == "address":
        return to_raw_address(value, what=what)
    if t.startswith(("uint", "int")):
        if isinstance(value, str):
            return to_wei(value, what=what)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ContractError(f"{what}: expected an integer for {t}, got {type(value).__name__} {value!r}")
        return value
    if t.startswith("bytes") and isinstance(value, str) and value.startswith("0x"):
        try:
            return bytes.fromhex(value[2:])
        except ValueError:
            raise ContractError(f"{what}: {value!r} is not valid hex for {t}") from None
    return value


def from_abi_value(t: str, value: Any) -> Any:
    """A decoded value made friendly: addresses checksummed, arrays as lists."""
    base, dim = _split_array(t)
    if dim is not None:
        return [from_abi_value(base, v) for v in value]
    if t.startswith("("):
        return tuple(from_abi_value(p, v) for p, v in zip(_tuple_parts(t), value))
    if t == "address":
        return checksum(bytes.fromhex(value[2:]))
    return value


def _static_encoder(t: str) -> Any:
    """A fast encoder to one 32-byte word for the common static types, or None."""
    if t.startswith("uint"):
        limit = 2 ** int(t[4:] or 256)

        def enc_uint(v: Any, what: str) -> bytes:
            if type(v) is not int:
                v = to_abi_value(t, v, what)
            if not 0 <= v < limit:
                raise ContractError(f"{what}: {v} does not fit in {t}")
            return v.to_bytes(32, "big")

        return enc_uint
    if t.startswith("int"):
        bits = int(t[3:] or 256)
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1)

        def enc_int(v: Any, what: str) -> bytes:
            if type(v) is not int:
                v = to_abi_value(t, v, what)
            if not lo <= v < hi:
                raise ContractError(f"{what}: {v} does not fit in {t}")
            return v.to_bytes(32, "big", signed=True)

        return enc_int
    if t == "address":

        def enc_address(v: Any, what: str) -> bytes:
            raw = getattr(v, "raw_address", None)
            return b"\0" * 12 + (raw if type(raw) is bytes else to_raw_address(v, what=what))

        return enc_address
    if t == "bool":

        def enc_bool(v: Any, what: str) -> bytes:
            if type(v) is not bool:
                raise ContractError(f"{what}: expected True or False for bool, got {v!r}")
            return b"\0" * 31 + (b"\1" if v else b"\0")

        return enc_bool
    return None


def _static_decoder(t: str) -> Any:
    """A fast decoder of one 32-byte word for the common static types, or None."""
    if t.startswith("uint"):
        return lambda w: int.from_bytes(w, "big")
    if t.startswith("int"):
        return lambda w: int.from_bytes(w, "big", signed=True)
    if t == "address":
        return lambda w: checksum(w[12:])
    if t == "bool":
        return lambda w: w[31] == 1
    return None


class _Codec:
    """Encodes a function's arguments and decodes its outputs, word by word where the types allow."""

    def __init__(self, label: str, in_types: list[str], out_types: list[str]) -> None:
        self.label = label
        self.in_types = in_types
        self.out_types = out_types
        encoders = [_static_encoder(t) for t in in_types]
        self.encoders = encoders if all(e is not None for e in encoders) else None
        decoders = [_static_decoder(t) for t in out_types]
        self.decoders = decoders if all(d is not None for d in decoders) else None

    def encode(self, args: Sequence[Any]) -> bytes:
        if self.encoders is not None:
            return b"".join(enc(v, f"{self.label} argument {i + 1} ({t})") for i, (enc, v, t) in enumerate(zip(self.encoders, args, self.in_types)))
        values = [to_abi_value(t, v, f"{self.label} argument {i + 1} ({t})") for i, (t, v) in enumerate(zip(self.in_types, args))]
        try:
            return encode(self.in_types, values)
        except Exception as e:
            raise ContractError(f"{self.label}: cannot encode {list(args)!r} as ({', '.join(self.in_types)}): {e}") from None

    def decode(self, output: bytes) -> Any:
        if not self.out_types:
            return None
        if self.decoders is not None and len(output) >= 32 * len(self.decoders):
            values = tuple(dec(output[32 * i : 32 * i + 32]) for i, dec in enumerate(self.decoders))
        else:
            raw = decode(self.out_types, output)
            values = tuple(from_abi_value(t, v) for t, v in zip(self.out_types, raw))
        return values[0] if len(values) == 1 else values


def _signature(entry: Mapping[str, Any]) -> str:
    return f"{entry['name']}({','.join(abi_type(p) for p in entry.get('inputs', []))})"


def _describe_inputs(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{p.get('name') or '_'}: {abi_type(p)}" for p in entry.get("inputs", []))


