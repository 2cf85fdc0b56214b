"""Campaign shards as tasks on a Dask distributed cluster: the only module that imports dask.

The client sends the project's files to every worker once (scatter, broadcast), submits one
task per shard and takes results as they complete; a task's result carries the failure's
record, which the client saves. Start the cluster as Dask documents it (`dask scheduler`,
`dask worker ADDRESS --nthreads 1`); each worker needs evmstate and the packages the
project imports.
"""

from __future__ import annotations

import time
import traceback
import uuid
from typing import Any

from ..errors import MachineDefinitionError, UsageError
from .pool import WorkerCrashed
from .shards import Outcome, ProjectBundle, Shard, run_bundle_shard


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError(
            '--cluster runs shards on Dask distributed, which is not installed: pip install "evmstate[dask]"'
        ) from None
    return distributed


class DaskWorkers:
    """Shards as Dask tasks, on the scheduler at address (or on the client given)."""

    def __init__(
        self, address: str | None, bundle: ProjectBundle, *, client: Any = None, timeout: float = 10.0
    ) -> None:
        distributed = _import_distributed()
        if client is None:
            try:
                client = distributed.Client(address, timeout=timeout)
            except (OSError, TimeoutError) as e:
                raise UsageError(
                    f"--cluster {address}: cannot reach a Dask scheduler there ({e}). "
                    "Start one with `dask scheduler` and give its address, e.g. tcp://host:8786"
                ) from None
            self._own_client = True
        else:
            self._own_client = False
        self.client = client
        self.description = f"Dask cluster at {client.scheduler.address}"
        self.failing: set[str] = set()  # a Dask task tells nothing until it ends
        self.bundle = client.scatter(bundle, broadcast=True, hash=False)
        self.futures: dict[Any, Shard] = {}
        self.completed = distributed.as_completed()
        self._threads = 0
        self._threads_at = 0.0

    def _slots(self) -> int:
        # one shard per worker thread; asked of the scheduler at most every two seconds
        if time.monotonic() - self._threads_at > 2.0:
            self._threads = sum(self.client.nthreads().values())
            self._threads_at = time.monotonic()
        return self._threads

    def free(self) -> int:
        return max(0, self._slots() - len(self.futures))

    def submit(self, shard: Shard) -> None:
        key = f"evmstate-shard-{shard.key}-{shard.index}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(run_bundle_shard, self.bundle, shard, key=key, pure=False)
        self.futures[future] = shard
        self.completed.add(future)

    def collect(self, timeout: float) -> list[Outcome]:
        end = time.monotonic() + timeout
        out: list[Outcome] = []
        while True:
            if self.completed.has_ready():
                for future in self.completed.next_batch(block=False):
                    shard = self.futures.pop(future, None)
                    if shard is None:
                        continue  # cancelled
                    try:
                        out.append(Outcome("done", shard, future.result()))
                    except MachineDefinitionError as e:
                        out.append(Outcome("refused", shard, None, str(e)))
                    except Exception:
                        raise WorkerCrashed(
                            f"the shard {shard.key} #{shard.index} failed on the cluster:\n{traceback.format_exc()}"
                        ) from None
            if out or time.monotonic() >= end:
                return out
            time.sleep(0.05)

    def running(self) -> int:
        return len(self.futures)

    def live(self) -> tuple[int, int]:
        return 0, 0  # a Dask task tells nothing until it ends

    def shrinking_now(self) -> int:
        return 0

    def interrupt(self) -> None:
        """Cancel the shards still running: their runs are lost, the failures already back are saved."""
        self.client.cancel(list(self.futures))
        self.futures.clear()
        self.completed.clear()

    def retire(self, key: str) -> None:
        """Drop the machine's other shards: their results are no longer awaited (each still stops at its budget)."""
        dropped = [f for f, shard in self.futures.items() if shard.key == key]
        for f in dropped:
            del self.futures[f]
        if dropped:
            self.client.cancel(dropped)

    def lend(self) -> None:
        pass  # a Dask task shrinks alone

    def close(self) -> None:
        if self.futures:
            self.interrupt()
        if self._own_client:
            self.client.close()
