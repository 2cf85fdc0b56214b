"""Fixtures for the command-line tests."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..conftest import copy_example, plain_output
from .helpers import invoke


@pytest.fixture()
def example(tmp_path: Path, monkeypatch, cli_env: dict[str, str]) -> Path:
    """A copy of the bundled example project, its build cache warm: the current folder, output plain (cli_env)."""
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@dataclass(frozen=True)
class DepositerRun:
    """What `evmstate run machines/depositer.py --seed 1 --json run.json` did in a copy of the example project."""

    root: Path  # the project it ran in, as the run left it (do not change it)
    code: int
    out: str  # what it printed, plain and 200 columns wide
    record: Path  # the one failure record it saved
    report: dict[str, Any]  # its JSON report


@pytest.fixture(scope="session")
def depositer_run(tmp_path_factory: pytest.TempPathFactory) -> DepositerRun:
    """The search for the Depositer bug on seed 1, run once a session for every test that reads its output, record or report."""
    root = copy_example(tmp_path_factory.mktemp("depositer-seed-1"))
    with pytest.MonkeyPatch.context() as mp:
        plain_output(mp)
        mp.chdir(root)
        code, out = invoke("run", "machines/depositer.py", "--seed", "1", "--json", "run.json")
    records = sorted((root / ".evmstate" / "failures").glob("*.json"))
    assert code == 1 and len(records) == 1, out
    return DepositerRun(root, code, out, records[0], json.loads((root / "run.json").read_text()))


@pytest.fixture()
def recorded(example: Path, depositer_run: DepositerRun) -> Path:
    """The example project with the failure record that run saved (a record holds no path of its project); the record's path here."""
    folder = example / ".evmstate" / "failures"
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy(depositer_run.record, folder))
