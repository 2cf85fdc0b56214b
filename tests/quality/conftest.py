import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parents[2]


def run_project(root: Path, *paths: str, seed: int = 0, **overrides):
    """Run a project folder through the engine; return (summary, events)."""
    events = []
    cfg = config_mod.load(root)
    opts = RunOptions(tuple(str(root / p) for p in paths), overrides=Overrides(seed=seed, **overrides))
    return run(cfg, opts, events.append), events


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example project."""
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copy(REPO / "evmstate.toml", tmp_path / "evmstate.toml")
    return tmp_path
