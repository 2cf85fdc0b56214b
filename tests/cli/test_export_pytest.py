"""The pytest tests `evmstate export --pytest` writes, run by pytest itself: each fails on the bundled code and passes once its bug is fixed.

One record per bundled example's failure (tests/export_cases.py); each exported test in the
project's tests/ folder; pytest runs them all in one process, on the bundled contracts and then
on a copy where every planted bug is corrected.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.compiler.sources import compile_project

from ..conftest import BUILDS, copy_example, interprocess_lock
from ..export_cases import FIXES, PROGRAMS, fix, pinned_record
from ..forked_pytest import run_pytest
from .helpers import invoke

pytestmark = pytest.mark.processes  # pytest runs the exported tests in a process of its own (forked)


def warm_fixed(root: Path) -> None:
    """The fixed contracts compiled into a build cache kept between runs (as warm_build keeps the bundled ones), copied into root."""
    (contracts, _), settings = config_mod.load(root).compile_inputs()
    build = BUILDS / "build-export-fixed"
    with interprocess_lock(BUILDS / "build-export-fixed.lock"):
        compile_project(contracts, build, **settings)  # a cache hit when nothing changed since the last run
    shutil.copytree(build, root / ".evmstate" / "build", dirs_exist_ok=True)


def pytest_in(root: Path) -> tuple[str, str]:
    """pytest run on root/tests in a process of its own, as a user runs it, at a fixed width without colour (the test's cli_env): its stdout and stderr.

    The process is forked from this one (tests/forked_pytest.py), which has imported evmstate, vyper and Hypothesis already.
    """
    with contextlib.chdir(root):
        _, out, err = run_pytest(["tests", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0", "-W", "ignore"])
    return out, err


def test_exported_tests_fail_on_the_bugs_and_pass_once_they_are_fixed(tmp_path, monkeypatch, cli_env):
    root = copy_example(tmp_path / "project")
    (root / "tests").mkdir()
    monkeypatch.chdir(root)
    expected = {}
    for (path, name), steps in PROGRAMS.items():
        record = pinned_record(root, path, name, steps)
        code, out = invoke("export", record.id, "--pytest", "tests")
        assert code == 0, out
        expected[f"test_{name.lower()}_{record.id}"] = record.error["message"].splitlines()[0]
    out, err = pytest_in(root)
    assert f"{len(expected)} failed" in out, out + err
    for test, message in expected.items():
        # each fails with its own failure: the line of pytest's short summary names the test and the error
        summary = rf"^FAILED tests/{test}\.py::{test} - ([\w.]+: )?{re.escape(message[:60])}"
        assert re.search(summary, out, re.M), (test, out)
    for source, changes in FIXES.items():
        fix(root, source, changes)
    warm_fixed(root)
    out, err = pytest_in(root)
    assert out.splitlines()[-1].startswith(f"{len(expected)} passed"), out + err
