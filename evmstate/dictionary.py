"""Values the contract knows, for strategy() draws to mix in.

Blind random draws almost never produce the exact number a contract compares against, the
value it stored a call earlier, or an address it derived. The dictionary holds them: the
integer literals of the contracts' sources (and their neighbours, for `<` and `>`), the
constants their code pushes, and what the contracts did in this run so far: values written to
and read from storage, return values, event topics and data, addresses created. It starts each
run from what the machine's __init__ left (a fixed set), so its content is a function of the
run's own earlier choices: shrinking, the example database and --seed stay exact. Values carried
from one run to the next would not be.

A draw from the dictionary is recorded as the concrete value it produced, so printed programs
and replays never depend on it; it shrinks toward a plain draw, then toward the smallest value
in the dictionary.
"""

from __future__ import annotations

import bisect
import contextlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from .coverage import JUMP, JUMPI, JUMPDEST, instructions

if TYPE_CHECKING:
    from .backend import ExecResult
    from .compiler import Artifact

# integer literals in Vyper source: decimal (with _ separators), hex, binary and octal
_LITERAL = re.compile(r"(?<![\w.])(0x[0-9a-fA-F_]+|0b[01_]+|0o[0-7_]+|\d[\d_]*)(?![\w.])")
# how many observed values one run keeps: past it, later values are not added
MAX_OBSERVED = 4096
WORD = 2**256
# a word this size or more and below 2**160 is taken for an address (a derived address has a
# non-zero byte in its top 5 bytes with overwhelming odds; small numbers are not addresses)
ADDRESS_MIN = 2**120
ADDRESS_LIMIT = 2**160


def source_literals(text: str) -> set[int]:
    """Every integer literal written in a Vyper source, comments included."""
    found = set()
    for m in _LITERAL.finditer(text):
        try:
            found.add(int(m.group(1).replace("_", ""), 0))
        except ValueError:
            continue
    return found


def code_constants(code: bytes) -> set[int]:
    """The values code pushes, except jump destinations."""
    ops = instructions(code)
    dests = {pc for pc, op, _ in ops if op == JUMPDEST}
    found = set()
    for i, (pc, op, value) in enumerate(ops):
        if value is None:
            continue
        nxt = ops[i + 1][1] if i + 1 < len(ops) else None
        if nxt in (JUMP, JUMPI) or value in dests:
            continue
        found.add(value)
    return found


def artifact_constants(artifact: "Artifact") -> set[int]:
    """A contract's constants: its sources' literals and their neighbours, and its code's pushed values."""
    values = code_constants(artifact.bytecode_runtime) | code_constants(artifact.bytecode)
    paths = {artifact.path, *artifact.sources.values()}
    for path in paths:
        try:
            literals = source_literals(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        for v in literals:
            values.update((v - 1, v, v + 1, -v))
    return {v for v in values if -WORD // 2 <= v < WORD}


class Dictionary:
    """One machine's (or test's) dictionary: fixed values, then what each run observes."""

    def __init__(self, weight: float, accounts: Iterable[bytes] = (), has_code: Callable[[bytes], bool] | None = None) -> None:
        self.weight = weight
        self.threshold = 100 - round(weight * 100)  # a gate draw of 0..99 at or above it uses the dictionary
        self._accounts = set(accounts)
        self._has_code = has_code or (lambda address: False)
        self._base_ints: set[int] = set()
        self._base_addresses: dict[bytes, None] = {}
        self.ints: list[int] = []  # sorted
        self.addresses: list[bytes] = []  # in the order seen
        self._seen: set[int] = set()
        self._observed = 0
        self._bytes: dict[int, list[bytes]] = {}
        self.artifact_of: Callable[[bytes], "Artifact | None"] = lambda address: None
        self._artifacts: set[str] = set()
        self.reset()

    # -- content -----------------------------------------------------------------------

    def add_artifact(self, artifact: "Artifact") -> None:
        """Add a contract's constants to the fixed part."""
        if artifact.name in self._artifacts:
            return
        self._artifacts.add(artifact.name)
        for v in artifact_constants(artifact):
            self._add(v)

    def freeze(self) -> None:
        """What is known now is the fixed part every run starts from (call after the machine's __init__)."""
        self._base_ints = set(self.ints)
        self._base_addresses = dict.fromkeys(self.addresses)
        self._base_artifacts = set(self._artifacts)
        self.reset()

    def reset(self) -> None:
        """Forget what the last run observed."""
        self.ints = sorted(self._base_ints)
        self._seen = set(self._base_ints)
        self.addresses = list(self._base_addresses)
        self._artifacts = set(getattr(self, "_base_artifacts", set()))
        self._observed = 0
        self._bytes = {}

    def _add(self, value: int) -> None:
        if value in self._seen:
            return
        self._seen.add(value)
        bisect.insort(self.ints, value)
        self._bytes = {}

    def _word(self, word: int) -> None:
        if not word or self._observed >= MAX_OBSERVED:
            return
        if word not in self._seen:
            self._observed += 1
            self._add(word)
            if word >= WORD // 2:
                self._add(word - WORD)  # the same word read as a negative intN
            if ADDRESS_MIN <= word < ADDRESS_LIMIT:
                address = word.to_bytes(20, "big")
                if address not in self._accounts and address not in self.addresses and not self._has_code(address):
                    self.addresses.append(address)

    def observe(self, result: "ExecResult") -> None:
        """Take the values one call or transaction produced."""
        out = result.output
        for i in range(0, len(out) - 31, 32):
            self._word(int.from_bytes(out[i : i + 32], "big"))
        for log in result.logs:
            for topic in log.topics:
                self._word(topic)
            data = log.data
            for i in range(0, len(data) - 31, 32):
                self._word(int.from_bytes(data[i : i + 32], "big"))
        for _, _, value in result.storage_writes:
            self._word(value)
        for _, _, value in result.storage_reads:
            self._word(value)
        if result.contract_address is not None:
            artifact = self.artifact_of(result.contract_address)
            if artifact is not None:
                self.add_artifact(artifact)

    # -- what draws take -----------------------------------------------------------------

    def ints_between(self, lo: int, hi: int) -> list[int]:
        return self.ints[bisect.bisect_left(self.ints, lo) : bisect.bisect_right(self.ints, hi)]

    def fixed_bytes(self, size: int) -> list[bytes]:
        """bytesN values: words whose last 32 - N bytes are zero, as ABI-encoded bytesN are (all words for bytes32)."""
        found = self._bytes.get(size)
        if found is None:
            shift = 8 * (32 - size)
            found = self._bytes[size] = [
                (v >> shift).to_bytes(size, "big") for v in self.ints if 0 < v < WORD and (size == 32 or not v & ((1 << shift) - 1))
            ]
        return found


# -- the dictionary strategies draw from ---------------------------------------------------------

_active: Dictionary | None = None


def active() -> Dictionary | None:
    """The dictionary of the machine or test running now, if it has one."""
    return _active


@contextlib.contextmanager
def using(dictionary: Dictionary | None) -> Iterator[None]:
    """strategy() draws mix in values from dictionary while inside."""
    global _active
    previous, _active = _active, dictionary
    try:
        yield
    finally:
        _active = previous


def mixed(plain: Any, pick: Callable[[Dictionary], list[Any]]) -> Any:
    """A strategy that draws from plain, or now and then a value pick() finds in the active dictionary.

    Without an active dictionary, or one of weight 0, or one with nothing pick() wants, it
    draws from plain only, making the same choices plain would.
    """
    from hypothesis import strategies as st

    @st.composite
    def draw(draw_: Any) -> Any:
        d = _active
        if d is None or d.threshold >= 100:
            return draw_(plain)
        values = pick(d)
        if not values:
            return draw_(plain)
        # the gate shrinks toward 0, a plain draw; the index toward the smallest value
        if draw_(st.integers(min_value=0, max_value=99)) < d.threshold:
            return draw_(plain)
        return values[draw_(st.integers(min_value=0, max_value=len(values) - 1))]

    return draw()
