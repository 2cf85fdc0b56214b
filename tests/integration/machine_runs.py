"""A machine's source run through the engine over the test contracts, and the module it was loaded as."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from evmstate import config as config_mod
from evmstate.compiler.sources import compile_project
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import BUILDS, HERE, TEST_CONTRACTS, interprocess_lock

# the test contracts' builds, compiled once and shared by every process of every run of the suite
# (the build cache is keyed on content and root-relative paths); contracts_root keeps its builds there too
SHARED = BUILDS / TEST_CONTRACTS


def loaded(tmp_path: Path):
    """The machine module that run_source() loaded from tmp_path."""
    import sys

    target = str(tmp_path / "machines" / "m.py")
    return next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == target)


def run_source(tmp_path: Path, source: str, *, toml: str = "", **overrides):
    shutil.copytree(HERE / "contracts", tmp_path / "contracts", dirs_exist_ok=True)
    (tmp_path / "machines").mkdir(exist_ok=True)
    (tmp_path / "machines" / "m.py").write_text(textwrap.dedent(source))
    (tmp_path / "evmstate.toml").write_text(toml)
    cfg = config_mod.load(tmp_path)
    (contracts, build), settings = cfg.compile_inputs()
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / f"{SHARED.name}.lock"):
        compile_project(contracts, SHARED, **settings)  # a cache hit but the first time with these settings
        # under the lock: kept_build (contracts_root) replaces the folder with what its load left
        shutil.copytree(SHARED, build, dirs_exist_ok=True)
    events: list = []
    overrides.setdefault("seed", 0)
    summary = run(cfg, RunOptions(overrides=Overrides(**overrides)), events.append)
    return summary, events
