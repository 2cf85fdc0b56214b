"""What a process that writes failure records runs (test_failures.py): a module that imports only the record store, so that a spawned process starts in a fraction of a second."""

from pathlib import Path

from evmstate.failures import FailureRecord, FailureStore


def write_records(folder: str, n: int, tag: int) -> None:
    """Save the record 'same' n times into folder, each a large one tagged tag."""
    store = FailureStore(Path(folder))
    for i in range(n):
        store.save(FailureRecord(id="same", kind="machine", path="p.py", name="M", error={"type": "E", "message": str(tag)}, steps=[{"rule": "r", "arguments": {"x": "y" * 5000}, "results": []}] * 20, program=[f"{tag}-{i}"]))
