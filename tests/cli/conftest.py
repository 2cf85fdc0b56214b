"""Fixtures for the command-line tests."""

from pathlib import Path

import pytest

from ..conftest import copy_example


@pytest.fixture()
def example(tmp_path: Path, monkeypatch) -> Path:
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path
