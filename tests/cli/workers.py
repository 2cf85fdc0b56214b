"""Campaign workers for tests of the campaign loop itself: shards run in this process, no worker process started."""

from __future__ import annotations

from typing import Any

from evmstate.scale.pool import ProjectSource
from evmstate.scale.shards import Outcome, run_shard


class InlineWorkers:
    """Shards run in this process, one per collect(), each reporting branches as the engine would."""

    description = "this process"

    def __init__(self, source: ProjectSource) -> None:
        self.state = source.open()
        self.queue: list[Any] = []
        self.branches = iter([frozenset({1, 2}), frozenset({2, 3}), frozenset({3, 4, 5})])

    def free(self) -> int:
        return 0 if self.queue else 1

    def submit(self, shard: Any) -> None:
        self.queue.append(shard)

    def collect(self, timeout: float) -> list[Outcome]:
        import dataclasses

        if not self.queue:
            return []
        shard = self.queue.pop()
        result = dataclasses.replace(run_shard(self.state, shard), branches=next(self.branches, frozenset()))
        return [Outcome("done", shard, result)]

    failing: set[str] = set()

    def live(self) -> tuple[int, int]:
        return 0, 0

    def shrinking_now(self) -> int:
        return 0

    def running(self) -> int:
        return len(self.queue)

    def interrupt(self) -> None:
        self.queue.clear()

    def retire(self, key: str) -> None:
        pass

    def close(self) -> None:
        pass
