"""The shrink budget is work, not time: a seed reports the same program, byte for byte, on a quiet machine and on a busy one."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

from .helpers import Forked

pytestmark = [
    pytest.mark.processes,
    pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="slows the busy run by stopping and continuing it: POSIX signals"),
]

# the busy run is stopped for STOPPED seconds out of every STOPPED + RUNNING, as the scheduler of a
# loaded machine holds a process back: it runs at most half as fast, and no CPU is spent on hogs
STOPPED, RUNNING = 0.03, 0.03


def reported(root: Path, name: str, busy: bool = False) -> dict:
    """The failure `evmstate run --seed 1` reports for machines/sale.py, run in a process of its own (held back as on a loaded machine if busy)."""
    # no example or record saved by the other run: both shrink the failure the search finds (the build
    # cache stays: compiling is not what is compared)
    for kept in (root / ".evmstate").glob("*"):
        if kept.name != "build":
            shutil.rmtree(kept)
    # forked from the test zygote in a session of its own: a process of its own, as a new one runs the console script
    proc = Forked(["run", "machines/sale.py", "--seed", "1", "--json", name], cwd=root, env={**os.environ, "NO_COLOR": "1"})
    ended = threading.Event()
    if busy:
        threading.Thread(target=hold_back, args=(proc.pid, ended), daemon=True).start()
    try:
        out, _ = proc.communicate(timeout=600)
    finally:
        ended.set()
        proc.kill()
    assert proc.returncode == 1, out
    (result,) = json.loads((root / name).read_text())["results"]
    return result["failure"]


def hold_back(pid: int, ended: threading.Event) -> None:
    """Stop and continue the process group of pid in turn until ended is set (then leave it running)."""
    try:
        while not ended.is_set():
            os.killpg(pid, signal.SIGSTOP)
            ended.wait(STOPPED)
            os.killpg(pid, signal.SIGCONT)
            ended.wait(RUNNING)
    except ProcessLookupError:
        pass  # the run ended


def test_a_seed_shrinks_to_the_same_program_under_load(example):
    # a budget that ends shrinking part way (a tenth of a second of work: 100 replayed steps): where it ends
    # must not depend on how fast the replays go. Seed 1 finds the bug at example 11 (seed 0 at 27), and its
    # shrinking runs Hypothesis's and then evmstate's passes (chunks, singles, reroute, values: 8 steps to 2)
    # before the budget stops it, so the program compared is one that each pass changed
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nshrink_time = 0.1\n")
    quiet = reported(example, "quiet.json")
    busy = reported(example, "busy.json", busy=True)
    assert quiet["stopped"].startswith("the shrink budget (0.1 s of work: 100 replayed steps")
    assert busy["program"] == quiet["program"] and busy["stopped"] == quiet["stopped"]
    assert busy["shrink"]["steps"] == quiet["shrink"]["steps"]
