"""The shrink budget is work, not time: a seed reports the same program, byte for byte, on a quiet machine and on a busy one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

# CPU hogs beside the second run: on 2 cores, a load of 4 more than the test's own
HOGS = 4
HOG = "while True: pass"


def reported(root: Path, name: str) -> dict:
    """The failure `evmstate run --seed 0` reports for machines/sale.py, run in a process of its own."""
    exe = str(Path(sys.executable).parent / "evmstate")
    shutil.rmtree(root / ".evmstate", ignore_errors=True)  # no example saved by the other run: both shrink the failure the search finds
    done = subprocess.run([exe, "run", "machines/sale.py", "--seed", "0", "--json", name], cwd=root, env={**os.environ, "NO_COLOR": "1"}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    (result,) = json.loads((root / name).read_text())["results"]
    return result["failure"]


def test_a_seed_shrinks_to_the_same_program_under_load(example):
    # a budget that ends shrinking part way (a tenth of a second of work: 100 replayed steps): where it ends
    # must not depend on how fast the replays go
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nshrink_time = 0.1\n")
    quiet = reported(example, "quiet.json")
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(HOGS)]
    try:
        busy = reported(example, "busy.json")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert quiet["stopped"].startswith("the shrink budget (0.1 s of work: 100 replayed steps")
    assert busy["program"] == quiet["program"] and busy["stopped"] == quiet["stopped"]
    assert busy["shrink"]["steps"] == quiet["shrink"]["steps"]
