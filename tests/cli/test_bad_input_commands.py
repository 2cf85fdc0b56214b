"""The installed evmstate command on bad input: exit 2, the file and the key or line named, no traceback.

A handful through the console script in a process of its own (the corpora in tests/unit/test_bad_settings.py,
tests/unit/test_bad_machines.py and tests/integration/test_bad_sources.py run in this one): what it prints and
the exit code it returns. The process is forked from the test zygote (tests/zygote.py), which runs the script's
file as a new Python does (tests/unit/test_zygote.py checks its answers against a new process's); none of these
is about the interpreter's start.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .. import zygote
from ..conftest import evmstate_exe, PLAIN

pytestmark = pytest.mark.processes

MACHINE = "class M:\n    def rule_a(self):\n        pass\n"


def evmstate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = evmstate_exe()
    env = {**os.environ, **PLAIN}
    return zygote.run([exe, *args], cwd=root, env=env, timeout=120)


@pytest.mark.parametrize(
    "settings, said",
    [
        pytest.param(b"\xff[accounts]\n", "evmstate.toml:1: cannot read: byte 0xff at line 1, column 1 is not UTF-8 text; save the file as UTF-8.", id="not-utf8"),
        pytest.param(b"[backend]\nname = 100000\n", 'evmstate.toml: [backend] name = 100000 is not a backend; use "pyevm" (the default) or "revm".', id="backend-a-number"),
        pytest.param(b"[accounts]\ncount = 1000000000\n", "evmstate.toml: [accounts] count = 1000000000 is more than 1000", id="a-billion-accounts"),
    ],
)
def test_bad_settings(tmp_path: Path, settings: bytes, said: str) -> None:
    (tmp_path / "evmstate.toml").write_bytes(settings)
    done = evmstate(tmp_path, "run")
    assert done.returncode == 2 and f"error: {tmp_path / said}" in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_machine_file_with_a_null_byte_and_fork_block_without_a_node(tmp_path: Path) -> None:
    (tmp_path / "evmstate.toml").write_text("")
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "m.py").write_bytes(MACHINE.replace("M:", "M:\0").encode())
    done = evmstate(tmp_path, "run")
    assert done.returncode == 2 and "machines/m.py:1: cannot import: SyntaxError: cannot read: a null byte (\\x00) at line 1, column 9" in done.stdout, done.stdout + done.stderr
    done = evmstate(tmp_path, "run", "--fork-block", "5")
    assert done.returncode == 2 and "--fork-block 5: no node to fork is given" in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_contract_not_in_utf8(tmp_path: Path) -> None:
    (tmp_path / "evmstate.toml").write_text("")
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "C.vy").write_bytes(b"# pragma version ~=0.4.0\n# caf\xe9\nx: public(uint256)\n")
    done = evmstate(tmp_path, "compile")
    assert done.returncode == 2 and "C.vy:2: cannot read: byte 0xe9 at line 2, column 6 is not UTF-8 text; save the file as UTF-8." in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
