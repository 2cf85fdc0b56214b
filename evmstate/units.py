"""Amounts as ints or strings such as "1 ether" or "10 gwei"."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from .errors import UnitError

UNITS = {
    "wei": 0,
    "kwei": 3,
    "babbage": 3,
    "mwei": 6,
    "lovelace": 6,
    "gwei": 9,
    "shannon": 9,
    "szabo": 12,
    "microether": 12,
    "finney": 15,
    "milliether": 15,
    "ether": 18,
}


def to_wei(amount: object, *, what: str = "amount") -> int:
    """Convert an int, a whole float or a string such as "1.5 ether" to an integer number of wei."""
    if isinstance(amount, bool):
        raise UnitError(f"{what}: expected an amount, got the bool {amount!r}")
    if isinstance(amount, int):
        return amount
    if isinstance(amount, float):
        if amount != amount or amount in (float("inf"), float("-inf")):
            raise UnitError(
                f'{what}: {amount!r} is not an amount; give a whole number of wei or a string such as "1 ether"'
            )
        if amount != int(amount):
            raise UnitError(
                f'{what}: {amount!r} is not a whole number of wei; write it as a string, e.g. "{amount} ether"'
            )
        return int(amount)
    if isinstance(amount, Decimal):
        if amount != amount.to_integral_value():
            raise UnitError(f"{what}: {amount!r} is not a whole number of wei")
        return int(amount)
    if isinstance(amount, str):
        text = amount.strip().lower()
        parts = text.split()
        if len(parts) == 1:
            number, unit = parts[0], "wei"
        elif len(parts) == 2:
            number, unit = parts
        else:
            raise UnitError(f'{what}: cannot read {amount!r}; write a number and a unit, e.g. "1 ether" or "10 gwei"')
        if unit not in UNITS:
            raise UnitError(
                f"{what}: unknown unit {unit!r} in {amount!r}; use one of "
                f"{', '.join(sorted(UNITS, key=UNITS.__getitem__))}"
            )
        try:
            value = Decimal(number) * (Decimal(10) ** UNITS[unit])
        except InvalidOperation:
            raise UnitError(f"{what}: {number!r} in {amount!r} is not a number") from None
        if not value.is_finite():
            raise UnitError(f"{what}: {number!r} in {amount!r} is not a finite number")
        if value != value.to_integral_value():
            raise UnitError(f"{what}: {amount!r} is not a whole number of wei")
        return int(value)
    raise UnitError(f"{what}: expected an int or a string such as \"1 ether\", got {type(amount).__name__} {amount!r}")


_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")


def duration_seconds(text: str) -> float | None:
    """Seconds in "30s", "10m", "1h", "1h30m" or "90" (seconds); None when text is not such a duration (or is none
    long)."""
    compact = text.strip().lower().replace(" ", "")
    pos, total = 0, 0.0
    while pos < len(compact):
        m = _DURATION_PART.match(compact, pos)
        if m is None or (not m.group(2) and m.end() != len(compact)):
            return None
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2) or "s"]
        pos = m.end()
    return total if compact and total > 0 else None
