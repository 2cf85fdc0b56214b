"""One function's arguments encoded and its outputs decoded, by code built once per signature.

Most calls take and return only values of static types: uints, ints, addresses, bools, bytesN, decimals, and
fixed arrays and tuples of them. Their encoding is a fixed run of 32-byte words, one value after another, and a
function built once per type (from its AbiType) writes or reads those words directly, at a fraction of eth-abi's
cost. A signature holding a dynamic type (bytes, string, a dynamic array, a tuple or fixed array holding one)
goes through eth-abi (abi.py), and so does every value or word the direct path does not take: a value that does
not fit gets the general path's error, and output the direct path refuses is decoded, or refused, by eth-abi.
benchmarks/codec.py measures the difference; tests/unit/test_abi.py checks that both paths give the same bytes
and values over every static type the echo contracts cover.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..errors import ContractError
from ..values import HexBytes, format_value
from .abi import AbiType, decode_values, encode_values, param_type, struct_class
from .address import checksum, to_raw_address

Encoder = Callable[[Any, str], bytes]  # (value, what it is, for errors) -> its words
Decoder = Callable[[bytes, int], Any]  # (data, where its words start) -> the value

_ZERO12 = b"\0" * 12
_FALSE_WORD = b"\0" * 32
_TRUE_WORD = b"\0" * 31 + b"\1"


class NotAWord(Exception):
    """Raised when words are not a valid encoding of their type; the general path then decides."""


def word_count(t: AbiType) -> int:
    """How many 32-byte words a value of the static type t takes."""
    if t.kind == "array":
        assert t.item is not None and t.size is not None
        return t.size * word_count(t.item)
    if t.kind == "tuple":
        return sum(word_count(p) for p in t.parts)
    return 1


# -- encoders ---------------------------------------------------------------------


def static_encoder(t: AbiType) -> Encoder | None:
    """A direct encoder of t's values (as users pass them) to t's words; None for a dynamic type."""
    if t.dynamic:
        return None
    if t.kind in ("array", "tuple"):
        return _composite_encoder(t)
    return _leaf_encoder(t)


def _leaf_encoder(t: AbiType) -> Encoder:
    kind = t.kind
    if kind == "uint":
        limit = 1 << t.bits

        def enc_uint(v: Any, what: str) -> bytes:
            if type(v) is not int or not 0 <= v < limit:
                v = t.to_abi(v, what)
            return v.to_bytes(32, "big")

        return enc_uint
    if kind == "int":
        half = 1 << (t.bits - 1)

        def enc_int(v: Any, what: str) -> bytes:
            if type(v) is not int or not -half <= v < half:
                v = t.to_abi(v, what)
            return v.to_bytes(32, "big", signed=True)

        return enc_int
    if kind == "address":

        def enc_address(v: Any, what: str) -> bytes:
            raw = getattr(v, "raw_address", None)
            return _ZERO12 + (raw if type(raw) is bytes else to_raw_address(v, what=what))

        return enc_address
    if kind == "bool":

        def enc_bool(v: Any, what: str) -> bytes:
            if v is True:
                return _TRUE_WORD
            if v is False:
                return _FALSE_WORD
            raise ContractError(f"{what}: expected True or False for bool, got {format_value(v)}")

        return enc_bool
    if kind == "bytesN":
        size = t.size or 0
        pad = b"\0" * (32 - size)

        def enc_bytes_n(v: Any, what: str) -> bytes:
            if type(v) is not bytes or len(v) != size:
                v = t.to_abi(v, what)
            return v + pad

        return enc_bytes_n
    if kind == "decimal":

        def enc_decimal(v: Any, what: str) -> bytes:
            return t.to_abi(v, what).to_bytes(32, "big", signed=True)

        return enc_decimal
    raise AssertionError(f"no static encoder for {t!r}")


def _composite_encoder(t: AbiType) -> Encoder:
    """Fixed arrays and tuples: the items' words one after another. A value of the wrong shape, or one an item
    refuses, is handed to t.to_abi, which raises the general path's error naming the item."""
    if t.kind == "array":
        item, size = t.item, t.size
        assert item is not None
        items = [static_encoder(item)] * (size or 0)
        fields: tuple[str, ...] = ()
    else:
        items, size, fields = [static_encoder(p) for p in t.parts], len(t.parts), t.fields
    encoders: list[Encoder] = [e for e in items if e is not None]

    def enc_composite(v: Any, what: str) -> bytes:
        given = v
        if isinstance(v, Mapping) and fields and len(v) == len(fields) and all(f in v for f in fields):
            v = [v[f] for f in fields]
        elif not isinstance(v, (list, tuple)) or len(v) != size:
            t.to_abi(v, what)
            raise ContractError(f"{what}: expected {t.display}, got {format_value(v)}")  # to_abi raised first
        try:
            return b"".join([enc(x, what) for enc, x in zip(encoders, v)])
        except ContractError:
            t.to_abi(given, what)  # the same refusal, with the item's own label
            raise

    return enc_composite


# -- decoders ---------------------------------------------------------------------


def static_decoder(t: AbiType) -> Decoder | None:
    """A direct decoder of t's words into the value users see (as t.from_abi gives it); None for a dynamic type.

    It raises NotAWord for words eth-abi might read otherwise, or refuse: a value past its type's bounds, dirty
    padding, a bool other than 0 or 1.
    """
    if t.dynamic:
        return None
    if t.kind == "array":
        assert t.item is not None and t.size is not None
        item = static_decoder(t.item)
        assert item is not None
        step, size = 32 * word_count(t.item), t.size

        def dec_array(data: bytes, at: int) -> list[Any]:
            return [item(data, at + step * i) for i in range(size)]

        return dec_array
    if t.kind == "tuple":
        parts = _at_offsets(t.parts)
        make = struct_class(t.fields) if t.fields else None

        def dec_tuple(data: bytes, at: int) -> tuple[Any, ...]:
            values = tuple([dec(data, at + offset) for dec, offset in parts])
            return values if make is None else make(*values)

        return dec_tuple
    return _leaf_decoder(t)


def _at_offsets(types: Sequence[AbiType]) -> list[tuple[Decoder, int]]:
    """Each static type's decoder with the byte offset of its words, one type after another."""
    found, offset = [], 0
    for t in types:
        dec = static_decoder(t)
        assert dec is not None
        found.append((dec, offset))
        offset += 32 * word_count(t)
    return found


def _leaf_decoder(t: AbiType) -> Decoder:
    kind = t.kind
    if kind == "uint":
        limit = 1 << t.bits

        def dec_uint(data: bytes, at: int) -> int:
            v = int.from_bytes(data[at : at + 32], "big")
            if v >= limit:
                raise NotAWord
            return v

        return dec_uint
    if kind in ("int", "decimal"):
        half = 1 << (t.bits - 1)
        friendly = t.from_abi

        def dec_int(data: bytes, at: int) -> Any:
            v = int.from_bytes(data[at : at + 32], "big", signed=True)
            if not -half <= v < half:
                raise NotAWord
            return v if kind == "int" else friendly(v)

        return dec_int
    if kind == "address":

        def dec_address(data: bytes, at: int) -> str:
            if data[at : at + 12] != _ZERO12:
                raise NotAWord
            return checksum(data[at + 12 : at + 32])

        return dec_address
    if kind == "bool":

        def dec_bool(data: bytes, at: int) -> bool:
            w = data[at : at + 32]
            if w == _TRUE_WORD:
                return True
            if w == _FALSE_WORD:
                return False
            raise NotAWord

        return dec_bool
    if kind == "bytesN":
        size = t.size or 0
        pad = b"\0" * (32 - size)

        def dec_bytes_n(data: bytes, at: int) -> HexBytes:
            if data[at + size : at + 32] != pad:
                raise NotAWord
            return HexBytes(data[at : at + size])

        return dec_bytes_n
    raise AssertionError(f"no static decoder for {t!r}")


def word_decoder(t: AbiType) -> Callable[[bytes], Any] | None:
    """A direct decoder of one 32-byte word (an event's topic) of a uint, int, address or bool; None for other types."""
    if t.kind not in ("uint", "int", "address", "bool"):
        return None
    dec = _leaf_decoder(t)
    return lambda word: dec(word, 0)


# -- a function's codec -------------------------------------------------------------


class Codec:
    """Encodes one function's arguments and decodes its outputs.

    Where every type is static it works word by word (static_encoder, static_decoder); otherwise, and for
    every value or output the direct path does not take, through eth-abi.
    """

    def __init__(
        self,
        label: str,
        inputs: Sequence[AbiType],
        outputs: Sequence[AbiType],
        *,
        words: bool = True,
        names: Sequence[str] = (),
    ) -> None:
        self.label = label
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        # several outputs, each named (vyper 0.2's struct getters and struct returns, a Solidity function's named
        # returns): a named tuple of them, as a struct returned as one tuple is
        named = len(outputs) > 1 and len(names) == len(outputs) and all(names) and len(set(names)) == len(names)
        self._struct = struct_class(tuple(names)) if named else None
        self.in_types = [t.name for t in inputs]
        self.out_types = [t.name for t in outputs]
        self._labels = [f"{label} argument {i + 1} ({t.display})" for i, t in enumerate(inputs)]
        direct = words and not any(t.dynamic for t in self.inputs)
        self._encoders = [e for e in map(static_encoder, self.inputs) if e is not None] if direct else None
        direct = words and not any(t.dynamic for t in self.outputs)
        self._decoders = _at_offsets(self.outputs) if direct else None
        self._out_size = 32 * sum(word_count(t) for t in self.outputs) if direct else 0

    @classmethod
    def for_entry(cls, label: str, entry: Mapping[str, Any], *, words: bool = True) -> "Codec":
        """The codec of a JSON ABI function or constructor entry."""
        outputs = entry.get("outputs", [])
        inputs = [param_type(p) for p in entry.get("inputs", [])]
        names = [p.get("name") or "" for p in outputs]
        return cls(label, inputs, [param_type(p) for p in outputs], words=words, names=names)

    def encode(self, args: Sequence[Any]) -> bytes:
        """The arguments (as users pass them) ABI-encoded, without a selector."""
        if self._encoders is not None:
            return b"".join([enc(v, what) for enc, v, what in zip(self._encoders, args, self._labels)])
        return encode_values(self.inputs, args, self.label)

    def decode(self, output: bytes) -> Any:
        """The decoded return value: None, the one value, or a tuple of them."""
        if not self.outputs:
            return None
        values: tuple[Any, ...] | None = None
        if self._decoders is not None and len(output) >= self._out_size:
            try:
                values = tuple([dec(output, at) for dec, at in self._decoders])
            except NotAWord:
                values = None
        if values is None:
            try:
                values = decode_values(self.outputs, output)
            except Exception as e:
                shown = ", ".join(t.display for t in self.outputs)
                shown = f"{len(output)} bytes that do not decode as ({shown}): {e}"
                raise ContractError(f"{self.label} returned {shown}") from None
        if len(values) == 1:
            return values[0]
        return values if self._struct is None else self._struct(*values)
