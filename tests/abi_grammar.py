"""The ABI type grammar for tests: Vyper echo contracts, type-string strategies, expected values."""

from __future__ import annotations

from typing import Any

from eth_utils import to_checksum_address
from hypothesis import strategies as st

UINTS = [f"uint{b}" for b in range(8, 257, 8)]
INTS = [f"int{b}" for b in range(8, 257, 8)]
BYTES_N = [f"bytes{n}" for n in range(1, 33)]
OTHER_LEAVES = ["bool", "address", "bytes", "string", "decimal"]
LEAVES = UINTS + INTS + BYTES_N + OTHER_LEAVES

# the caps strategy() puts on unbounded sizes: 64 bytes, 64 characters (up to 4 bytes each), 8 items
BYTES_CAP, STRING_CAP, ARRAY_CAP = 64, 256, 8


def _split_top(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    return [*parts, body[start:]]


class EchoSource:
    """Builds the Vyper text of an echo contract, declaring one struct per tuple type."""

    def __init__(self) -> None:
        self.structs: dict[str, str] = {}  # tuple type -> struct name
        self.struct_defs: list[str] = []
        self.functions: list[str] = []

    def vyper_type(self, t: str) -> str:
        """The Vyper spelling of an ABI type from the strategy grammar."""
        if t.endswith("]"):
            inner, _, dim = t[:-1].rpartition("[")
            if dim:
                return f"{self.vyper_type(inner)}[{dim}]"
            return f"DynArray[{self.vyper_type(inner)}, {ARRAY_CAP}]"
        if t.startswith("("):
            if t not in self.structs:
                fields = [self.vyper_type(p) for p in _split_top(t[1:-1])]
                name = f"S{len(self.structs)}"
                self.structs[t] = name
                body = "\n".join(f"    f{i}: {f}" for i, f in enumerate(fields))
                self.struct_defs.append(f"struct {name}:\n{body}\n")
            return self.structs[t]
        if t == "bytes":
            return f"Bytes[{BYTES_CAP}]"
        if t == "string":
            return f"String[{STRING_CAP}]"
        return t

    def add(self, name: str, types: list[str]) -> None:
        """An external function `name` taking values of types and returning them as given."""
        vtypes = [self.vyper_type(t) for t in types]
        params = ", ".join(f"a{i}: {v}" for i, v in enumerate(vtypes))
        returns = vtypes[0] if len(vtypes) == 1 else f"({', '.join(vtypes)})"
        values = ", ".join(f"a{i}" for i in range(len(vtypes)))
        self.functions.append(f"@external\n@pure\ndef {name}({params}) -> {returns}:\n    return {values}\n")

    def text(self) -> str:
        return "\n".join(["#pragma version ^0.4.0", "#pragma enable-decimals", "", *self.struct_defs, *self.functions])


# Types Vyper can declare in a signature, beyond the leaves: static and dynamic arrays of
# every kind of leaf, nested arrays (of integers above all), structs, arrays of structs.
# Vyper has no static arrays of Bytes or String; those are covered by the codec tests alone.
COMPOSITES = [
    "uint8[3]", "uint256[2]", "int8[2]", "int256[3]", "bool[2]", "address[2]", "bytes1[2]", "bytes32[2]", "decimal[2]",
    "uint8[]", "uint256[]", "int16[]", "int256[]", "bool[]", "address[]", "bytes4[]", "bytes32[]", "bytes[]", "string[]",
    "decimal[]",
    "uint256[][]", "uint8[2][]", "uint256[][2]", "int64[2][3]", "int256[][][]", "uint32[2][][2]", "address[][]",
    "string[][]", "decimal[2][]",
    "(uint256,bool)", "(address,bytes,string)", "(int8,decimal,bytes32[2])", "((uint8,string),uint256[])",
    "(uint256,address)[]", "(bool,bytes)[2]", "((int24,bytes4),decimal[])[]",
]
# several arguments at once: heads and tails of static and dynamic values side by side
MIXED = ["uint8", "string", "uint256[]", "(bool,bytes)", "int8[2]", "decimal", "address[]"]

ECHO_LEAVES = {"echo_uints": UINTS, "echo_ints": INTS, "echo_bytes_n": BYTES_N, "echo_other": OTHER_LEAVES}
ECHO_COMPOSITES = {**{f"echo_{i}": [t] for i, t in enumerate(COMPOSITES)}, "echo_mixed": MIXED}


def echo_contract(signatures: dict[str, list[str]]) -> str:
    """The Vyper source of a contract with one echo function per signature."""
    src = EchoSource()
    for name, types in signatures.items():
        src.add(name, types)
    return src.text()


def abi_types(max_leaves: int = 5) -> st.SearchStrategy[str]:
    """Type strings of the whole strategy grammar: leaves, static and dynamic arrays, tuples, nested."""

    def compose(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            inner.map(lambda t: f"{t}[]"),
            st.tuples(inner, st.integers(1, 3)).map(lambda p: f"{p[0]}[{p[1]}]"),
            st.lists(inner, min_size=1, max_size=3).map(lambda ts: f"({','.join(ts)})"),
        )

    return st.recursive(st.sampled_from(LEAVES), compose, max_leaves=max_leaves)


def expected_output(t: str, value: Any) -> Any:
    """What the codec should return for value of type t: addresses as checksummed strings,
    arrays as lists, tuples as tuples, everything else unchanged."""
    if t.endswith("]"):
        inner = t[: t.rindex("[")]
        return [expected_output(inner, v) for v in value]
    if t.startswith("("):
        return tuple(expected_output(p, v) for p, v in zip(_split_top(t[1:-1]), value))
    if t == "address":
        return value.address if hasattr(value, "address") else to_checksum_address(value)
    return value


def assert_same(got: Any, expected: Any, where: str = "value") -> None:
    """got equals expected, with the same container and value types all the way down."""
    if isinstance(expected, list):
        assert type(got) is list, f"{where}: {got!r} is not a list"
        assert len(got) == len(expected), f"{where}: {len(got)} items, expected {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), f"{where}: {got!r} is not a tuple of {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}.{i}")
    else:
        assert type(got) is type(expected), f"{where}: {got!r} is a {type(got).__name__}, expected {type(expected).__name__} {expected!r}"
        assert got == expected, f"{where}: {got!r} != {expected!r}"
