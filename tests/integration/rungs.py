"""One campaign shard on the rungs project (tests/projects/rungs), as a worker runs it, and the corpus counts it reports.

Imported by the corpus tests and by the script they run in a fresh process.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from evmstate import config as config_mod
from evmstate.engine.events import MachineFinished
from evmstate.runner import Overrides
from evmstate.scale.pool import ProjectSource
from evmstate.scale.shards import Shard, run_shard

RUNGS = Path(__file__).parents[1] / "projects" / "rungs"
KEY = "machines/rungs.py::RungsMachine"
# a campaign seed whose first invocation of RUNS runs does not find the bug, and whose second
# (seed + 100, as the next campaign would have another) finds it only from the first's corpus
# (seeds 0, 4, 5 and 7 of 0-13 do, with runs drawn by evmstate's own loop, as campaigns draw them; 7 did with its
# earlier draw of fresh integers too)
SEED, RUNS = 7, 20


def invocation(root: Path, seed: int, runs: int = RUNS, paths: tuple[str, ...] = ("machines/rungs.py",)) -> MachineFinished:
    """One shard of a campaign on root, as a worker runs it; the example database is emptied first, so that it searches."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    cfg = config_mod.load(root)
    state = ProjectSource(cfg, tuple(str(root / p) for p in paths)).open()
    # shard 1: a machine's first shard is run's own search (scale/shards.py), the others the own loop's, which these tests measure
    return run_shard(state, Shard(KEY, 1, seed, Overrides(max_examples=runs), None)).result


def corpus_counts(result: MachineFinished | dict[str, Any]) -> dict[str, int]:
    text = (result if isinstance(result, dict) else result.statistics)["corpus"]
    counts = {what: int(n) for n, what in re.findall(r"(\d+) (kept runs loaded|added|stale removed)", text)}
    return {"loaded": counts["kept runs loaded"], "added": counts["added"], "stale": counts.get("stale removed", 0)}
