"""Values as the chain shows them: HexBytes, and format_value(), the one way evmstate writes a value.

Programs (which are Python) show a bytes value as HexBytes('0x...'), so that they paste and run;
everything else (traces, events, revert reasons, assertion messages, replays, reports) shows it as
0x... . Every other value is shown as repr() shows it, so that a program without bytes reads as
it always did. May import: errors.
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import UsageError


class HexBytes(bytes):
    """bytes that read as the chain shows them: str() is 0x..., repr() is HexBytes('0x...').

    Equal to, and hashing like, the same plain bytes. Built from bytes (or a bytearray or
    memoryview) or from a 0x-prefixed hex string; an int is refused, since it says nothing of
    its width (write n.to_bytes(32, "big"), or pass the int to a bytesN argument, which reads it
    as convert() does). A slice is a HexBytes; other bytes operations give plain bytes.
    """

    __slots__ = ()

    def __new__(cls, value: Any = b"") -> HexBytes:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return super().__new__(cls, value)
        if isinstance(value, str) and value[:2] in ("0x", "0X"):
            try:
                return super().__new__(cls, bytes.fromhex(value[2:]))
            except ValueError:
                raise UsageError(
                    f"HexBytes({value!r}): not hex; write two hex digits a byte after the 0x, e.g. HexBytes('0x00ff')"
                ) from None
        if isinstance(value, str):
            raise UsageError(
                f"HexBytes({value!r}): a hex string starts with 0x, e.g. HexBytes('0x{value}'); for text, write "
                f"HexBytes({value!r}.encode())"
            )
        if isinstance(value, int) and not isinstance(value, bool):
            raise UsageError(
                f"HexBytes({value!r}): an int has no width; write HexBytes(({value}).to_bytes(32, 'big')) for a "
                "bytes32, or pass the int itself to a bytesN argument"
            )
        raise UsageError(f"HexBytes() takes bytes or a 0x-prefixed hex string, got {type(value).__name__} {value!r}")

    def __str__(self) -> str:
        return f"0x{self.hex()}"

    def __repr__(self) -> str:
        return f"HexBytes('0x{self.hex()}')"

    def __getitem__(self, key: Any) -> Any:
        item = super().__getitem__(key)
        return HexBytes(item) if isinstance(key, slice) else item


# shown as repr() shows them, whatever the mode: most arguments are one of these
_PLAIN = frozenset({int, str, bool, type(None)})


def format_value(value: Any, *, code: bool = False, name: Callable[[Any], str | None] | None = None) -> str:
    """value as evmstate shows it: bytes as 0x... (HexBytes('0x...') with code=True), inside lists,
    tuples, structs and dicts too, and every other value by its repr().

    code=True is for program lines, which must paste back as Python. name(v), when given, is
    asked first for every value and item: a string to show instead, or None (traces name
    accounts and contracts this way).
    """
    if name is None and type(value) in _PLAIN:
        return repr(value)
    return _format(value, code, name, set())


def _format(value: Any, code: bool, name: Callable[[Any], str | None] | None, open_: set[int]) -> str:
    if name is not None:
        named = name(value)
        if named is not None:
            return named
    kind = type(value)
    if kind in _PLAIN:
        return repr(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"HexBytes('0x{value.hex()}')" if code else f"0x{value.hex()}"
    if kind is list or kind is tuple or kind is dict or (isinstance(value, tuple) and hasattr(kind, "_fields")):
        if id(value) in open_:  # a list that holds itself: repr() knows how to stop
            return repr(value)
        open_.add(id(value))
        try:
            if kind is dict:
                pairs = (f"{_format(k, code, name, open_)}: {_format(v, code, name, open_)}" for k, v in value.items())
                return f"{{{', '.join(pairs)}}}"
            items = [_format(v, code, name, open_) for v in value]
        finally:
            open_.discard(id(value))
        if kind is list:
            return f"[{', '.join(items)}]"
        if kind is tuple:
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        # a struct (a named tuple), as its repr() writes it
        return f"{kind.__name__}({', '.join(f'{f}={v}' for f, v in zip(kind._fields, items))})"
    return repr(value)
