"""What each process of the shared-Redis test does: find one failure, then replay the other's.

A module of its own (not a test file), so that the processes started for it import only this and what they run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def find_then_replay(root: str, mine: str, theirs: str, barrier: Any) -> list[dict[str, Any]]:
    """Run machine mine (finding its failure), wait for the other process to find its own, then run theirs."""
    from evmstate import config as config_mod
    from evmstate.runner import Overrides, RunOptions, run

    cfg = config_mod.load(Path(root))
    seen = []
    for i, path in enumerate((mine, theirs)):
        if i == 1:
            barrier.wait(timeout=300)  # the other process has saved its failure
        summary = run(cfg, RunOptions((str(Path(root) / path),), overrides=Overrides(stateful_step_count=5, seed=1)), lambda e: None)
        (r,) = summary.results
        shrink = r.failure.shrink if r.failure is not None else None
        seen.append(
            {
                "path": path,
                "status": r.status,
                "program": r.failure.program if r.failure is not None else None,
                "replayed": shrink.replayed if shrink is not None else None,
                "first failure at run": r.statistics.get("first failure at run"),
            }
        )
    return seen
