"""Fixtures for the command-line tests."""

from pathlib import Path

import pytest

from ..conftest import copy_example


@pytest.fixture()
def example(tmp_path: Path, monkeypatch, cli_env: dict[str, str]) -> Path:
    """A copy of the bundled example project, its build cache warm: the current folder, output plain (cli_env)."""
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path
