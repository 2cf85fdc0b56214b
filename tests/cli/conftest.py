"""Fixtures for the command-line tests."""

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def example(tmp_path: Path, monkeypatch) -> Path:
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copy(REPO / "evmstate.toml", tmp_path / "evmstate.toml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path
