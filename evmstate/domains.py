"""The values a strategy() may draw, as the shrinker sees them: a failing program's recorded arguments made smaller
within them.

The shrinker (engine/shrink/passes.py) minimizes a failing program's arguments on the program itself,
as recorded (failures.encode_value: ints, bools and strings as they are, {"bytes": hex},
{"account": i}, {"address": hex}, {"decimal": str}, {"tuple": [...]}, lists). A strategy made
by strategy() carries its Domain as `evmstate_domain`: which values it may draw, so that every
smaller value tried is one the strategy could have drawn. Strategies without a domain (plain
Hypothesis ones) are left to Hypothesis's own shrinking.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from .contracts.address import checksum
from .contracts.api import active


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
        """Equal for domains that draw the same values (two rules' strategy("address")): their equal values shrink
        together."""
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

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = (), near: int | None = None) -> Any:
        """As Domain.minimize; near: a value between the target and value that the least is expected at or above (where
        the shrinker's scaling left the number, or the least it found before another number moved): after the bound,
        the contracts' numbers and the value next to value, near is tried, and where it does not fail the least is
        bisected between it and value, a few replays where a bisection from the bound costs the number's bit length."""
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
        between = sorted(
            (h for h in hints if min(target, value) < h < max(target, value) and self.contains(h)),
            key=lambda h: abs(h - target),
        )
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
        # a few small values first: where failing is not monotone (a parity, a route), one may fail; not where one of
        # the contracts' numbers above them did not fail (the bisection among them took failing as monotone already)
        # (nor where near is given: failing is taken as monotone above it)
        floor = abs(near - target) if near is not None and (near - target) * sign > 0 else None
        floor = floor if floor is not None and floor < abs(value - target) - 1 else None
        smalls = 0 if floor is not None or good >= 0 and abs(between[good] - target) >= SMALL_TRIED else SMALL_TRIED
        for small in range(2, min(smalls, abs(value - target))):
            candidate = target + sign * small
            if self.contains(candidate) and fails(candidate):
                return candidate  # every value below it was tried above and did not fail
        if abs(value - target) > 1 and not (self.contains(value - sign) and fails(value - sign)):
            return value
        good, bad = 0, abs(value - target)  # distances from target: good does not fail, bad does
        if floor is not None:
            if self.contains(target + sign * floor) and fails(target + sign * floor):
                bad = floor  # the least is below near after all: bisected from the bound below it
            else:
                good = floor
        # the least failing distance's bit length first, by bisection over the powers of two between good and bad: a
        # number drawn near 2**80 whose least is 1003 costs 7 + 10 replays where bisecting the distance itself costs 80
        powers = [1 << k for k in range(good.bit_length(), bad.bit_length()) if good < 1 << k < bad]
        low, high = -1, len(powers)  # powers[high] fails (high == len: bad itself), powers[low] does not
        while high - low > 1:
            middle = (low + high) // 2
            candidate = target + sign * powers[middle]
            if self.contains(candidate) and fails(candidate):
                high = middle
            else:
                low = middle
        good, bad = (powers[low] if low >= 0 else good), (powers[high] if high < len(powers) else bad)
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

    def __init__(self, length: int | None, excluded: tuple[Any, ...] = (), actors: Any = None) -> None:
        self.length, self.excluded = length, excluded
        self.actors = actors  # as strategy("address", actors=...) gave it: None, a bool, or kinds

    def key(self) -> Any:
        return ("address", self.length, repr(self.excluded), self.actors)

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
        if isinstance(value, dict) and value.get("actor") in active().accounts.actors:
            return int.from_bytes(active().accounts.actors[value["actor"]].raw_address, "big")
        text = value.get("address") if isinstance(value, dict) else value
        if isinstance(text, str) and text.startswith("0x") and len(text) == 42:
            return int(text, 16)
        return None

    def value_of(self, word: int) -> Any:
        """The recorded value this strategy could have drawn for an address word: an account, or (without length=) an
        address the contracts produced, written as they are; None for a word that is neither (a precompile's, zero)."""
        accounts = active().accounts
        for i, account in enumerate(accounts):
            if int.from_bytes(account.raw_address, "big") == word:
                return {"account": i} if self.allows(i) else None
        for actor in accounts.actors.values():
            if int.from_bytes(actor.raw_address, "big") == word:
                return {"actor": actor.kind} if self.length is None and actor in accounts.pool(self.actors) else None
        if self.length is not None or not 0xFFFF < word < 2**160:
            return None
        address = checksum(word.to_bytes(20, "big"))
        return None if any(str(x).lower() == address.lower() for x in self.excluded) else address

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, (dict, str)):
            return value
        # an address the dictionary gave is recorded as its text: every account is tried in its place
        current = value.get("account") if isinstance(value, dict) else None
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


def _deleted(items: Any, lo: int, fails: Any) -> Any:
    """items (a list, bytes or str) with runs of its items deleted while fails(shorter) and at least lo are left: runs
    of half its length, a quarter, ..., one, each from the end first (as the shrinker deletes steps)."""
    size = max(1, len(items) // 2)
    while size >= 1:
        start = len(items) - size
        while start >= 0 and len(items) - size >= lo:
            candidate = items[:start] + items[start + size :]
            if fails(candidate):
                items = candidate
            start = min(start - size, len(items) - size)
        size //= 2
    return items


class BytesDomain(Domain):
    """Byte strings of lengths [lo, hi] (fixed for bytesN): shorter (a prefix, then runs of bytes deleted anywhere),
    then zeros."""

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
        # a byte that matters may stand anywhere (a 6-bit group a base64 table maps wrong): the shortest suffix, then
        # runs deleted from inside too
        data = next((data[k:] for k in range(len(data) - 1, 0, -1) if len(data) - k >= self.lo and ok(data[k:])), data)
        data = _deleted(data, self.lo, ok)
        zeros = bytes(len(data))
        if data != zeros and ok(zeros):
            data = zeros
        elif data:
            # the least that still fails, read as a big-endian number of the same width (a salt of 0x..01)
            n = len(data)
            least = IntDomain(0, 2 ** (8 * n) - 1).minimize(
                int.from_bytes(data, "big"), lambda v, repair=False: ok(v.to_bytes(n, "big"))
            )
            data = least.to_bytes(n, "big")
            if self.lo != self.hi:
                # where failing is not monotone in the number (a byte of a string a table maps), each byte alone
                # toward zero, the first first: the least read byte by byte, as Hypothesis orders byte strings
                for i in range(n):
                    if data[i]:
                        byte = IntDomain(0, 255).minimize(
                            data[i], lambda v, repair=False, i=i: ok(data[:i] + bytes([v]) + data[i + 1 :])
                        )
                        data = data[:i] + bytes([byte]) + data[i + 1 :]
        return {"bytes": data.hex()}


class TextDomain(Domain):
    """Strings of lengths [lo, hi]: the shortest prefix that still fails, then runs of characters deleted anywhere."""

    def __init__(self, lo: int, excluded: tuple[Any, ...] = ()) -> None:
        self.lo, self.excluded = lo, excluded

    def minimize(self, value: Any, fails: Any, hints: Sequence[int] = ()) -> Any:
        if not isinstance(value, str):
            return value
        bad = len(value)

        def ok(text: str) -> bool:
            return text not in self.excluded and fails(text)

        if self.lo <= len(value) and ok(value[: self.lo]):
            return value[: self.lo]
        good = self.lo
        while bad - good > 1:
            middle = (good + bad) // 2
            if ok(value[:middle]):
                bad = middle
            else:
                good = middle
        return _deleted(value[:bad], self.lo, ok)


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
                items[i] = self.inner.minimize(
                    items[i], lambda v, repair=False, i=i: fails(items[:i] + [v] + items[i + 1 :], repair=repair), hints
                )
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
                items[i] = domain.minimize(
                    items[i],
                    lambda v, repair=False, i=i: fails({"tuple": items[:i] + [v] + items[i + 1 :]}, repair=repair),
                    hints,
                )
        return {"tuple": items}


# Hypothesis's own integers() and booleans(), as their repr() writes them (with no filter or map)
_PLAIN_INTEGERS = re.compile(r"^integers\((?:min_value=(-?[\d_]+))?(?:, )?(?:max_value=(-?[\d_]+))?\)$")


def domain_of(strategy: Any) -> Domain | None:
    """The Domain a strategy() carries; for Hypothesis's plain integers() and booleans(), one read from their repr; else
    None."""
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
