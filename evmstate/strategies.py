"""strategy("uint256", ...): Hypothesis strategies from the ABI type grammar."""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from typing import Any, Sequence

from hypothesis import strategies as st

from .contracts.abi import DECIMAL_MAX, DECIMAL_MIN, DECIMAL_PLACES
from .contracts.address import checksum
from .contracts.api import active
from .errors import StrategyError, UnitError
from .search.dictionary import mixed
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
    "address": {"exclude", "length"},
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
            raise StrategyError(f"strategy({type_str!r}): {t} is not an ABI type; integer sizes run from 8 to 256 in steps of 8")
        return "int"
    m = _BYTES_N.match(t)
    if m:
        if not 1 <= int(m.group(1)) <= 32:
            raise StrategyError(f"strategy({type_str!r}): {t} is not an ABI type; fixed bytes run from bytes1 to bytes32")
        return "bytesN"
    if t in ("bool", "address", "bytes", "string", "decimal"):
        return t
    raise StrategyError(f"strategy({type_str!r}): unknown ABI type {t!r}. Allowed: {ALLOWED}")


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


def _length_bounds(type_str: str, min_length: Any, max_length: Any, cap: int | None) -> tuple[int, int | None]:
    lo = 0 if min_length is None else min_length
    hi = max_length
    for name, v in (("min_length", lo), ("max_length", hi)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise StrategyError(f"strategy({type_str!r}): {name} must be a non-negative integer, got {v!r}")
    if hi is not None and lo > hi:
        raise StrategyError(f"strategy({type_str!r}): min_length {lo} is greater than max_length {hi}")
    if cap is not None and hi is None:
        hi = max(cap, lo)
    return lo, hi


@functools.lru_cache(maxsize=256)
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(min_value=0, max_value=n - 1)


def _account_drawer(length: int | None) -> Any:
    """draw -> one of the active project's accounts (the first length of them), by one index choice."""

    def draw_account(draw: Any) -> Any:
        accounts = active().accounts
        n = len(accounts) if length is None else min(length, len(accounts))
        return accounts[draw(_index(n))]

    return draw_account


def _accounts_strategy(length: int | None) -> st.SearchStrategy:
    draw_account = _account_drawer(length)
    strategy = st.composite(draw_account)()
    strategy.evmstate_draw = draw_account  # its one choice, made by whoever draws it (search.native)
    return strategy


def _hex_drawer(plain: st.SearchStrategy) -> Any:
    """draw -> plain's value as HexBytes: the same choices as plain, the value converted once drawn."""

    def draw_hex(draw: Any) -> HexBytes:
        return HexBytes(draw(plain))

    return draw_hex


def _hex_strategy(plain: st.SearchStrategy) -> st.SearchStrategy:
    draw_hex = _hex_drawer(plain)
    strategy = st.composite(draw_hex)()
    strategy.evmstate_draw = draw_hex  # a machine draws it inside its step's draw, as it drew plain before
    return strategy


def _produced_addresses(d: Any) -> tuple[list[str], ...]:
    # checksummed once per change of the dictionary, not on every draw
    return d.memo("checksummed addresses", lambda: tuple([checksum(a) for a in pool] for pool in d.produced_addresses()))


def strategy(abi_type: str, **bounds: Any) -> st.SearchStrategy:
    """A Hypothesis strategy for values of an ABI type, shrinking toward zero / the first account.

    bytes and bytesN values are HexBytes, which print as 0x... . While a machine or test runs, integers, addresses and fixed-size bytes now and then take a
    value from the dictionary of values its contracts know (evmstate.search.dictionary): constants,
    values stored, returned or logged, addresses the contracts produced. Those draws shrink
    toward plain draws. address with length= draws only the first accounts.

    Bounds: min_value, max_value (ints or amounts such as "1 ether"), exclude (a value or a
    list of values), min_length / max_length (bytes, string, dynamic arrays), unique (arrays).
    """
    if not isinstance(abi_type, str):
        raise StrategyError(f"strategy() takes an ABI type name such as 'uint256', got {abi_type!r}")
    type_str = abi_type
    t = "".join(abi_type.split())
    kind = _kind(t, type_str)
    unknown = set(bounds) - _BOUNDS[kind]
    if unknown:
        allowed = ", ".join(sorted(_BOUNDS[kind])) or "no bounds"
        raise StrategyError(f"strategy({type_str!r}): {', '.join(sorted(unknown))} does not apply to {t}; it takes {allowed}")
    exclude = bounds.get("exclude")

    if kind == "int":
        lo, hi = _int_bounds(t)
        min_v = lo if bounds.get("min_value") is None else _amount(bounds["min_value"], "min_value", type_str)
        max_v = hi if bounds.get("max_value") is None else _amount(bounds["max_value"], "max_value", type_str)
        if min_v < lo or max_v > hi:
            raise StrategyError(f"strategy({type_str!r}): bounds [{min_v}, {max_v}] are outside {t}'s range [{lo}, {hi}]")
        if min_v > max_v:
            raise StrategyError(f"strategy({type_str!r}): min_value {min_v} is greater than max_value {max_v}")
        return _with_domain(_excluding(mixed(st.integers(min_value=min_v, max_value=max_v), lambda d: d.ints_between(min_v, max_v)), exclude), IntDomain(min_v, max_v, _excluded(exclude)))
    if kind == "decimal":
        places = bounds.get("places", DECIMAL_PLACES)
        if not isinstance(places, int) or not 0 <= places <= DECIMAL_PLACES:
            raise StrategyError(f"strategy({type_str!r}): places must be an integer from 0 to {DECIMAL_PLACES}")
        min_v = Decimal(str(bounds.get("min_value", DECIMAL_MIN)))
        max_v = Decimal(str(bounds.get("max_value", DECIMAL_MAX)))
        if min_v < DECIMAL_MIN or max_v > DECIMAL_MAX or min_v > max_v:
            raise StrategyError(f"strategy({type_str!r}): bounds [{min_v}, {max_v}] must lie within [{DECIMAL_MIN}, {DECIMAL_MAX}] with min <= max")
        return _excluding(st.decimals(min_value=min_v, max_value=max_v, places=places, allow_nan=False, allow_infinity=False), exclude)
    if kind == "bool":
        return _with_domain(_excluding(st.booleans(), exclude), BoolDomain(_excluded(exclude)))
    if kind == "address":
        length = bounds.get("length")
        if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 1):
            raise StrategyError(f"strategy({type_str!r}): length must be a positive number of accounts, got {length!r}")
        domain = AddressDomain(length, _excluded(exclude))
        if length is not None:  # the first accounts only, as asked
            return _with_domain(_excluding(_accounts_strategy(length), exclude), domain)
        return _with_domain(_excluding(mixed(_accounts_strategy(None), _produced_addresses, _account_drawer(None)), exclude), domain)
    if kind == "bytesN":
        n = int(t[5:])
        plain = st.binary(min_size=n, max_size=n)
        return _with_domain(_excluding(mixed(plain, lambda d: d.fixed_bytes(n), _hex_drawer(plain)), exclude), BytesDomain(n, n, _excluded(exclude)))
    if kind == "bytes":
        lo, hi = _length_bounds(type_str, bounds.get("min_length"), bounds.get("max_length"), 64)
        return _with_domain(_excluding(_hex_strategy(st.binary(min_size=lo, max_size=hi)), exclude), BytesDomain(lo, hi, _excluded(exclude)))
    if kind == "string":
        lo, hi = _length_bounds(type_str, bounds.get("min_length"), bounds.get("max_length"), 64)
        alphabet = bounds.get("alphabet")
        chars = st.characters(codec="utf-8") if alphabet is None else alphabet
        # a shorter prefix keeps to the alphabet
        return _with_domain(_excluding(st.text(alphabet=chars, min_size=lo, max_size=hi), exclude), TextDomain(lo, _excluded(exclude)))
    if kind == "array":
        inner, _, dim = t[:-1].rpartition("[")
        unique = bool(bounds.get("unique", False))
        if dim:
            size = int(dim)
            if bounds.get("min_length") is not None or bounds.get("max_length") is not None:
                raise StrategyError(f"strategy({type_str!r}): a fixed array has exactly {size} items; min_length/max_length apply to dynamic arrays")
            item = strategy(inner)
            return _with_domain(st.lists(item, min_size=size, max_size=size, unique=unique), None if unique else ArrayDomain(domain_of(item), size, size))
        lo, hi = _length_bounds(type_str, bounds.get("min_length"), bounds.get("max_length"), 8)
        item = strategy(inner)
        return _with_domain(st.lists(item, min_size=lo, max_size=hi, unique=unique), None if unique else ArrayDomain(domain_of(item), lo, hi))
    # tuple
    parts = _split_top(t[1:-1], type_str)
    members = [strategy(p) for p in parts]
    return _with_domain(_tuples(members), TupleDomain([domain_of(m) for m in members]))


def _tuples(members: list[st.SearchStrategy]) -> st.SearchStrategy:
    """st.tuples(*members), carrying its draw: member by member, as Hypothesis's tuples() draws (search.native)."""
    tuples = st.tuples(*members)
    tuples.evmstate_draw = lambda draw: tuple(draw(m) for m in members)
    return tuples



# -- shrinking recorded values ---------------------------------------------------------
#
# The shrinker (engine/shrink/passes.py) minimizes a failing program's arguments on the program itself,
# as recorded (failures.encode_value: ints, bools and strings as they are, {"bytes": hex},
# {"account": i}, {"address": hex}, {"decimal": str}, {"tuple": [...]}, lists). A strategy made
# by strategy() carries its Domain as `evmstate_domain`: which values it may draw, so that every
# smaller value tried is one the strategy could have drawn. Strategies without a domain (plain
# Hypothesis ones) are left to Hypothesis's own shrinking.


class Domain:
    """The values a strategy() draws, and how to make one smaller while the program still fails."""

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        """The smallest value found from value for which fails(value) holds (fails(value) itself holds).

        fails(v, repair=True) may also adjust later steps' arguments to fit v (the shrinker's
        comparison repair); it is asked that way for the few values tried first. hints: numbers
        the contracts know (their constants), tried before bisecting.
        """
        return value

    def key(self) -> Any:
        """Equal for domains that draw the same values (two rules' strategy("address")): their equal values shrink together."""
        return id(self)


# numbers from the bound up that a number's shrinking tries one by one before it bisects
SMALL_TRIED = 16


class IntDomain(Domain):
    """Integers in [lo, hi], less those excluded: toward 0 (or the bound nearest it), then the least that fails."""

    def __init__(self, lo: int, hi: int, excluded: tuple[Any, ...] = ()) -> None:
        self.lo, self.hi, self.excluded = lo, hi, excluded

    def key(self) -> Any:
        return ("int", self.lo, self.hi, repr(self.excluded))

    def contains(self, v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and self.lo <= v <= self.hi and v not in self.excluded

    @property
    def target(self) -> int:
        """The value shrinking goes toward: 0, or the bound nearest it."""
        return min(max(0, self.lo), self.hi)

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not self.contains(value):
            return value
        target = self.target
        if value == target:
            return value
        # the bound itself and its neighbour, then the contracts' own numbers between it and
        # value (a minimum price, a cap), by bisection among them: where the failure needs a
        # number the contract compares against, one of them is the least that fails
        for simple in (target, target + (1 if value > target else -1)):
            if simple != value and self.contains(simple) and fails(simple, repair=True):
                return simple
        between = sorted((h for h in hints if min(target, value) < h < max(target, value) and self.contains(h)), key=lambda h: abs(h - target))
        good, bad = -1, len(between)
        while bad - good > 1:
            middle = (good + bad) // 2
            if fails(between[middle], repair=True):
                bad = middle
            else:
                good = middle
        if bad < len(between):
            value = between[bad]
        # the least that still fails between target and value (failing is taken as monotone there,
        # so when the value next to it does not fail, it is the least: a hash, an id, an exact sum)
        sign = 1 if value > target else -1
        # a few small values first: where failing is not monotone (a parity, a route), one may fail
        for small in range(2, min(SMALL_TRIED, abs(value - target))):
            candidate = target + sign * small
            if self.contains(candidate) and fails(candidate):
                return self.minimize(candidate, fails)
        if abs(value - target) > 1 and not (self.contains(value - sign) and fails(value - sign)):
            return value
        good, bad = 0, abs(value - target)  # distances from target: good does not fail, bad does
        while bad - good > 1:
            middle = (good + bad) // 2
            candidate = target + sign * middle
            if self.contains(candidate) and fails(candidate):
                bad = middle
            else:
                good = middle
        return target + sign * bad


class BoolDomain(Domain):
    def __init__(self, excluded: tuple[Any, ...] = ()) -> None:
        self.excluded = excluded

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if value is True and False not in self.excluded and fails(False):
            return False
        return value


class AddressDomain(Domain):
    """An account (by index), or an address the dictionary gave: toward the first account."""

    def __init__(self, length: int | None, excluded: tuple[Any, ...] = ()) -> None:
        self.length, self.excluded = length, excluded

    def key(self) -> Any:
        return ("address", self.length, repr(self.excluded))

    def allows(self, index: int) -> bool:
        """Whether the strategy draws accounts[index]."""
        accounts = active().accounts
        if not 0 <= index < (len(accounts) if self.length is None else min(self.length, len(accounts))):
            return False
        return not any(str(x).lower() == accounts[index].address.lower() for x in self.excluded)

    def word_of(self, value: Any) -> int | None:
        """A recorded address value ({"account": i}, {"address": hex} or a hex string) as the word it is in calldata."""
        if isinstance(value, dict) and isinstance(value.get("account"), int):
            return int.from_bytes(active().accounts[value["account"]].raw_address, "big")
        text = value.get("address") if isinstance(value, dict) else value
        if isinstance(text, str) and text.startswith("0x") and len(text) == 42:
            return int(text, 16)
        return None

    def value_of(self, word: int) -> Any:
        """The recorded value this strategy could have drawn for an address word: an account, or (without length=) an address the
        contracts produced, written as they are; None for a word that is neither (a precompile's, zero)."""
        for i, account in enumerate(active().accounts):
            if int.from_bytes(account.raw_address, "big") == word:
                return {"account": i} if self.allows(i) else None
        if self.length is not None or not 0xFFFF < word < 2**160:
            return None
        address = checksum(word.to_bytes(20, "big"))
        return None if any(str(x).lower() == address.lower() for x in self.excluded) else address

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, dict):
            return value
        current = value.get("account")
        count = active().accounts.__len__()
        last = count if self.length is None else min(self.length, count)
        upto = last if current is None else current
        for i in range(upto):
            candidate = {"account": i}
            if self.excluded and any(str(x).lower() == active().accounts[i].address.lower() for x in self.excluded):
                continue
            if fails(candidate):
                return candidate
        return value


class BytesDomain(Domain):
    """Byte strings of lengths [lo, hi] (fixed for bytesN): shorter, then zeros."""

    def __init__(self, lo: int, hi: int | None, excluded: tuple[Any, ...] = ()) -> None:
        self.lo, self.hi, self.excluded = lo, hi, excluded

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, dict) or "bytes" not in value:
            return value
        data = bytes.fromhex(value["bytes"])

        def ok(b: bytes) -> bool:
            return b not in self.excluded and fails({"bytes": b.hex()}, repair=False)

        # shortest prefix that still fails, then each byte toward zero as a whole
        if len(data) > self.lo and ok(data[: self.lo]):
            data = data[: self.lo]
        else:
            good, bad = self.lo, len(data)
            while bad - good > 1:
                middle = (good + bad) // 2
                if ok(data[:middle]):
                    bad = middle
                else:
                    good = middle
            data = data[:bad]
        zeros = bytes(len(data))
        if data != zeros and ok(zeros):
            data = zeros
        elif data:
            # the least that still fails, read as a big-endian number of the same width (a salt of 0x..01)
            n = len(data)
            least = IntDomain(0, 2 ** (8 * n) - 1).minimize(int.from_bytes(data, "big"), lambda v, repair=False: ok(v.to_bytes(n, "big")))
            data = least.to_bytes(n, "big")
        return {"bytes": data.hex()}


class TextDomain(Domain):
    """Strings of lengths [lo, hi]: the shortest prefix that still fails."""

    def __init__(self, lo: int, excluded: tuple[Any, ...] = ()) -> None:
        self.lo, self.excluded = lo, excluded

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, str):
            return value
        bad = len(value)
        if self.lo <= len(value) and value[: self.lo] not in self.excluded and fails(value[: self.lo]):
            return value[: self.lo]
        good = self.lo
        while bad - good > 1:
            middle = (good + bad) // 2
            if value[:middle] not in self.excluded and fails(value[:middle]):
                bad = middle
            else:
                good = middle
        return value[:bad]


class ArrayDomain(Domain):
    """Lists of an inner domain's values, of lengths [lo, hi]: fewer items, then each item smaller."""

    def __init__(self, inner: Domain | None, lo: int, hi: int | None) -> None:
        self.inner, self.lo, self.hi = inner, lo, hi

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, list):
            return value
        items = list(value)
        index = len(items) - 1
        while index >= 0 and len(items) > self.lo:  # each item removed, last first
            candidate = items[:index] + items[index + 1 :]
            if fails(candidate):
                items = candidate
            index = min(index - 1, len(items) - 1)
        if self.inner is not None:
            for i in range(len(items)):
                items[i] = self.inner.minimize(items[i], lambda v, repair=False, i=i: fails(items[:i] + [v] + items[i + 1 :], repair=repair), hints)
        return items


class TupleDomain(Domain):
    """Tuples of members' domains: each member smaller in turn."""

    def __init__(self, members: list[Domain | None]) -> None:
        self.members = members

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, dict) or "tuple" not in value:
            return value
        items = list(value["tuple"])
        for i, domain in enumerate(self.members):
            if domain is not None and i < len(items):
                items[i] = domain.minimize(items[i], lambda v, repair=False, i=i: fails({"tuple": items[:i] + [v] + items[i + 1 :]}, repair=repair), hints)
        return {"tuple": items}


# Hypothesis's own integers() and booleans(), as their repr() writes them (with no filter or map)
_PLAIN_INTEGERS = re.compile(r"^integers\((?:min_value=(-?[\d_]+))?(?:, )?(?:max_value=(-?[\d_]+))?\)$")


def domain_of(strategy: Any) -> Domain | None:
    """The Domain a strategy() carries; for Hypothesis's plain integers() and booleans(), one read from their repr; else None."""
    found = getattr(strategy, "evmstate_domain", None)
    if found is not None or strategy is None:
        return found
    try:
        shown = repr(strategy)
    except Exception:
        return None
    if shown == "booleans()":
        return BoolDomain()
    m = _PLAIN_INTEGERS.match(shown)
    if m is None:
        return None
    lo = int(m.group(1).replace("_", "")) if m.group(1) else -(2**256)
    hi = int(m.group(2).replace("_", "")) if m.group(2) else 2**256
    return IntDomain(lo, hi)


def _with_domain(s: st.SearchStrategy, domain: Domain | None) -> st.SearchStrategy:
    s.evmstate_domain = domain  # type: ignore[attr-defined]
    return s
