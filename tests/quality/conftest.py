"""What the quality tests share: a project run in this process, and searches on pinned seeds in a fresh one."""

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.runner import Overrides, RunOptions, run

from .. import zygote
from ..conftest import copy_example


# revm where it is installed: for a claim that does not depend on the EVM, where revm's speed is worth having
FASTEST = "revm" if importlib.util.find_spec("pyrevm") is not None else "pyevm"


def run_project(root: Path, *paths: str, seed: int = 0, backend: str = "", **overrides):
    """Run a project folder through the engine (on backend, else the project's); return (summary, events)."""
    events = []
    cfg = config_mod.load(root)
    if backend:
        cfg = cfg.replace(backend=BackendConfig(name=backend))
    opts = RunOptions(tuple(str(root / p) for p in paths), overrides=Overrides(seed=seed, **overrides))
    return run(cfg, opts, events.append), events


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example project."""
    return copy_example(tmp_path)


# Hypothesis draws some values from the constants of every local module the process has loaded,
# so the program a seed finds depends on what else ran in the process. A pinned seed is searched
# in a fresh process, as `evmstate run` would search it, through the library (no command line).
# Each seed starts without an example database: a search, not the replay of a saved failure.
SEARCH = """
import json, shutil, sys
from pathlib import Path
from evmstate import config
from evmstate.config import BackendConfig
from evmstate.runner import Overrides, RunOptions, run

root, path, seeds, overrides, save, backend = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5] == "save", sys.argv[6]
out = []
for seed in seeds:
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    cfg = config.load(root)
    if backend:
        cfg = cfg.replace(backend=BackendConfig(name=backend))
    summary = run(cfg, RunOptions((str(root / path),), overrides=Overrides(seed=seed, **overrides), save_failures=save), lambda e: None)
    (r,) = summary.results
    f = r.failure
    s = f and f.shrink
    out.append({
        "seed": seed, "status": r.status, "examples": r.examples, "progress": r.statistics.get("progress"), "id": r.failure_id,
        "program": f and f.program, "message": f and f.message, "error_type": f and f.error_type, "recorded": f and [step.to_data() for step in f.recorded],
        "shrink": s and {"first_steps": s.first_steps, "hypothesis_steps": s.hypothesis_steps, "steps": s.steps, "seconds": s.seconds},
    })
print(json.dumps(out))
"""


def search(root: Path, path: str, seeds: list[int], *, save: bool = True, env: dict[str, str] | None = None, backend: str = "", **overrides: Any) -> list[dict[str, Any]]:
    """Search the one machine in root/path on each seed, in a fresh process: what each found (on backend, else the project's)."""
    command = [sys.executable, "-c", SEARCH, str(root), path, json.dumps(list(seeds)), json.dumps(overrides), "save" if save else "no", backend]
    done = zygote.run(command, cwd=root, env=None if env is None else {**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])
