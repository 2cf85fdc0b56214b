"""Shared fixtures: a compiled copy of the test contracts and a derandomized Hypothesis profile."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from evmstate import Project
from evmstate.config import Config, ProjectConfig

HERE = Path(__file__).parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"

settings.register_profile(
    "engine",
    derandomize=True,
    deadline=None,
    max_examples=25,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=False,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "engine"))


@pytest.fixture(scope="session")
def contracts_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder holding the test contracts, with its own build cache."""
    root = tmp_path_factory.mktemp("contracts-project")
    shutil.copytree(HERE / "contracts", root / "contracts")
    return root


@pytest.fixture()
def project(contracts_root: Path) -> Project:
    """A fresh chain over the test contracts (compiled once per session through the cache)."""
    return Project(Config(root=contracts_root, project=ProjectConfig(contracts="contracts")))


def make_project(tmp_path: Path, sources: dict[str, str], toml: str | None = None) -> Path:
    """Write a small project (contracts and optional evmstate.toml) and return its root."""
    (tmp_path / "contracts").mkdir(parents=True, exist_ok=True)
    for name, text in sources.items():
        (tmp_path / "contracts" / name).write_text(text)
    if toml is not None:
        (tmp_path / "evmstate.toml").write_text(toml)
    return tmp_path
pytest_plugins = ["pytester"]
