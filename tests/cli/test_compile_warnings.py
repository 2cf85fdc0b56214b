"""vyper's warnings in `evmstate run` and `evmstate compile`: under the compile line, once per source file and
warning, in --json, never as a Python warning on stderr; a warm build cache still shows them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import evmstate_exe
from .helpers import invoke

OLD = """event Moved:
    who: indexed(address)
    amount: uint256

total: public(uint256)


@external
def move(amount: uint256):
    self.total += amount
    log Moved(msg.sender, amount)
"""
MACHINE = """class MoveMachine:
    def __init__(cls, Old):
        cls.old = Old.deploy()

    def rule_move(self):
        self.old.move(1)
"""
WARNING = (
    "contracts/Old.vy:11: Deprecation: Instantiating events with positional arguments is deprecated as of v0.4.1"
    " and will be disallowed in a future release. Use kwargs instead e.g.: log Moved(who=msg.sender, amount=amount)"
)


def project(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "machines").mkdir()
    (root / "contracts" / "Old.vy").write_text(OLD)
    (root / "machines" / "move.py").write_text(MACHINE)
    (root / "evmstate.toml").write_text("[hypothesis]\nmax_examples = 3\nstateful_step_count = 3\n")
    return root


@pytest.mark.processes  # the installed command, twice
def test_run_shows_each_warning_under_the_compile_line_and_never_as_a_python_warning(tmp_path: Path, cli_env: dict[str, str]):
    root = project(tmp_path / "p")
    exe = evmstate_exe()
    env = {**cli_env, "COLUMNS": "300", "PYTHONWARNINGS": "default"}
    for cached in ("", " (1 from the build cache)"):
        done = subprocess.run([exe, "run", "--seed", "1", "--json", "out.json"], cwd=root, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        (at,) = [i for i, line in enumerate(lines) if line.startswith("compiled 1 contract in ")]
        assert lines[at].endswith(cached) and lines[at + 1] == WARNING and not lines[at + 2].startswith("contracts/")
        assert "vyper_warn" not in done.stderr and "Warning" not in done.stderr and "site-packages" not in done.stdout + done.stderr
        report = json.loads((root / "out.json").read_text())
        assert report["compile_warnings"] == [
            {"path": "contracts/Old.vy", "line": 11, "kind": "Deprecation", "message": WARNING.split(": Deprecation: ")[1], "also": []}
        ]


def test_compile_lists_the_warnings(tmp_path: Path, monkeypatch, cli_env: dict[str, str]):
    root = project(tmp_path / "p")
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "300")
    code, out = invoke("compile")
    assert code == 0 and out.splitlines()[-1] == WARNING, out
    code, out = invoke("run", "-q", "--seed", "1")
    assert code == 0 and WARNING in out.splitlines(), out  # -q too
