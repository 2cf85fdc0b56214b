"""The ABI codec: parsed ABI types, Python values <-> ABI values, encoding and decoding (EIP-712 hashes: typed_data.py).

The only eth-abi user. Every value goes through eth-abi; evmstate only converts what users
pass (accounts, amounts such as "1 ether", Decimals, hex strings, dicts for structs) into what
eth-abi takes, and what it returns into friendly values (checksummed addresses, lists,
Decimals, named tuples for structs).

Vyper's decimal is an int168 in the ABI, scaled by 10**10; the JSON ABI marks it with
internalType "decimal", and so does every array of decimals.
"""

from __future__ import annotations

import collections
import decimal
import functools
import re
from decimal import Decimal
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

import eth_abi
from eth_utils import keccak

from ..errors import ContractError, UnitError
from ..units import to_wei
from ..values import HexBytes, format_value
from .address import checksum, to_raw_address

DECIMAL_PLACES = 10
DECIMAL_SCALE = 10**DECIMAL_PLACES
DECIMAL_ABI = "int168"
# enough digits for any decimal value exactly (51 digits) and any int256
_EXACT = decimal.Context(prec=100, traps=[decimal.InvalidOperation, decimal.Inexact])
# exact: the default context would round these 51 digits to 28, past the true bounds
DECIMAL_MIN = _EXACT.divide(Decimal(-(2**167)), DECIMAL_SCALE)
DECIMAL_MAX = _EXACT.divide(Decimal(2**167 - 1), DECIMAL_SCALE)

_INT = re.compile(r"^(u?)int(\d*)$")
_BYTES_N = re.compile(r"^bytes(\d+)$")


def encode(types: Sequence[str], values: Sequence[Any]) -> bytes:
    """eth-abi encoding of values (already ABI values) as the tuple of types."""
    return eth_abi.encode(list(types), list(values))


def decode(types: Sequence[str], data: bytes) -> tuple[Any, ...]:
    """eth-abi decoding of data as the tuple of types."""
    return eth_abi.decode(list(types), data)


def selector(signature: str) -> bytes:
    """The 4-byte selector of a signature such as "transfer(address,uint256)"."""
    return keccak(text=signature)[:4]


# -- parsed types --------------------------------------------------------------


def _split_top(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
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


@functools.lru_cache(maxsize=None)
def struct_class(fields: tuple[str, ...]) -> type:
    """The named tuple a struct with these member names decodes to (one class per set of names)."""
    return collections.namedtuple("Struct", fields, rename=True)


class AbiType:
    """One ABI type: its canonical name (for signatures and eth-abi) and how values convert to and from it.

    to_abi(value, what) turns what a user passes into what eth-abi encodes, raising
    ContractError (naming `what`) for a value that does not fit; from_abi(value) turns what
    eth-abi decoded into what users see. display is the name as users write it (decimal
    rather than the int168 it travels as).
    """

    __slots__ = ("name", "display", "kind", "bits", "size", "item", "parts", "fields", "dynamic", "to_abi", "from_abi")
    display: str
    dynamic: bool

    def __init__(
        self, name: str, kind: str, *, bits: int = 0, size: int | None = None, item: "AbiType | None" = None,
        parts: Sequence["AbiType"] = (), fields: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.kind = kind
        self.bits = bits
        self.size = size  # bytesN: N; fixed arrays: the length; dynamic arrays: None
        self.item = item
        self.parts = tuple(parts)
        self.fields = tuple(fields)  # struct member names, when the ABI gave them
        if kind == "array":
            assert item is not None
            self.dynamic = size is None or item.dynamic
            self.display = f"{item.display}[{'' if size is None else size}]"
        else:
            self.dynamic = kind in ("bytes", "string") or any(p.dynamic for p in self.parts)
            if kind == "decimal":
                self.display = "decimal"
            elif kind == "tuple":
                self.display = f"({','.join(p.display for p in self.parts)})"
            else:
                self.display = name
        self.to_abi: Callable[[Any, str], Any] = getattr(self, f"_to_{kind}")
        self.from_abi: Callable[[Any], Any] = getattr(self, f"_from_{kind}", _same)

    def __repr__(self) -> str:
        return f"AbiType({self.display!r})"

    # -- Python -> ABI --------------------------------------------------------

    def _int_value(self, value: Any, what: str) -> int:
        if type(value) is int:
            return value
        if isinstance(value, str):
            try:
                return to_wei(value, what=what)
            except UnitError as e:
                raise ContractError(str(e)) from None
        if isinstance(value, int) and not isinstance(value, bool):
            return int(value)
        raise ContractError(
            f"{what}: expected an integer for {self.name}, got {type(value).__name__} {format_value(value)}"
        )

    def _to_uint(self, value: Any, what: str) -> int:
        v = self._int_value(value, what)
        if not 0 <= v < 1 << self.bits:
            raise ContractError(f"{what}: {v} does not fit in {self.name} (0 to 2**{self.bits}-1)")
        return v

    def _to_int(self, value: Any, what: str) -> int:
        v = self._int_value(value, what)
        half = 1 << (self.bits - 1)
        if not -half <= v < half:
            raise ContractError(
                f"{what}: {v} does not fit in {self.name} (-2**{self.bits - 1} to 2**{self.bits - 1}-1)"
            )
        return v

    def _to_decimal(self, value: Any, what: str) -> int:
        if isinstance(value, float):
            raise ContractError(
                f"{what}: a float is inexact; pass Decimal({str(value)!r}) or the string {str(value)!r} for a decimal"
            )
        if isinstance(value, bool) or not isinstance(value, (Decimal, int, str)):
            raise ContractError(
                f"{what}: expected a Decimal for decimal, got {type(value).__name__} {format_value(value)}"
            )
        try:
            d = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
        except decimal.InvalidOperation:
            raise ContractError(f"{what}: {format_value(value)} is not a number") from None
        if not d.is_finite():
            raise ContractError(f"{what}: {format_value(value)} is not a finite decimal")
        if not DECIMAL_MIN <= d <= DECIMAL_MAX:
            raise ContractError(
                f"{what}: {format_value(value)} does not fit in a decimal ({DECIMAL_MIN} to {DECIMAL_MAX})"
            )
        try:
            return int(_EXACT.multiply(d, DECIMAL_SCALE).to_integral_exact(context=_EXACT))
        except decimal.Inexact:
            raise ContractError(
                f"{what}: {format_value(value)} has more than {DECIMAL_PLACES} decimal places, which a Vyper decimal "
                "cannot hold"
            ) from None

    def _to_address(self, value: Any, what: str) -> bytes:
        return to_raw_address(value, what=what)

    def _to_bool(self, value: Any, what: str) -> bool:
        if type(value) is not bool:
            raise ContractError(f"{what}: expected True or False for bool, got {format_value(value)}")
        return value

    def _bytes_value(self, value: Any, what: str) -> bytes:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        if isinstance(value, str) and value[:2] in ("0x", "0X"):
            try:
                return bytes.fromhex(value[2:])
            except ValueError:
                raise ContractError(f"{what}: {format_value(value)} is not valid hex for {self.name}") from None
        raise ContractError(
            f"{what}: expected bytes or a 0x-prefixed hex string for {self.name}, got {type(value).__name__} "
            f"{format_value(value)}"
        )

    def _to_bytesN(self, value: Any, what: str) -> bytes:
        if isinstance(value, int) and not isinstance(value, bool):
            # as convert(x, bytesN) reads it: big-endian, e.g. a signature's r and s
            if not 0 <= value < 1 << (8 * (self.size or 0)):
                raise ContractError(f"{what}: {value} does not fit in {self.name}")
            return value.to_bytes(self.size or 0, "big")
        b = self._bytes_value(value, what)
        if len(b) != self.size:
            raise ContractError(
                f"{what}: {self.name} takes exactly {self.size} bytes, got {len(b)} ({format_value(b)}); pad it to "
                f"{self.size} bytes"
            )
        return b

    def _to_bytes(self, value: Any, what: str) -> bytes:
        return self._bytes_value(value, what)

    def _to_string(self, value: Any, what: str) -> str:
        if not isinstance(value, str):
            raise ContractError(f"{what}: expected a str for string, got {type(value).__name__} {format_value(value)}")
        return value

    def _to_array(self, value: Any, what: str) -> list[Any]:
        if not isinstance(value, (list, tuple)):
            raise ContractError(
                f"{what}: expected a list for {self.display}, got {type(value).__name__} {format_value(value)}"
            )
        if self.size is not None and len(value) != self.size:
            raise ContractError(f"{what}: {self.display} needs exactly {self.size} items, got {len(value)}")
        item = self.item
        assert item is not None
        return [item.to_abi(v, f"{what}[{i}]") for i, v in enumerate(value)]

    def _to_tuple(self, value: Any, what: str) -> tuple[Any, ...]:
        if isinstance(value, Mapping) and self.fields:
            missing = [f for f in self.fields if f not in value]
            extra = [k for k in value if k not in self.fields]
            if missing or extra:
                raise ContractError(
                    f"{what}: a {self.display} struct has the fields {', '.join(self.fields)}; missing "
                    f"{missing or 'none'}, unknown {extra or 'none'}"
                )
            value = [value[f] for f in self.fields]
        if not isinstance(value, (list, tuple)) or len(value) != len(self.parts):
            raise ContractError(
                f"{what}: expected a tuple of {len(self.parts)} for {self.display}, got {format_value(value)}"
            )
        labels = self.fields or tuple(str(i) for i in range(len(self.parts)))
        return tuple(p.to_abi(v, f"{what}.{label}") for p, v, label in zip(self.parts, value, labels))

    # -- ABI -> Python --------------------------------------------------------

    def _from_bytesN(self, value: bytes) -> HexBytes:
        return HexBytes(value)

    _from_bytes = _from_bytesN

    def _from_decimal(self, value: int) -> Decimal:
        if value % DECIMAL_SCALE:
            return _EXACT.divide(Decimal(value), DECIMAL_SCALE)
        return Decimal(value // DECIMAL_SCALE)

    def _from_address(self, value: str) -> str:
        return checksum(bytes.fromhex(value[2:]))

    def _from_array(self, value: Sequence[Any]) -> list[Any]:
        item = self.item
        assert item is not None
        if item.from_abi is _same:
            return list(value)
        return [item.from_abi(v) for v in value]

    def _from_tuple(self, value: Sequence[Any]) -> tuple[Any, ...]:
        values = tuple(p.from_abi(v) for p, v in zip(self.parts, value))
        if self.fields:
            return struct_class(self.fields)(*values)
        return values


def _same(value: Any) -> Any:
    return value


def split_array(t: str) -> tuple[str, str | None]:
    """'uint256[3][]' -> ('uint256[3]', ''), 'uint256[3]' -> ('uint256', '3'), 'uint256' -> (..., None)."""
    if not t.endswith("]"):
        return t, None
    i = t.rindex("[")
    return t[:i], t[i + 1 : -1]


def _array(item: AbiType, dim: str, text: str) -> AbiType:
    if dim and (not dim.isdigit() or int(dim) < 1):
        raise ContractError(f"ABI type {text!r}: array size {dim!r} must be a positive integer")
    return AbiType(f"{item.name}[{dim}]", "array", size=int(dim) if dim else None, item=item)


def _leaf(t: str, text: str) -> AbiType:
    m = _INT.match(t)
    if m:
        bits = int(m.group(2) or 256)
        if bits % 8 or not 8 <= bits <= 256:
            raise ContractError(f"ABI type {text!r}: integer sizes run from 8 to 256 in steps of 8")
        return AbiType(f"{m.group(1)}int{bits}", "uint" if m.group(1) else "int", bits=bits)
    m = _BYTES_N.match(t)
    if m:
        n = int(m.group(1))
        if not 1 <= n <= 32:
            raise ContractError(f"ABI type {text!r}: fixed bytes run from bytes1 to bytes32")
        return AbiType(t, "bytesN", size=n)
    if t == "decimal":
        return AbiType(DECIMAL_ABI, "decimal", bits=168)
    if t in ("address", "bool", "bytes", "string"):
        return AbiType(t, t)
    raise ContractError(f"unknown ABI type {t!r} in {text!r}")


@functools.lru_cache(maxsize=4096)
def parse_type(text: str) -> AbiType:
    """The AbiType of a type string such as "uint256[]", "(address,bool)" or "decimal"."""
    return _parse("".join(text.split()), text)


def _parse(t: str, text: str) -> AbiType:
    base, dim = split_array(t)
    if dim is not None:
        return _array(_parse(base, text), dim, text)
    if t.startswith("(") and t.endswith(")"):
        parts = [_parse(p, text) for p in _split_top(t[1:-1])]
        return AbiType(f"({','.join(p.name for p in parts)})", "tuple", parts=parts)
    return _leaf(t, text)


def param_type(param: Mapping[str, Any]) -> AbiType:
    """The AbiType of a JSON ABI parameter: struct member names kept, Vyper decimals recognised."""
    t = param["type"]
    base, dims = t, []
    while base.endswith("]"):
        base, dim = split_array(base)
        dims.append(dim)
    if base == "tuple":
        components = param.get("components", [])
        parts = [param_type(c) for c in components]
        names = [c.get("name") or "" for c in components]
        fields = names if all(names) and len(set(names)) == len(names) else []
        leaf = AbiType(f"({','.join(p.name for p in parts)})", "tuple", parts=parts, fields=fields)
    elif base == DECIMAL_ABI and param.get("internalType") == "decimal":
        leaf = parse_type("decimal")
    else:
        leaf = parse_type(base)
    for dim in reversed(dims):
        leaf = _array(leaf, dim or "", t)
    return leaf


def abi_type(param: Mapping[str, Any]) -> str:
    """The canonical type string of an ABI parameter, with tuples spelled out."""
    return param_type(param).name


def to_abi_value(t: str, value: Any, what: str) -> Any:
    """A Python value made acceptable to eth-abi for type t (accounts -> addresses, amounts -> ints)."""
    return parse_type(t).to_abi(value, what)


def from_abi_value(t: str, value: Any) -> Any:
    """A decoded value made friendly: addresses checksummed, arrays as lists."""
    return parse_type(t).from_abi(value)


def decode_values(types: Sequence[AbiType], data: bytes) -> tuple[Any, ...]:
    """data decoded as the tuple of types, as friendly values; eth-abi's error when it does not decode."""
    raw = eth_abi.decode([t.name for t in types], data)
    return tuple(t.from_abi(v) for t, v in zip(types, raw))


def encode_values(types: Sequence[AbiType], values: Sequence[Any], what: str) -> bytes:
    """values (as users pass them) encoded as the tuple of types; ContractError when one does not fit."""
    abi_values = [t.to_abi(v, f"{what} argument {i + 1} ({t.display})") for i, (t, v) in enumerate(zip(types, values))]
    try:
        return eth_abi.encode([t.name for t in types], abi_values)
    except Exception as e:  # the conversions above check every value; this is a last line of defence
        raise ContractError(
            f"{what}: cannot encode {format_value(list(values))} as ({', '.join(t.display for t in types)}): {e}"
        ) from None


_Entry = TypeVar("_Entry", bound=Mapping[str, Any])  # an ABI entry, as the caller holds it


def entry_signature(entry: Mapping[str, Any]) -> str:
    """An ABI entry's canonical signature, name(type,...), as its selector or topic is hashed from."""
    return f"{entry['name']}({','.join(abi_type(p) for p in entry.get('inputs', []))})"


def entry_of(abi: Iterable[_Entry], data: bytes, kind: str = "function") -> _Entry | None:
    """The entry of abi of that kind ("function", "error") whose selector data starts with; None when none has it."""
    for entry in abi:
        if entry.get("type") == kind and selector(entry_signature(entry)) == data[:4]:
            return entry
    return None


def describe_inputs(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{p.get('name') or '_'}: {param_type(p).display}" for p in entry.get("inputs", []))


# -- EIP-712 typed data ----------------------------------------------------------
