"""An exact cache of read-only calls, shared by the backends.

A view call (a STATICCALL with no value: every invariant's getter) writes nothing, so what it
returns depends only on the call itself and on what it read: storage slots, the accounts it
touched (balance, nonce, code) and, when its code asks for them, the block's time and number.
A backend records those reads while such a call runs and keeps the result with them; the same
call (sender, address, calldata, gas) returns the kept result while every read value is still
what it was. Checking is by value, so a write to a slot it read, a snapshot revert that changes
one, time travel its code depends on or new code at an address it touched each make it run
again, and nothing needs to be told about any of them.

A hit is the call's result as it ran: the same output, gas, revert data and frames. When
coverage is recorded, the branches and jumps the call took are kept with it and recorded again
on each hit, and an observer sees the same storage reads, so coverage reports, guidance and
the dictionary see exactly what they would if it ran. In check mode ("check") every hit runs
as well and a difference is an internal error (CallCacheMismatch).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from .base import ExecResult
from ..files import Bounded

MODES = ("on", "off", "check")
# entries kept before the cache starts again (each holds one result and the values it read)
LIMIT = 20_000

# the opcodes whose result depends on the block, and on an account's balance or emptiness
BLOCK_OPCODES = frozenset({0x40, 0x42, 0x43})  # BLOCKHASH, TIMESTAMP, NUMBER
BALANCE_OPCODES = frozenset({0x31, 0x3F, 0x47})  # BALANCE, EXTCODEHASH, SELFBALANCE
CALL_OPCODES = frozenset({0xF1, 0xF2, 0xF4, 0xFA})  # CALL, CALLCODE, DELEGATECALL, STATICCALL


class CallCacheMismatch(AssertionError):
    """Raised in check mode when a cached result differs from the call run again: a bug in evmstate, never in the
    contract.
    """


@dataclass(frozen=True)
class Entry:
    """One read-only call's result and everything it read, with the values it read."""

    result: ExecResult  # as call() returns it without an observer
    observed: ExecResult  # the same, carrying the storage reads an observer is shown
    storage: tuple[tuple[bytes, int, int], ...]  # (address, slot, value), each slot once
    accounts: tuple[tuple[bytes, Any], ...]  # (address, the account's state as the backend compares it)
    block: tuple[int, int] | None  # (timestamp, number) when the code read either
    coverage: dict[bytes, frozenset[int]] | None  # what the call added to coverage, when recorded


@dataclass
class Reads:
    """What calls read while a backend recorded it: each slot's first value, the accounts, whether the block."""

    storage: dict[tuple[bytes, int], int] = dataclasses.field(default_factory=dict)
    accounts: set[bytes] = dataclasses.field(default_factory=set)
    block: bool = False


class ReadCache:
    """Read-only calls' results by (sender, address, calldata, gas), each valid while what it read is unchanged."""

    def __init__(self, mode: str = "on", limit: int = LIMIT) -> None:
        if mode not in MODES:
            raise ValueError(f"call cache mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.check = mode == "check"
        self.limit = limit
        self.entries: dict[tuple[Any, ...], Entry] = {}
        self.hits = 0
        self.misses = 0

    def find(self, key: tuple[Any, ...], unchanged: Callable[[Entry], bool]) -> Entry | None:
        """The entry for key when everything it read is unchanged (unchanged(entry)), else None."""
        entry = self.entries.get(key)
        if entry is not None and unchanged(entry):
            self.hits += 1
            return entry
        self.misses += 1
        return None

    def keep(self, key: tuple[Any, ...], entry: Entry) -> None:
        entries = self.entries
        if len(entries) >= self.limit and key not in entries:
            entries.clear()
        entries[key] = entry

    def clear(self) -> None:
        self.entries.clear()


def entry(
    result: ExecResult,
    reads: list[tuple[bytes, int, int]],
    accounts: tuple[tuple[bytes, Any], ...],
    block: tuple[int, int] | None,
    coverage: dict[bytes, set[int]] | None,
) -> Entry:
    """An entry for a call that ran: result as returned without an observer, its storage reads in order."""
    observed = dataclasses.replace(result, storage_reads=tuple(reads)) if reads else result
    storage = tuple((a, s, v) for (a, s), v in {(a, s): v for a, s, v in reads}.items())
    kept = None if coverage is None else {k: frozenset(v) for k, v in coverage.items()}
    return Entry(result, observed, storage, accounts, block, kept)


def replay_coverage(kept: dict[bytes, frozenset[int]], hits: dict[bytes, set[int]]) -> None:
    """Record a cached call's branches and jumps again, as running it would."""
    for key, seen in kept.items():
        known = hits.get(key)
        if known is None:
            hits[key] = set(seen)
        else:
            known |= seen


def compare(
    cached: ExecResult, fresh: ExecResult, key: tuple[Any, ...], cached_coverage: Any = None, fresh_coverage: Any = None
) -> None:
    """Raise CallCacheMismatch when a cached result (or its coverage) is not what running the call gave."""
    if fresh.error == "timeout":
        return  # the run again was stopped by the time limit: nothing to compare
    if cached == fresh and cached_coverage == fresh_coverage:
        return
    sender, to, data = key[0], key[1], key[2]
    fields = [
        f.name
        for f in dataclasses.fields(ExecResult)
        if f.compare and getattr(cached, f.name) != getattr(fresh, f.name)
    ]
    if cached_coverage != fresh_coverage:
        fields.append("coverage")
    raise CallCacheMismatch(
        f"the call cache returned a result that differs from running the call (fields: {', '.join(fields)}): "
        f"call from 0x{sender.hex()} to 0x{to.hex()} with calldata 0x{data.hex()[:80]}; "
        f'cached {cached!r}, ran {fresh!r}. This is a bug in evmstate: set [fuzz] call_cache = "off" to run without '
        'the cache.'
    )


_PUSH1, _PUSH32 = 0x60, 0x7F
# after these the next instruction runs only as a jump's destination: STOP, JUMP, RETURN, REVERT, INVALID, SELFDESTRUCT
_HALTS = frozenset({0x00, 0x56, 0xF3, 0xFD, 0xFE, 0xFF})
_JUMPDEST = 0x5B
# code -> (the opcodes it holds, those it can run, where a jump may land): one walk gives the three
_opcodes_of: Bounded[bytes, tuple[frozenset[int], frozenset[int], frozenset[int]]] = Bounded(1025)


def _walk(code: bytes) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    found = _opcodes_of.get(code)
    if found is None:
        held: set[int] = set()
        runnable: set[int] = set()
        dests: list[int] = []
        i, n, live = 0, len(code), True
        while i < n:
            op = code[i]
            held.add(op)
            if op == _JUMPDEST:
                live = True
                dests.append(i)
            if live:
                runnable.add(op)
                live = op not in _HALTS
            i += op - _PUSH1 + 2 if _PUSH1 <= op <= _PUSH32 else 1
        found = (frozenset(held), frozenset(runnable), frozenset(dests))
        _opcodes_of[code] = found
    return found


def opcodes(code: bytes) -> frozenset[int]:
    """The opcodes code holds, push data skipped (remembered per code)."""
    return _walk(code)[0]


def jump_destinations(code: bytes) -> frozenset[int]:
    """Where a JUMP or JUMPI may land in code: its JUMPDESTs outside PUSH data (remembered per code; py-evm's own code
    stream finds them again in every frame, scanning back from each target)."""
    return _walk(code)[2]


def runnable_opcodes(code: bytes) -> frozenset[int]:
    """The opcodes code can run: those it holds (opcodes()) less those between a halt or JUMP and the next JUMPDEST,
    which nothing reaches (such as the data a compiler puts after the code; a jump lands on a JUMPDEST only)."""
    return _walk(code)[1]
