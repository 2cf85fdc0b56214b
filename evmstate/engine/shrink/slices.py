"""Deletion by what the steps write and read (chunks' second try, after moves.last_alone): a backward slice.

A program's needed steps are often linked only through the contracts' storage: a strategy's report writes the gain a
later update of its debt reads, where no bundle value passes between them, so last_alone (the failing step with the
steps whose values it uses) keeps too little and halving the program keeps too much. One replay records, per step,
the storage slots its calls wrote and read (Trials.accesses: the backends' observer); the candidate keeps the failing
step and, walking back, every step that wrote a slot a kept step read, every step that made a value a kept step uses,
and the fixed ones. A step's wait stays with it; a deleted step's wait passes on to the next step kept (edits.without).
The candidate is replayed once; where it does not fail the same way (a link outside storage: an account's ether, the
machine's own Python state) the chunks go on as before, having spent those two replays.
"""

from __future__ import annotations

from typing import Any

from .edits import without

# programs of at least this many steps are tried as their backward slice (shorter ones: the single deletions are as
# cheap)
SLICE_FROM = 4

# (address, slot) of each slot one step's calls read, and of each it wrote
Accesses = tuple[frozenset[tuple[bytes, int]], frozenset[tuple[bytes, int]]]


def read_and_written(results: Any) -> Accesses:
    """The slots a step's calls (their ExecResults) read before writing, and wrote.

    A backend's SSTORE reads the slot it writes (py-evm's gas rule; revm's sight reads it as py-evm does): a slot counts
    as read by a call only where the call read it more often than it wrote it (a balance added to is; one only set is
    not). Writes of a call that reverted are undone: they do not count.
    """
    reads: set[tuple[bytes, int]] = set()
    writes: set[tuple[bytes, int]] = set()
    for result in results:
        counts: dict[tuple[bytes, int], int] = {}
        for address, slot, _ in result.storage_reads:
            counts[(address, slot)] = counts.get((address, slot), 0) + 1
        for address, slot, _ in result.storage_writes:
            counts[(address, slot)] = counts.get((address, slot), 0) - 1
            if result.success:
                writes.add((address, slot))
        reads.update(key for key, n in counts.items() if n > 0)
    return frozenset(reads), frozenset(writes)


def backward(steps: list[Any], accesses: list[Accesses] | None, fixed: frozenset[str]) -> set[int]:
    """The indices of the steps the last one needs, a dynamic slice: itself, and walking back, the last step before a
    kept one to write a slot it read (the value it saw: an earlier write of that slot was overwritten, and is needed
    only where that writer read it), each step that made a value a kept step uses, and the fixed ones. accesses None:
    through the values the steps use alone (moves.last_alone)."""
    last = len(steps) - 1
    nothing: Accesses = (frozenset(), frozenset())
    keep = {last}
    unwritten = set(accesses[last][0]) if accesses is not None else set()  # slots kept steps read, writer not met yet
    refs = set(steps[last].refs())
    for j in range(last - 1, -1, -1):
        reads, writes = accesses[j] if accesses is not None else nothing
        if steps[j].rule in fixed or writes & unwritten or refs.intersection(steps[j].results):
            keep.add(j)
            unwritten = (unwritten - writes) | reads
            refs |= steps[j].refs()
    return keep


def sliced(shrinker: Any) -> bool:
    """The best program as its backward slice (backward()), where that deletes a step: whether it was kept. One replay
    records what the steps read and wrote (none where the shrinker has no accesses, or tried this program before), one
    more tries the slice."""
    best = shrinker.best
    key = tuple(s.key for s in best)
    if shrinker.accesses is None or len(best) < SLICE_FROM or key in shrinker.sliced:
        return False
    shrinker.sliced.add(key)
    shrinker.charge(len(best) + 1)  # the recording replay, in full
    accesses = shrinker.accesses(best)
    if accesses is None or len(accesses) != len(best):
        return False  # the replay did not reach the last step as before
    keep = backward(best, accesses, shrinker.fixed)
    if len(keep) == len(best):
        return False
    return shrinker.shorter(without(best, set(range(len(best))) - keep))
