"""EIP-712: the hash of typed structured data, as accounts sign it (encodeType, hashStruct, encodeData)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eth_utils import keccak

from ..errors import ContractError, UsageError
from ..values import format_value
from .abi import encode, parse_type, split_array

EIP712_DOMAIN_FIELDS = (
    ("name", "string"), ("version", "string"), ("chainId", "uint256"), ("verifyingContract", "address"),
    ("salt", "bytes32"),
)


def _domain_fields(domain: Mapping[str, Any]) -> list[dict[str, str]]:
    known = dict(EIP712_DOMAIN_FIELDS)
    unknown = [k for k in domain if k not in known]
    if unknown:
        raise UsageError(
            f"typed data domain: unknown field(s) {', '.join(map(repr, unknown))}; EIP-712 domains take "
            f"{', '.join(known)}"
        )
    return [{"name": n, "type": t} for n, t in EIP712_DOMAIN_FIELDS if n in domain]


class _TypedData:
    """EIP-712's encodeType, hashStruct and encodeData over a set of struct types."""

    def __init__(self, types: Mapping[str, Sequence[Mapping[str, str]]]) -> None:
        self.types = {name: [(f["name"], "".join(f["type"].split())) for f in fields] for name, fields in types.items()}

    def struct_name(self, t: str) -> str | None:
        base = t
        while base.endswith("]"):
            base = split_array(base)[0]
        return base if base in self.types else None

    def dependencies(self, name: str, found: set[str] | None = None) -> set[str]:
        found = set() if found is None else found
        if name in found:
            return found
        found.add(name)
        for _, t in self.types[name]:
            dep = self.struct_name(t)
            if dep is not None:
                self.dependencies(dep, found)
        return found

    def encode_type(self, name: str) -> str:
        deps = self.dependencies(name) - {name}
        return "".join(f"{n}({','.join(f'{t} {f}' for f, t in self.types[n])})" for n in [name, *sorted(deps)])

    def hash_struct(self, name: str, value: Any, what: str) -> bytes:
        if not isinstance(value, Mapping):
            raise UsageError(
                f"{what}: expected a dict of {name}'s fields, got {type(value).__name__} {format_value(value)}"
            )
        fields = self.types[name]
        names = [f for f, _ in fields]
        missing = [f for f in names if f not in value]
        extra = [k for k in value if k not in names]
        if missing or extra:
            raise UsageError(
                f"{what}: {name} has the fields {', '.join(names)}; missing {missing or 'none'}, unknown "
                f"{extra or 'none'}"
            )
        words = [keccak(text=self.encode_type(name))] + [
            self.encode_field(t, value[f], f"{what}.{f}") for f, t in fields
        ]
        return keccak(b"".join(words))

    def encode_field(self, t: str, value: Any, what: str) -> bytes:
        if t in self.types:
            return self.hash_struct(t, value, what)
        if t.endswith("]"):
            item, dim = split_array(t)
            if not isinstance(value, (list, tuple)):
                raise UsageError(f"{what}: expected a list for {t}, got {type(value).__name__} {format_value(value)}")
            if dim and len(value) != int(dim):
                raise UsageError(f"{what}: {t} needs exactly {dim} items, got {len(value)}")
            return keccak(b"".join(self.encode_field(item, v, f"{what}[{i}]") for i, v in enumerate(value)))
        try:
            atomic = parse_type(t)
        except ContractError:
            raise UsageError(
                f"{what}: unknown type {t!r}; it is neither an ABI type nor one of the struct types given"
            ) from None
        if t == "string":
            return keccak(text=atomic.to_abi(value, what))
        if t == "bytes":
            return keccak(atomic.to_abi(value, what))
        return encode([atomic.name], [atomic.to_abi(value, what)])


def typed_data_hash(
    domain: Mapping[str, Any], types: Mapping[str, Sequence[Mapping[str, str]]], message: Mapping[str, Any],
    primary_type: str | None = None,
) -> bytes:
    """The EIP-712 digest keccak256(0x1901 || domainSeparator || hashStruct(message)).

    types maps each struct name to its fields ([{"name": ..., "type": ...}, ...]); the
    EIP712Domain type may be left out, and is then made from the domain's keys. primary_type
    may be left out when exactly one struct is used by no other.
    """
    all_types = dict(types)
    all_types.setdefault("EIP712Domain", _domain_fields(domain))
    data = _TypedData(all_types)
    if primary_type is None:
        used = {data.struct_name(t) for fields in data.types.values() for _, t in fields}
        roots = [n for n in data.types if n != "EIP712Domain" and n not in used]
        if len(roots) != 1:
            raise UsageError(
                f"typed data: cannot tell the primary type among {', '.join(roots) or 'no types'}; pass primary_type="
            )
        primary_type = roots[0]
    if primary_type not in data.types:
        raise UsageError(
            f"typed data: primary type {primary_type!r} is not among the types given ({', '.join(data.types)})"
        )
    separator = data.hash_struct("EIP712Domain", domain, "typed data domain")
    return keccak(b"\x19\x01" + separator + data.hash_struct(primary_type, message, f"typed data {primary_type}"))
