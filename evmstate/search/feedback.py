"""Progress beyond new branches: how often a branch went each way, new small stored values, new states.

Coverage guidance keeps a run when one of its steps reaches a branch no earlier run reached. Much
of what a multi-step protocol does shows as no new branch: climbing a ladder whose rungs all pass
the same `if` takes that branch more often, and raises a stored counter, but reaches nothing
new. More kinds of progress count, as in AFL and ItyFuzz:

- hit counts: per run, how often each branch of the sources (an `if`, an `assert`, a `raise`)
  went each way, in AFL's buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128 or more). A step after
  which some branch's count is in a bucket no earlier run reached is progress. Only the calls
  that are not view calls count (an invariant calls the same views after every step, so their
  counts would grow with the run's length and tell nothing; and a view call may be answered
  from the call cache, which runs no hooks).
- stored values: a transaction that writes a storage slot a small value (below SMALL) that slot
  never held before in any run is progress, while the slot has taken at most SLOT_VALUES
  values, and the slot holds a variable the contract declares (below VARIABLE_SLOTS; an entry
  of a mapping or a dynamic array is at a hash). Stages, counters and flags take a few small
  values, and each new one is a state the contract never was in; balances, prices, hashes,
  addresses and times take a new value on almost every write, and counting those would keep
  nearly every run (no guidance at all). Small balances are common: an ERC20 machine's mints of
  small amounts stored 320 new values in the ten minters' balances (32 each) and kept half of
  its 200 runs before mapping entries were left out; none since.

- states: a transaction after which a storage slot's value changed class (ZERO, SMALL_VALUE, LARGE;
  from UNWRITTEN, for a run's first write to the slot) in a way no slot of its family did in any run
  before. A family is a declared variable, or every entry (and struct field) of one mapping: found
  by hashing the mapping slots below MAPPING_SLOTS with each address the search saw and the
  numbers below SMALL_KEYS (Families); the entries it cannot place are one family per contract.
  The amounts the stored values leave out count here, coarsely: the first run that emptied a
  strategy's debt, brought a balance to zero, gave an account a role or set a large total is
  kept, and only that one (a second account's balance emptied is the same state), so each family
  adds at most nine states (each class to another, or from unwritten). How many runs reached each
  state is counted too (rarity): the guide extends a kept run that reached a rare state more often
  (guidance.py).

The stored values also tell a passing run that was still reaching new code when its budget ran
out (late_kinds): not every new small value, but those of a slot that holds kinds of state (a
phase, a level, a flag: few values, all small, changed by one or two sizes), not amounts (see
KINDS; benchmarks/still_rising.py measures how often the warning is right).

A third signal, comparison operands (CmpLog), feeds the dictionary rather than the corpus: the
hooks record the other side of each comparison of an argument, wherever its result goes, and the
argument that would meet it when the argument went through `* k + c`, `// k` or `+ c` first
(evm/pyevm/opcodes.py), and of a value an earlier call of the run was given (stored, then tested
for equality in a later call: Feedback.earlier); the dictionary offers it, with its neighbours, to later draws.

The signals can be switched one by one for measuring what each pays (EVMSTATE_FEEDBACK, see
SIGNALS). Four names there are ways of drawing, not signals: `relations` lets strategy() draws take
values derived from two observed ones (half of one, their midpoint, sum or difference:
dictionary.RELATED), for amounts that must lie between two the contract holds, and `live` values
near what the slots the run wrote hold now (the value, a little below or above it, half of it, the
sum of two: dictionary.LIVE); and `held` lets an amount a rule draws after an address take part of
what that address holds now (dictionary.HELD); and `streaks` moves a step's fresh draw of a rule off
one whose latest calls in the run all reverted (engine/swarm.py); and `closing` learns, besides the
rules after which nearly everything reverts, a rule after which another rule never goes through
again (a vault's shutdown closes its deposits), and draws it rarely (engine/swarm.py's Endings).
`relations` and `live` are off by default; `held`, `streaks` and `closing` on (measured in
docs/configuration.md: `held` and `closing` each moved the vault's bugs by a seed or two either way,
together they found its bugs a and c on more seeds on both backends).
Stored values and comparison operands are on by default; hit counts and states are off: measured
(benchmarks/search.py), they found nothing the stored values did not, and on a ladder of separate
branches climbed in short runs (tests/projects/rungs) the runs they keep for branches merely taken
more often (the `else` of every rung, 1, 2, 3, 4-7 times) crowd out the run that climbed, so that
two 20-run shards sharing a corpus no longer found the bug on any of 30 seeds. States, measured at
`evmstate run`'s defaults on seeds 0-4 (benchmarks/search.py --vault and the search-power examples,
with states against without), found the vault's bug a on revm on 3 seeds against 1 and on py-evm on
as many (3), but lost seed 0 of bug b on py-evm (found at run 19 without them), seed 1 of the
crowdfund example (run 16) and found the inbox later: on by default they would cost search power
elsewhere, so they are switched on only by name (docs/configuration.md).
"""

from __future__ import annotations

import bisect
from typing import Container, Iterable

from eth_utils import keccak

from ..config import FEEDBACK_VARIABLE

# the lower bound of each hit-count bucket, as AFL's
BUCKETS = (1, 2, 3, 4, 8, 16, 32, 128)
# a stored value below this is a stage, a counter or a flag (2**16: far above any stage or
# counter a run of a few hundred steps reaches, far below wei amounts, times and addresses)
SMALL = 2**16
# a slot that took more values than this is not a stage or a counter: its new values are no progress
SLOT_VALUES = 32
# slots below this hold the variables a contract declares; an entry of a mapping or a dynamic
# array is at a hash (a balance per account, an allowance): not a stage of the contract
VARIABLE_SLOTS = 2**64
# what "still reaching new code" counts of stored values (late_kinds): new kinds of state, not
# new amounts. A slot holds kinds of state (a phase, a level, a flag, a count of a few things) when
# over the whole search it took at most KINDS values, each below KIND_VALUES, and changed by at most
# MOVES sizes (a level or a count moves by one, a flag between two values); one that took a larger
# value (a delay of 3600 seconds, a balance in wei) or moved by many sizes (a total that each
# deposit raises by its amount) holds amounts
KINDS = 16
KIND_VALUES = 256
MOVES = 2
# the classes of a stored value in a state (states): zero, small (a stage, a count, a flag), large (an amount, a price,
# a time, an address); and what a slot held before a run's first write to it (a write shows only the new value)
ZERO, SMALL_VALUE, LARGE, UNWRITTEN = 0, 1, 2, 3
# a mapping entry's slot is keccak(the mapping's slot, the key) (Vyper), a struct's fields at the slots after it: the
# mappings' slots looked for where the compiler's storage layouts name none, the keys tried (every address seen, and
# these small numbers), and the fields
MAPPING_SLOTS = 64
SMALL_KEYS = 16
FIELDS = 8
# the signals, each off when left out of the environment variable (benchmarks/search.py)
SIGNALS = ("counts", "storage", "cmplog", "states", "relations", "live", "held", "streaks", "closing")
DEFAULT = frozenset({"storage", "cmplog", "streaks", "held", "closing"})
ENVIRONMENT = FEEDBACK_VARIABLE


def signals(text: str | None) -> frozenset[str]:
    """The signals switched on by EVMSTATE_FEEDBACK's text (Config.environment): a comma-separated subset of SIGNALS (""
    for none), or DEFAULT when unset.
    """
    if text is None:
        return DEFAULT
    return frozenset(s.strip() for s in text.split(",") if s.strip() in SIGNALS)


def bucket(count: int) -> int:
    """A hit count's bucket: 1, 2, 3, 4 (4-7), 5 (8-15), 6 (16-31), 7 (32-127), 8 (128 or more)."""
    return bisect.bisect_right(BUCKETS, count)


def value_class(value: int) -> int:
    """A stored value's class in a state: ZERO, SMALL_VALUE or LARGE."""
    return ZERO if value == 0 else SMALL_VALUE if value < SMALL else LARGE


def _word(n: int) -> bytes:
    return n.to_bytes(32, "big")


def mapping_slots(layout: object) -> set[int]:
    """The slots of the HashMap variables a compiler's storage layout names (Vyper's, of any version: variables, and
    modules' variables, each {"type": ..., "slot": ...})."""
    found: set[int] = set()
    if isinstance(layout, dict):
        kind, slot = layout.get("type"), layout.get("slot")
        if isinstance(kind, str) and kind.startswith("HashMap") and isinstance(slot, int):
            found.add(slot)
        for value in layout.values():
            found |= mapping_slots(value)
    return found


class Families:
    """Which mapping of a contract a storage slot belongs to: the slot itself for a declared variable; for a mapping's
    entry (or a field of it) the mapping's slot, found by hashing each mapping slot with each key seen; None where the
    key is not one of those (an entry of a mapping of mappings, a key that is no address seen nor a small number).
    """

    def __init__(self, mappings: Iterable[int] = ()) -> None:
        # the mappings' slots: those the storage layouts name (every contract's together), else the first MAPPING_SLOTS
        self.mappings = sorted(set(mappings)) or list(range(MAPPING_SLOTS))
        self.keys: set[bytes] = set()
        self.pending: list[bytes] = []  # keys not hashed yet: hashed when an entry's slot is first looked up
        self.bases: dict[int, int] = {}  # entry slot -> its mapping's slot
        self.known: dict[int, int | None] = {}  # slot -> its family, as resolved
        for n in range(SMALL_KEYS):
            self.key(_word(n))

    def key(self, word: bytes) -> None:
        """A key a mapping may be indexed by (a 32-byte word): an address seen, a small number."""
        if word not in self.keys:
            self.keys.add(word)
            self.pending.append(word)

    def of(self, slot: int) -> int | None:
        if slot < VARIABLE_SLOTS:
            return slot
        if self.pending:
            for word in self.pending:
                for base in self.mappings:
                    self.bases[int.from_bytes(keccak(_word(base) + word), "big")] = base
            self.pending.clear()
            # slots not resolved before may be entries under the new keys
            self.known = {entry: family for entry, family in self.known.items() if family is not None}
        if slot in self.known:
            return self.known[slot]
        bases = self.bases
        family = next((bases[slot - field] for field in range(FIELDS) if slot - field in bases), None)
        self.known[slot] = family
        return family


class Progress:
    """One machine's progress over its runs: the (branch, bucket) pairs, small stored values and states reached."""

    def __init__(self, on: Iterable[str] = SIGNALS, mappings: Iterable[int] = ()) -> None:
        self.on = frozenset(on)
        self.buckets: set[tuple[object, int, int]] = set()  # (code, 2*pc + taken, bucket)
        self.slots: dict[tuple[bytes, int], set[int]] = {}  # (address, slot) -> the small values it held
        self.run_counts: dict[tuple[object, int], int] = {}  # this run's counts so far
        self.new_buckets = 0
        self.new_values = 0
        self.runs = 0  # runs started
        self.firsts: list[tuple[int, tuple[bytes, int]]] = []  # (run, slot) of each new small value, in order
        self.amounts: set[tuple[bytes, int]] = set()  # slots that hold amounts, not kinds of state (kind_of_state)
        self.moves: dict[tuple[bytes, int], set[int]] = {}  # slot -> the sizes its value changed by in a run
        self.last: dict[tuple[bytes, int], int] = {}  # slot -> the value this run last wrote to it
        # states (see above): (address, family, class before, class after) reached, and in how many runs each was
        self.states: dict[tuple[bytes, int | None, int, int], int] = {}
        self.run_states: set[tuple[bytes, int | None, int, int]] = set()  # those the current run reached
        self.held: dict[tuple[bytes, int], int] = {}  # slot -> the value the current run last wrote to it
        self.new_states = 0
        self.families = Families(mappings)

    def run_started(self) -> None:
        self.run_counts.clear()
        self.last.clear()
        self.held.clear()
        self.run_states.clear()
        self.runs += 1

    def run_finished(self) -> None:
        """Count the states the run reached (how rare a state is: how many runs reached it)."""
        states = self.states
        for state in self.run_states:
            states[state] = states.get(state, 0) + 1
        self.run_states.clear()

    def rarity(self, states: Iterable[tuple[bytes, int | None, int, int]]) -> float:
        """How rare the rarest of these states is: 1 / the runs that reached it (1 for none counted yet)."""
        counts = self.states
        return max((1 / max(counts.get(state, 0), 1) for state in states), default=0.0)

    def counted(self, code: object, counts: dict[int, int], branches: Container[int]) -> bool:
        """Add one step's branch counts of one code (2*pc + taken -> times); True if a branch of
        the sources (a JUMPI pc in branches) reached a bucket no run reached before."""
        if "counts" not in self.on:
            return False
        new = False
        run, seen = self.run_counts, self.buckets
        for branch, times in counts.items():
            if (branch >> 1) not in branches:
                continue
            key = (code, branch)
            total = run.get(key, 0) + times
            run[key] = total
            reached = (code, branch, bucket(total))
            if reached not in seen:
                seen.add(reached)
                self.new_buckets += 1
                new = True
        return new

    def stored(self, writes: Iterable[tuple[bytes, int, int]]) -> bool:
        """Add one transaction's storage writes (address, slot, value); True if a slot took a small value it never held,
        or a slot's value changed class in a way no slot of its family's did before (a state never reached).
        """
        new = False
        if "states" in self.on:
            new = self._states(writes)
        if "storage" not in self.on:
            return new
        for address, slot, value in writes:
            if slot >= VARIABLE_SLOTS:
                continue
            key = (address, slot)
            if value >= KIND_VALUES:
                self.amounts.add(key)
                if value >= SMALL:
                    continue
            elif key not in self.amounts:
                self._moved(key, value)
            held = self.slots.get(key)
            if held is None:
                held = self.slots[key] = set()
            if value not in held and len(held) < SLOT_VALUES:
                held.add(value)
                self.new_values += 1
                self.firsts.append((self.runs, key))
                new = True
        return new

    def _states(self, writes: Iterable[tuple[bytes, int, int]]) -> bool:
        new = False
        held, reached, states, families = self.held, self.run_states, self.states, self.families
        for address, slot, value in writes:
            key = (address, slot)
            before = held.get(key)
            held[key] = value
            was = UNWRITTEN if before is None else value_class(before)
            now = value_class(value)
            if was == now:
                continue
            families.key(bytes(12) + address)  # a contract's address may key another's mappings
            state = (address, families.of(slot), was, now)
            if state not in reached:
                reached.add(state)
                if state not in states:
                    states[state] = 0
                    self.new_states += 1
                    new = True
        return new

    def key(self, address: bytes) -> None:
        """An address a mapping may be indexed by (an account's)."""
        if "states" in self.on:
            self.families.key(bytes(12) + address)

    def _moved(self, key: tuple[bytes, int], value: int) -> None:
        """Note by how much a slot's value changed since this run last wrote it: a slot moved by many sizes holds
        amounts.
        """
        before = self.last.get(key)
        self.last[key] = value
        if before is None or before == value:
            return
        moves = self.moves.setdefault(key, set())
        moves.add(abs(value - before))
        if len(moves) > MOVES:
            self.amounts.add(key)

    def kind_of_state(self, slot: tuple[bytes, int]) -> bool:
        """Whether a slot held kinds of state over the search (a phase, a level, a flag): at most KINDS values, each
        below KIND_VALUES, that changed by at most MOVES sizes; not amounts."""
        return slot not in self.amounts and len(self.slots.get(slot, ())) <= KINDS

    def kinds(self) -> int:
        """The values stored so far in slots that hold kinds of state."""
        return sum(len(held) for slot, held in self.slots.items() if self.kind_of_state(slot))

    def late_kinds(self, min_runs: int) -> int | None:
        """New kinds of state first stored in the last quarter of the runs: values of the slots that, over the whole
        search, held kinds of state, not amounts. None before min_runs runs, or when stored values are not watched."""
        n = self.runs
        if n < min_runs or "storage" not in self.on:
            return None
        cut = n - n // 4
        return sum(1 for run, slot in self.firsts if run > cut and self.kind_of_state(slot))
