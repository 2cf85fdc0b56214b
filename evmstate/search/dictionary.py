"""Values the contract knows, for strategy() draws to mix in.

Blind random draws almost never produce the exact number a contract compares against, the
value it stored a call earlier, or an address it derived. The dictionary holds them: the
integer literals of the contracts' sources (and their neighbours, for `<` and `>`), the
constants their code pushes, and what the contracts did in this run so far: values written to
and read from storage, return values, event topics and data, addresses created, and the values
the contracts compared an argument against (on py-evm, with guidance on). It starts each
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
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from eth_utils import keccak
from hypothesis import strategies as st

from ..hooks import Current
from ..values import HexBytes
from .coverage import JUMP, JUMPI, JUMPDEST, instructions
from .native.choices import drawn

if TYPE_CHECKING:
    from ..evm.base import ExecResult
    from ..compiler.sources import Artifact

# integer literals in Vyper source: decimal (with _ separators), hex, binary and octal
_LITERAL = re.compile(r"(?<![\w.])(0x[0-9a-fA-F_]+|0b[01_]+|0o[0-7_]+|\d[\d_]*)(?![\w.])")
# how many observed values one run keeps: past it, later values are not added
MAX_OBSERVED = 4096
# a draw's extra choices: a gate, 0 .. GATES - 1 (at or above the dictionary's threshold: take a
# value from it), then which value of the pool the gate's band picks, 0 .. its size - 1. Each is
# its own small bounded choice, over which Hypothesis's integers are close to uniform; packed
# into one wide integer they were not (small values and 0 came far more often than their share)
GATES = 100
# the dictionary's share in bands, in this order: the literals, the other fixed values, the
# observed values; a pool with nothing to give leaves its band to the others, in proportion
BANDS = (2, 1, 2)
# with relations on (Dictionary.relations), a fourth band of this share: a value derived from two of the RECENT latest
# observed values in the draw's range, by one of RELATIONS: half of one, the midpoint of two, their sum or their
# difference. An amount between a strategy's debt and its value, a loss of half what a strategy holds (a price below
# one), a withdrawal just past what is idle and lent to one strategy: relations between amounts the contract holds,
# which no value it holds is, and no neighbour of one
RELATED = 1
RECENT = 16
RELATIONS = ("half", "midpoint", "sum", "difference")
# with the live band on (Dictionary.live_on), a band of this share: a value derived from what a storage slot holds now
# (the value this run last wrote to each slot it wrote, the latest changed first), by one of LIVE_FORMS:
# the value, a little below or above it (by 1 .. NEAR), half of it, the sum of two of them, or that sum a little
# above. Most amount bugs sit next to a bound the contract holds now: a withdrawal one past what is idle and a
# strategy's debt, a loss of nearly all a strategy holds, a lend of all that is idle. The observed band holds every
# value the run saw, by when it was first seen (a slot's current value may be one seen long before, among many past
# ones), and neither a neighbour nor a sum of them
LIVE = 2
LIVE_FORMS = ("value", "below", "above", "half", "sum", "sum above")
NEAR = 16
# with holdings on (Dictionary.holdings_on; on by default, search/session.py): in a step whose rule drew an
# address before an integer, a band of this share takes a value derived from what that address holds now (the
# mapping entries keyed by it that the run's calls wrote: its shares in a vault, its balance of a token) by one of
# HELD_FORMS: all of it, a part of it (1 .. PARTS - 1 in
# PARTS), a little less (1 .. NEAR below), or dust (1 .. NEAR, at most all of it); in a step that drew no address,
# from what the contracts hold (a strategy's assets, a vault's idle ones). A redeem of at most the holder's shares, a
# transfer of part of a balance, a loss of part of what a strategy holds: amounts a draw of the whole range almost
# never makes once balances move, so that such a rule mostly reverts, and the state it needs passes with no call that
# could show a bug in it. Dust is where conversions round to nothing (a share redeemed for 0 assets once a share is
# worth less than one): Hypothesis draws 16 or less in 1 of 230 draws of a range up to 10**21, 1 in 1 of 3000
HELD = 3
HELD_FORMS = ("value", "part", "below", "dust")
PARTS = 16
WORD = 2**256
# times the contract knows (timestamps it stored, values it compared block.timestamp and
# block.number with), for the waits between steps to jump to (engine/delays.py): at most this
# many per run, each ahead of the chain's clock when seen (the clock never goes back within a run,
# so a time behind it is never a wait's); a stored word counts as a timestamp up to this many seconds ahead
MAX_TIMES = 256
TIME_WINDOW = 100 * 365 * 86_400
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


@functools.lru_cache(maxsize=64)
def code_constants(code: bytes) -> frozenset[int]:
    """The values code pushes, except jump destinations (each code read once per process: every shard of a campaign
    asks).
    """
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
    return frozenset(found)


def artifact_constants(artifact: "Artifact") -> tuple[set[int], set[int]]:
    """A contract's constants: (its sources' literals and their neighbours, the other values its code pushes)."""
    literals: set[int] = set()
    for path in {artifact.path, *artifact.sources.values()}:
        try:
            found = source_literals(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        for v in found:
            literals.update((v - 1, v, v + 1, -v))
    code = code_constants(artifact.bytecode_runtime) | code_constants(artifact.bytecode)
    keep = range(-WORD // 2, WORD)
    literals = {v for v in literals if v in keep}
    return literals, {v for v in code if v in keep} - literals


class Dictionary:
    """One machine's (or test's) dictionary: fixed values, then what each run observes.

    Three pools, so that a draw means the same value while the shrinker removes earlier steps:
    the sources' literals and the other fixed values, each sorted, drawn by index from the
    smallest; and the values the run observed, drawn by how recently they were seen, the
    latest first.
    """

    def __init__(
        self, weight: float, accounts: Iterable[bytes] = (), has_code: Callable[[bytes], bool] | None = None
    ) -> None:
        self.weight = weight
        self.relations = False  # draws may take values derived from two observed ones (RELATED)
        self.live_on = False  # draws may take values derived from what the slots hold now (LIVE)
        # (address, slot) -> the value this run last wrote to it, the latest changed last
        self.live: dict[tuple[bytes, int], int] = {}
        self._live_pools: dict[tuple[int, int], list[int]] = {}
        # what each account holds now (HELD): entry slot of a mapping keyed by an account -> that account; account
        # -> (contract, slot) -> the value the run last wrote there (__init__'s, at a run's start), the latest last
        self.holdings_on = True
        self._owners: dict[int, bytes] = {}
        self.held: dict[bytes, dict[tuple[bytes, int], int]] = {}
        self._fixed_held: dict[bytes, dict[tuple[bytes, int], int]] = {}
        self.holders: list[bytes] = []  # the addresses the step being drawn drew so far (engine/example.py)
        self.drawing = False  # a step's arguments are being drawn with holdings on (engine/example.py)
        self._bases: list[int] = []
        self._contracts: list[bytes] = []  # the contracts deployed, in order (those of __init__ first)
        self._fixed_contracts: list[bytes] = []
        # a gate (0 .. GATES - 1) at or above the threshold takes a value from the dictionary; weight
        # in hundredths, and any weight above 0 takes at least one gate
        self.threshold = GATES - (max(1, round(weight * GATES)) if weight > 0 else 0)
        self._accounts = set(accounts)
        # contracts whose storage is evmstate's own (the actors': the calls they re-enter with, written by evmstate),
        # not values of the contracts under test: their storage reads and writes are passed over
        self.own_storage: frozenset[bytes] = frozenset()
        self._has_code = has_code or (lambda address: False)
        self.artifact_of: Callable[[bytes], "Artifact | None"] = lambda address: None
        self.literals: list[int] = []  # sorted: the sources' integer literals and their neighbours
        self.constants: set[int] = set()  # every number the contracts' code holds: literals and pushed values
        self._fixed: set[int] = set()
        self._fixed_addresses: list[bytes] = []
        self._fixed_artifacts: set[str] = set()
        self.fixed: list[int] = []  # sorted: the other values known before the first run (none of the literals)
        self.observed: list[int] = []  # in the order seen, each once
        self.addresses: list[bytes] = []  # in the order seen: fixed ones first
        self.clock: Callable[[], tuple[int, int]] = lambda: (0, 0)  # the chain's (time, block number) now
        # timestamps the contracts stored or compared block.timestamp with, in the order seen
        self.times: list[int] = []
        self.blocks: list[int] = []  # block numbers they compared block.number with
        self._fixed_times: list[int] = []
        self._fixed_blocks: list[int] = []
        self._seen: set[int] = set()
        self._artifacts: set[str] = set()
        self._cache: dict[Any, Any] = {}  # what draws derive from the content (pools, memo()), by key
        self._frozen = False
        self.reset()

    @property
    def on(self) -> bool:
        """Whether draws take values from it at all (a weight above 0)."""
        return self.threshold < GATES

    # -- content -----------------------------------------------------------------------

    def add_artifact(self, artifact: "Artifact") -> None:
        """Add a contract's constants (to the fixed values before freeze(), to the run's after)."""
        if artifact.name in self._artifacts:
            return
        self._artifacts.add(artifact.name)
        literals, constants = artifact_constants(artifact)
        self.constants |= constants | literals
        if not self._frozen:
            for v in literals - self._seen:
                bisect.insort(self.literals, v)
            self._seen |= literals
        for v in sorted(constants | literals):
            self._add(v)

    def freeze(self) -> None:
        """What is known now is the fixed part every run starts from (call after the machine's __init__)."""
        self._fixed = set(self.fixed) | set(self.observed)
        self._fixed_addresses = list(self.addresses)
        self._fixed_times, self._fixed_blocks = list(self.times), list(self.blocks)
        self._fixed_artifacts = set(self._artifacts)
        self._fixed_held = {account: dict(entries) for account, entries in self.held.items()}
        self._fixed_contracts = list(self._contracts)
        self._frozen = True
        self.reset()

    def reset(self) -> None:
        """Forget what the last run observed."""
        self.fixed = sorted(self._fixed)
        self.observed = []
        self._seen = self._fixed | set(self.literals)
        self.addresses = list(self._fixed_addresses)
        self.times, self.blocks = list(self._fixed_times), list(self._fixed_blocks)
        self._artifacts = set(self._fixed_artifacts)
        self._cache = {}
        self.live = {}
        self._live_pools = {}
        self.held = {account: dict(entries) for account, entries in self._fixed_held.items()}
        self.holders = []
        self._contracts = list(self._fixed_contracts)

    def hold_mappings(self, mappings: Iterable[int], accounts: Iterable[bytes], contract: bool = False) -> None:
        """Where the accounts' entries of the mappings at these slots are (keccak(the mapping's slot, the account), as
        Vyper places them; keccak(the account, the slot), as Solidity does), so that writes there show what each account
        holds (HELD). contract: the accounts are contracts (what they hold is drawn from in steps that drew no
        address)."""
        self._bases = mappings = list(mappings)
        for account in accounts:
            if contract:
                self._contracts.append(account)
            key = bytes(12) + account
            for base in mappings:
                slot = base.to_bytes(32, "big")
                for entry in (slot + key, key + slot):
                    self._owners[int.from_bytes(keccak(entry), "big")] = account

    def _hold(self, writes: Iterable[tuple[bytes, int, int]]) -> None:
        owners, held = self._owners, self.held
        for address, slot, value in writes:
            owner = owners.get(slot)
            if owner is None:
                continue
            entries = held.setdefault(owner, {})
            entries.pop((address, slot), None)  # moved to the end: the latest changed last
            entries[(address, slot)] = value

    def held_between(self, lo: int, hi: int) -> list[int]:
        """What the addresses the step drew so far hold now within [lo, hi] but 0, each once: the first address's
        first, each one's latest changed first; in a step that drew no address, what the contracts hold."""
        found: dict[int, None] = {}
        for account in self.holders or self._contracts:
            entries = self.held.get(account)
            if entries:
                for v in reversed(entries.values()):
                    if v and lo <= v <= hi:
                        found[v] = None
        return list(found)

    def _add(self, value: int) -> None:
        if value in self._seen or not -WORD // 2 <= value < WORD:
            return
        self._seen.add(value)
        if self._frozen:
            self.observed.append(value)
        else:
            bisect.insort(self.fixed, value)
        self._cache = {}

    def _word(self, word: int) -> None:
        if not word or word in self._seen or len(self.observed) >= MAX_OBSERVED:
            return
        self._add(word)
        if word >= WORD // 2:
            self._add(word - WORD)  # the same word read as a negative intN
        if ADDRESS_MIN <= word < ADDRESS_LIMIT:
            address = word.to_bytes(20, "big")
            if address not in self._accounts and address not in self.addresses and not self._has_code(address):
                self.addresses.append(address)

    def observe(self, result: "ExecResult") -> None:
        """Take the values one call or transaction produced."""
        # a deployment's output is the runtime code: its words are instructions, not values
        out = result.output if result.contract_address is None else b""
        seen, word_ = self._seen, self._word  # a hot path: most words were seen before, and are passed over here
        # revert data starts with a 4-byte selector (Error(string), a custom error): words follow it
        for i in range(len(out) % 32 if len(out) % 32 == 4 else 0, len(out) - 31, 32):
            word = int.from_bytes(out[i : i + 32], "big")
            if word not in seen:
                word_(word)
        for log in result.logs:
            for topic in log.topics:
                if topic not in seen:
                    word_(topic)
            data = log.data
            for i in range(0, len(data) - 31, 32):
                word = int.from_bytes(data[i : i + 32], "big")
                if word not in seen:
                    word_(word)
        if result.storage_writes or result.storage_reads:
            if self._owners and result.success and result.storage_writes:
                self._hold(result.storage_writes)
            if self.live_on and result.storage_writes:
                self._slots(result)
            now = self.clock()[0]
            own = self.own_storage
            for accesses in (result.storage_writes, result.storage_reads):
                for address, _, value in accesses:
                    if own and address in own:
                        continue
                    if value not in seen:
                        word_(value)
                    if now < value <= now + TIME_WINDOW:
                        self.add_times((value,))
        if result.contract_address is not None:
            if self.holdings_on and self._bases and result.success:
                self.hold_mappings(self._bases, (result.contract_address,), contract=True)
            artifact = self.artifact_of(result.contract_address)
            if artifact is not None:
                self.add_artifact(artifact)

    def _slots(self, result: "ExecResult") -> None:
        """Note what each slot the call wrote holds now (a reverted call changed nothing). Writes alone: revm's sampled
        calls show no reads (evm/revm/sight.py), and a slot the run never wrote holds what __init__ left, which the
        fixed values have."""
        if not result.success:
            return
        live, changed = self.live, False
        for address, slot, value in result.storage_writes:
            key = (address, slot)
            if live.get(key) != value:
                live.pop(key, None)  # moved to the end: the latest changed last
                live[key] = value
                changed = True
        if changed:
            self._live_pools = {}

    def live_between(self, lo: int, hi: int) -> list[int]:
        """The values the slots hold now within [lo, hi] but 0, each once, the latest changed first."""
        found = self._live_pools.get((lo, hi))
        if found is None:
            now = (v for v in reversed(self.live.values()) if v and lo <= v <= hi)
            found = self._live_pools[(lo, hi)] = list(dict.fromkeys(now))
        return found

    def add_operands(self, values: Iterable[int]) -> None:
        """Take the other sides of comparisons against an argument (comparison operand logging),
        each with its neighbours for `<` and `>` (an address without them); the value itself
        last, so that it is the latest."""
        for v in values:
            if not ADDRESS_MIN <= v < ADDRESS_LIMIT:
                for n in (v - 1, v + 1):
                    if 0 <= n < WORD:
                        self._word(n)
            self._word(v)

    def add_times(self, values: Iterable[int], blocks: bool = False) -> None:
        """Take timestamps (or block numbers) the contracts know, for the waits between steps to reach: those ahead of
        the chain's clock (a small amount stored, an elapsed time compared, a deadline gone by are never one)."""
        known = self.blocks if blocks else self.times
        now = self.clock()[1 if blocks else 0]
        for v in values:
            if now < v and v not in known and len(known) < MAX_TIMES:
                known.append(v)

    # -- what draws take -----------------------------------------------------------------

    def ints_between(self, lo: int, hi: int) -> tuple[list[int], list[int], list[int]]:
        """(literals, other fixed values, observed values latest first) within [lo, hi]."""
        key = ("int", lo, hi)
        found = self._cache.get(key)
        if found is None:
            literals = self.literals[bisect.bisect_left(self.literals, lo) : bisect.bisect_right(self.literals, hi)]
            fixed = self.fixed[bisect.bisect_left(self.fixed, lo) : bisect.bisect_right(self.fixed, hi)]
            found = self._cache[key] = (literals, fixed, [v for v in reversed(self.observed) if lo <= v <= hi])
        return found

    def fixed_bytes(self, size: int) -> tuple[list[bytes], list[bytes], list[bytes]]:
        """bytesN values (HexBytes): words whose last 32 - N bytes are zero, as ABI-encoded bytesN are (any word for
        bytes32).
        """
        key = ("bytes", size)
        found = self._cache.get(key)
        if found is None:
            shift = 8 * (32 - size)
            mask = (1 << shift) - 1

            def fit(values: Iterable[int]) -> list[bytes]:
                return [HexBytes((v >> shift).to_bytes(size, "big")) for v in values if 0 < v < WORD and not v & mask]

            found = self._cache[key] = (fit(self.literals), fit(self.fixed), fit(reversed(self.observed)))
        return found

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """make(), remembered until the dictionary's content changes (for what draws derive from it)."""
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = make()
        return found

    def produced_addresses(self) -> tuple[list[bytes], list[bytes], list[bytes]]:
        """Addresses the contracts produced that no account or contract holds: ((), fixed ones, the run's latest first).
        """
        n = len(self._fixed_addresses)
        return [], self.addresses[:n], self.addresses[n:][::-1]


# -- the dictionary strategies draw from ---------------------------------------------------------

# the dictionary of the machine or test running now, if it has one (read on every drawn value)
ACTIVE = Current()


def active() -> Dictionary | None:
    """The dictionary of the machine or test running now, if it has one."""
    return ACTIVE.value


def using(dictionary: Dictionary | None) -> contextlib.AbstractContextManager[None]:
    """strategy() draws mix in values from dictionary while inside."""
    return ACTIVE.using(dictionary)


def pool_of(pools: tuple[list[Any], ...], offset: int, span: int) -> int:
    """Which pool a dictionary gate takes: offset (0 .. span - 1) above the threshold, in the bands of BANDS (and
    RELATED, for a fourth pool, LIVE, for a fifth, and HELD, for a sixth)."""
    shares = [share if pool else 0 for share, pool in zip((*BANDS, RELATED, LIVE, HELD), pools)]
    x = offset * sum(shares) // span
    for i, share in enumerate(shares):
        if x < share:
            return i
        x -= share
    raise ValueError("pool_of: every pool is empty")


@functools.lru_cache(maxsize=1024)
def index_choice(n: int) -> st.SearchStrategy[int]:
    """Which of n values: 0 .. n - 1, shrinking toward 0."""
    return st.integers(min_value=0, max_value=n - 1)


def related(values: list[int], draw: Any, lo: int, hi: int) -> int | None:
    """A value derived from two of the latest values (RECENT of them, latest first) by one of RELATIONS, or None when it
    falls outside [lo, hi]."""
    recent = min(len(values), RECENT)
    relation = draw(index_choice(len(RELATIONS)))
    a = values[draw(index_choice(recent))]
    if relation == 0:  # half: one value
        value = a // 2
    else:
        b = values[draw(index_choice(recent))]
        value = ((a + b) // 2, a + b, abs(a - b))[relation - 1]
    return value if lo <= value <= hi else None


def near_live(values: list[int], draw: Any, lo: int, hi: int) -> int | None:
    """A value derived from what the slots hold now (values, the latest changed first) by one of LIVE_FORMS, or None
    when it falls outside [lo, hi]."""
    form = LIVE_FORMS[draw(index_choice(len(LIVE_FORMS)))]
    value = values[draw(index_choice(len(values)))]
    if form == "half":
        value //= 2
    elif form.startswith("sum"):
        value += values[draw(index_choice(len(values)))]
    if form in ("below", "above", "sum above"):
        step = draw(index_choice(NEAR)) + 1
        value += -step if form == "below" else step
    return value if lo <= value <= hi else None


def part_held(values: list[int], draw: Any, lo: int, hi: int) -> int | None:
    """A value derived from what the step's addresses hold now (values) by one of HELD_FORMS, or None when it falls
    outside [lo, hi]."""
    form = HELD_FORMS[draw(index_choice(len(HELD_FORMS)))]
    value = values[draw(index_choice(len(values)))]
    if form == "part":
        value = value * (draw(index_choice(PARTS - 1)) + 1) // PARTS
    elif form == "below":
        value -= draw(index_choice(NEAR)) + 1
    elif form == "dust":
        value = min(value, draw(index_choice(NEAR)) + 1)
    return value if lo <= value <= hi else None


def mixed(
    plain: Any, pick: Callable[[Dictionary], tuple[list[Any], list[Any], list[Any]]],
    plain_draw: Callable[[Any], Any] | None = None, bounds: tuple[int, int] | None = None,
) -> Any:
    """A strategy that draws from plain, or now and then a value pick() finds in the active dictionary.

    pick returns three pools: the sources' literals, other fixed values, values observed in
    this run (latest first). Without an active dictionary, with one of weight 0, or with
    nothing pick() wants, it makes the same choices plain would. Otherwise it draws the plain
    value, then a gate, 0 .. GATES - 1: below the threshold, the plain value; at or above it, in
    bands (BANDS), the literals, the fixed values or the observed ones, and then one more
    choice, which of the pool's values. Drawing the plain value every time keeps the choices
    that follow in place when the gate changes. The gate shrinks toward 0, a plain draw, then
    toward the literals' band; the index toward 0: the smallest literal or fixed value, or the
    latest observed one.

    plain_draw(draw), when given, makes plain's choices inside the caller's draw (no span of
    its own). The strategy carries `evmstate_draw(draw)`: the same choices and value, made
    directly inside a caller's composite draw, which saves Hypothesis two nested draws per value.

    bounds, for integers: with the dictionary's relations on, a fourth band (RELATED) takes a value related() derives
    from the observed ones within these bounds (a plain draw where it falls outside them); with its live band on, a
    fifth (LIVE) one near_live() derives from what the slots hold now.
    """
    if plain_draw is None:

        def plain_draw(draw_: Any) -> Any:
            return draw_(plain)

    def draw_value(draw_: Any) -> Any:
        value = plain_draw(draw_)
        d = ACTIVE.value
        if d is None or not d.on:
            return value
        pools = pick(d)
        live = d.live_between(*bounds) if bounds is not None and d.live_on else None
        held = d.held_between(*bounds) if bounds is not None and d.drawing else None
        if not (any(pools) or live or held):
            return value
        gate = draw_(_GATE)
        if gate < d.threshold:
            return value
        if held:
            bands: tuple[list[Any], ...] = (*pools, pools[2] if d.relations else [], live or [], held)
        elif live is not None:
            bands = (*pools, pools[2] if d.relations else [], live)
        else:
            bands = (*pools, pools[2]) if bounds is not None and d.relations else pools
        pool = pool_of(bands, gate - d.threshold, GATES - d.threshold)
        if pool >= 3:
            assert bounds is not None
            derive = (related, near_live, part_held)[pool - 3]
            derived = derive(bands[pool], draw_, *bounds)
            return value if derived is None else derived
        values = pools[pool]
        return values[draw_(index_choice(len(values)))]

    return drawn(draw_value)


_GATE = st.integers(min_value=0, max_value=GATES - 1)
