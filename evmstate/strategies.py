"""strategy("uint256", ...): Hypothesis strategies from the ABI type grammar."""

from __future__ import annotations

import difflib
import functools
import re
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from .contracts.abi import DECIMAL_MAX, DECIMAL_MIN, DECIMAL_PLACES
from .contracts.address import checksum
from .contracts.api import active
from .config_checks import check_actors
from .domains import (
    AddressDomain, ArrayDomain, BoolDomain, BytesDomain, Domain, IntDomain, TextDomain, TupleDomain, domain_of,
)
from .errors import StrategyError, UnitError
from .search.dictionary import mixed
from .search.native.choices import drawn, drawn_by
from .units import to_wei
from .values import HexBytes

_INT = re.compile(r"^(u?)int(\d*)$")
_BYTES_N = re.compile(r"^bytes(\d+)$")
ALLOWED = (
    "uint8..uint256, int8..int256 (steps of 8), bool, address, bytes1..bytes32, bytes, string, decimal, "
    "fixed arrays such as uint256[3], dynamic arrays such as address[], tuples such as (uint256,bool)"
)
_BOUNDS = {
    "int": {"min_value", "max_value", "exclude"},
    "decimal": {"min_value", "max_value", "exclude", "places"},
    "bool": {"exclude"},
    "address": {"exclude", "length", "actors"},
    "bytesN": {"exclude"},
    "bytes": {"min_length", "max_length", "exclude"},
    "string": {"min_length", "max_length", "exclude", "alphabet"},
    "array": {"min_length", "max_length", "unique"},
    "tuple": set(),
}


def _split_top(body: str, type_str: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise StrategyError(f"strategy({type_str!r}): unbalanced parentheses")
        elif ch == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    parts.append(body[start:].strip())
    if depth != 0:
        raise StrategyError(f"strategy({type_str!r}): unbalanced parentheses")
    return parts


def _kind(t: str, type_str: str) -> str:
    if t.endswith("]"):
        inner, _, dim = t[:-1].rpartition("[")
        if dim and (not dim.isdigit() or int(dim) < 1):
            raise StrategyError(f"strategy({type_str!r}): array size {dim!r} must be a positive integer")
        _kind(inner, type_str)
        return "array"
    if t.startswith("(") and t.endswith(")"):
        for part in _split_top(t[1:-1], type_str):
            if not part:
                raise StrategyError(f"strategy({type_str!r}): empty tuple member")
            _kind(part, type_str)
        return "tuple"
    m = _INT.match(t)
    if m:
        bits = int(m.group(2) or 256)
        if bits % 8 or not 8 <= bits <= 256:
            raise StrategyError(
                f"strategy({type_str!r}): {t} is not an ABI type; integer sizes run from 8 to 256 in steps of 8"
            )
        return "int"
    m = _BYTES_N.match(t)
    if m:
        if not 1 <= int(m.group(1)) <= 32:
            raise StrategyError(
                f"strategy({type_str!r}): {t} is not an ABI type; fixed bytes run from bytes1 to bytes32"
            )
        return "bytesN"
    if t in ("bool", "address", "bytes", "string", "decimal"):
        return t
    names = [*(f"{u}int{b}" for u in ("u", "") for b in range(8, 257, 8)), *(f"bytes{n}" for n in range(1, 33))]
    close = difflib.get_close_matches(t, [*names, "bool", "address", "bytes", "string", "decimal"], n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise StrategyError(f"strategy({type_str!r}): unknown ABI type {t!r}.{hint} Allowed: {ALLOWED}")


def _int_bounds(t: str) -> tuple[int, int]:
    m = _INT.match(t)
    assert m is not None
    bits = int(m.group(2) or 256)
    if m.group(1):
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _amount(value: Any, name: str, type_str: str) -> int:
    try:
        return to_wei(value, what=f"strategy({type_str!r}) {name}")
    except UnitError as e:
        raise StrategyError(str(e)) from None


def _excluding(strategy: st.SearchStrategy, exclude: Any) -> st.SearchStrategy:
    if exclude is None:
        return strategy
    excluded = list(exclude) if isinstance(exclude, (list, tuple, set, frozenset)) else [exclude]
    return strategy.filter(lambda v: v not in excluded)


def _excluded(exclude: Any) -> tuple[Any, ...]:
    if exclude is None:
        return ()
    return tuple(exclude) if isinstance(exclude, (list, tuple, set, frozenset)) else (exclude,)


def _length_bounds(type_str: str, min_length: Any, max_length: Any, cap: int) -> tuple[int, int]:
    """(min_length, max_length) checked; without a max_length, cap (or min_length when it is larger)."""
    lo = 0 if min_length is None else min_length
    for name, v in (("min_length", lo), ("max_length", max_length)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise StrategyError(f"strategy({type_str!r}): {name} must be a non-negative integer, got {v!r}")
    if max_length is not None and lo > max_length:
        raise StrategyError(f"strategy({type_str!r}): min_length {lo} is greater than max_length {max_length}")
    return lo, max(cap, lo) if max_length is None else max_length


@functools.lru_cache(maxsize=256)
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(min_value=0, max_value=n - 1)


def _account_drawer(length: int | None, actors: Any = None) -> Any:
    """draw -> one of the active project's accounts (the first length of them), by one index choice;
    without length, among the actors deployed for the machine too, as actors says (Accounts.pool)."""

    if length is not None:

        def draw_account(draw: Any) -> Any:
            accounts = active().accounts
            return accounts[draw(_index(min(length, len(accounts))))]

        return draw_account

    def draw_any(draw: Any) -> Any:
        pool = active().accounts.pool(actors)
        return pool[draw(_index(len(pool)))]

    return draw_any


def _accounts_strategy(length: int | None, actors: Any = None) -> st.SearchStrategy:
    draw_account = _account_drawer(length, actors)
    return drawn(draw_account)  # its one choice, made by whoever draws it


def _hex_drawer(plain: st.SearchStrategy) -> Any:
    """draw -> plain's value as HexBytes: the same choices as plain, the value converted once drawn."""

    def draw_hex(draw: Any) -> HexBytes:
        return HexBytes(draw(plain))

    return draw_hex


def _hex_strategy(plain: st.SearchStrategy) -> st.SearchStrategy:
    draw_hex = _hex_drawer(plain)
    # a machine draws it inside its step's draw, as it drew plain before
    return drawn(draw_hex)


def _address_strategy(type_str: str, length: Any, actors: Any, exclude: Any) -> st.SearchStrategy:
    """strategy("address", ...): the funded accounts (the first length of them), the actors asked for, addresses
    the contracts produced."""
    if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 1):
        raise StrategyError(f"strategy({type_str!r}): length must be a positive number of accounts, got {length!r}")
    actors = _actors(actors, type_str)
    if length is not None and actors:
        raise StrategyError(
            f"strategy({type_str!r}): length= draws only the first funded accounts, and actors= adds "
            "actors after them; give one of them"
        )
    domain = AddressDomain(length, _excluded(exclude), actors)
    if length is not None:  # the first accounts only, as asked
        return _with_domain(_excluding(_accounts_strategy(length), exclude), domain)
    drawn = mixed(_accounts_strategy(None, actors), _produced_addresses, _account_drawer(None, actors))
    return _with_domain(_excluding(drawn, exclude), domain)


def _actors(value: Any, type_str: str) -> bool | tuple[str, ...] | None:
    """strategy("address", actors=...): None (the machine's settings say), True (every actor deployed), False
    (none), or kinds."""
    if value is None or isinstance(value, bool):
        return value
    kinds = list(value) if isinstance(value, (list, tuple)) else value
    return check_actors(kinds, f"strategy({type_str!r}): actors", StrategyError)


def _produced_addresses(d: Any) -> tuple[list[str], list[str], list[str]]:
    # checksummed once per change of the dictionary, not on every draw
    return d.memo(
        "checksummed addresses", lambda: tuple([checksum(a) for a in pool] for pool in d.produced_addresses())
    )


def _int_strategy(t: str, type_str: str, bounds: dict[str, Any], exclude: Any) -> st.SearchStrategy:
    """intN and uintN within their bounds."""
    lo, hi = _int_bounds(t)
    min_v = lo if bounds.get("min_value") is None else _amount(bounds["min_value"], "min_value", type_str)
    max_v = hi if bounds.get("max_value") is None else _amount(bounds["max_value"], "max_value", type_str)
    if min_v < lo or max_v > hi:
        raise StrategyError(f"strategy({type_str!r}): bounds [{min_v}, {max_v}] are outside {t}'s range [{lo}, {hi}]")
    if min_v > max_v:
        raise StrategyError(f"strategy({type_str!r}): min_value {min_v} is greater than max_value {max_v}")
    return _with_domain(
        _excluding(
            mixed(
                st.integers(min_value=min_v, max_value=max_v), lambda d: d.ints_between(min_v, max_v),
                bounds=(min_v, max_v),
            ),
            exclude,
        ),
        IntDomain(min_v, max_v, _excluded(exclude)),
    )


def _decimal_strategy(type_str: str, bounds: dict[str, Any], exclude: Any) -> st.SearchStrategy:
    """Vyper decimals within their bounds, at most places decimal places."""
    places = bounds.get("places", DECIMAL_PLACES)
    if not isinstance(places, int) or not 0 <= places <= DECIMAL_PLACES:
        raise StrategyError(f"strategy({type_str!r}): places must be an integer from 0 to {DECIMAL_PLACES}")
    least = Decimal(str(bounds.get("min_value", DECIMAL_MIN)))
    most = Decimal(str(bounds.get("max_value", DECIMAL_MAX)))
    if least < DECIMAL_MIN or most > DECIMAL_MAX or least > most:
        raise StrategyError(
            f"strategy({type_str!r}): bounds [{least}, {most}] must lie within [{DECIMAL_MIN}, {DECIMAL_MAX}] with "
            "min <= max"
        )
    return _excluding(
        st.decimals(min_value=least, max_value=most, places=places, allow_nan=False, allow_infinity=False), exclude
    )


def _array_strategy(t: str, type_str: str, bounds: dict[str, Any]) -> st.SearchStrategy:
    """Fixed and dynamic arrays of any item type."""
    inner, _, dim = t[:-1].rpartition("[")
    unique = bool(bounds.get("unique", False))
    # the other bounds are the items' (strategy("uint256[]", max_value=3): each item at most 3)
    items = {k: v for k, v in bounds.items() if k not in _BOUNDS["array"]}
    if dim:
        size = int(dim)
        if bounds.get("min_length") is not None or bounds.get("max_length") is not None:
            raise StrategyError(
                f"strategy({type_str!r}): a fixed array has exactly {size} items; min_length/max_length apply to "
                "dynamic arrays"
            )
        item = strategy(inner, **items)
        return _with_domain(
            st.lists(item, min_size=size, max_size=size, unique_by=_hashable if unique else None),
            None if unique else ArrayDomain(domain_of(item), size, size),
        )
    lo, hi = _length_bounds(type_str, bounds.get("min_length"), bounds.get("max_length"), 8)
    item = strategy(inner, **items)
    return _with_domain(
        st.lists(item, min_size=lo, max_size=hi, unique_by=_hashable if unique else None),
        None if unique else ArrayDomain(domain_of(item), lo, hi),
    )


def strategy(abi_type: str, **bounds: Any) -> st.SearchStrategy:
    """A Hypothesis strategy for values of an ABI type, shrinking toward zero / the first account.

    bytes and bytesN values are HexBytes, which print as 0x... . While a machine or test runs, integers, addresses and
    fixed-size bytes now and then take a value from the dictionary of values its contracts know
    (evmstate.search.dictionary): constants, values stored, returned or logged, addresses the contracts produced. Those
    draws shrink toward plain draws. address with length= draws only the first accounts.

    Bounds: min_value, max_value (ints or amounts such as "1 ether"), exclude (a value or a
    list of values), min_length / max_length (bytes, string, dynamic arrays), unique (arrays). An array takes its
    items' bounds too: strategy("uint256[]", max_value=3) draws lists of numbers up to 3.
    """
    if not isinstance(abi_type, str):
        raise StrategyError(f"strategy() takes an ABI type name such as 'uint256', got {abi_type!r}")
    type_str = abi_type
    t = "".join(abi_type.split())
    kind = _kind(t, type_str)
    takes = _allowed(t, kind, type_str)
    unknown = set(bounds) - takes
    if unknown:
        allowed = ", ".join(sorted(takes)) or "no bounds"
        raise StrategyError(
            f"strategy({type_str!r}): {', '.join(sorted(unknown))} does not apply to {t}; it takes {allowed}"
        )
    exclude = bounds.get("exclude")

    if kind == "int":
        return _int_strategy(t, type_str, bounds, exclude)
    if kind == "decimal":
        return _decimal_strategy(type_str, bounds, exclude)
    if kind == "bool":
        return _with_domain(_excluding(st.booleans(), exclude), BoolDomain(_excluded(exclude)))
    if kind == "address":
        return _address_strategy(type_str, bounds.get("length"), bounds.get("actors"), exclude)
    if kind == "bytesN":
        n = int(t[5:])
        plain = st.binary(min_size=n, max_size=n)
        return _with_domain(
            _excluding(mixed(plain, lambda d: d.fixed_bytes(n), _hex_drawer(plain)), exclude),
            BytesDomain(n, n, _excluded(exclude)),
        )
    if kind == "bytes":
        lo, hi = _length_bounds(type_str, bounds.get("min_length"), bounds.get("max_length"), 64)
        return _with_domain(
            _excluding(_hex_strategy(st.binary(min_size=lo, max_size=hi)), exclude),
            BytesDomain(lo, hi, _excluded(exclude)),
        )
    if kind == "string":
        lo, hi = _length_bounds(type_str, bounds.get("min_length"), bounds.get("max_length"), 64)
        alphabet = bounds.get("alphabet")
        chars = st.characters(codec="utf-8") if alphabet is None else alphabet
        # a shorter prefix keeps to the alphabet
        return _with_domain(
            _excluding(st.text(alphabet=chars, min_size=lo, max_size=hi), exclude), TextDomain(lo, _excluded(exclude))
        )
    if kind == "array":
        return _array_strategy(t, type_str, bounds)
    # tuple
    parts = _split_top(t[1:-1], type_str)
    members = [strategy(p) for p in parts]
    return _with_domain(_tuples(members), TupleDomain([domain_of(m) for m in members]))


def _hashable(value: Any) -> Any:
    """An item of an array as a key for unique: an item that is itself an array (a list) as a tuple, at any depth."""
    return tuple(_hashable(v) for v in value) if isinstance(value, (list, tuple)) else value


def _allowed(t: str, kind: str, type_str: str) -> set[str]:
    """The bounds strategy() takes for a type: an array's own (its length, unique) and those of its items (an item's
    min_value and max_value, exclude; not its length, which is the array's)."""
    if kind != "array":
        return _BOUNDS[kind]
    inner = t[:-1].rpartition("[")[0]
    return _BOUNDS["array"] | (_allowed(inner, _kind(inner, type_str), type_str) - _BOUNDS["array"])


def _tuples(members: list[st.SearchStrategy]) -> st.SearchStrategy:
    """st.tuples(*members), carrying its draw: member by member, as Hypothesis's tuples() draws (search.native)."""
    return drawn_by(st.tuples(*members), lambda draw: tuple(draw(m) for m in members))



def _with_domain(s: st.SearchStrategy, domain: Domain | None) -> st.SearchStrategy:
    s.evmstate_domain = domain  # type: ignore[attr-defined]
    return s
