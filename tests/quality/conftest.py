from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import copy_example


def run_project(root: Path, *paths: str, seed: int = 0, **overrides):
    """Run a project folder through the engine; return (summary, events)."""
    events = []
    cfg = config_mod.load(root)
    opts = RunOptions(tuple(str(root / p) for p in paths), overrides=Overrides(seed=seed, **overrides))
    return run(cfg, opts, events.append), events


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example project."""
    return copy_example(tmp_path)
