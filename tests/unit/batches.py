"""A shrinker's Tries that replays candidates a batch at a time in this process, as helpers on idle workers would."""

from __future__ import annotations

from evmstate.engine.shrink.candidates import InOrder


class Batches(InOrder):
    """A Tries that makes width candidates at a time and replays them all, keeping the first that fails."""

    def __init__(self, width: int) -> None:
        self.workers, self.elsewhere, self.width = width, 0, width

    def first(self, candidates, attempt, accept):
        candidates = iter(candidates)
        while batch := [c for _, c in zip(range(self.width), candidates)]:
            results = [attempt(c) for _, c in batch]
            for (tag, _), result in zip(batch, results):
                if accept(result):
                    return tag, result
        return None
