"""evmstate mutate on the bundled project: what the bundled ERC20 machine's invariants see, and what they do not."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from ..conftest import BUILDS, evmstate_exe, interprocess_lock
from .conftest import FASTEST

pytestmark = [pytest.mark.quality, pytest.mark.processes]

# the mutants compiled (evmstate mutate's compiled/ and build/ entries, keyed on the mutated text, every other file the
# contract compiles from and the compiler settings), kept between runs as the projects' builds are (tests/conftest.py,
# kept_build): each run judges every mutant again, its baseline/ and verdict/ entries are never kept.
# tests/integration/test_mutate.py compiles its mutants every run.
KEPT = "kept-mutants-bundled-token"
COMPILED = ("compiled", "build")


@contextlib.contextmanager
def kept_compiles(root: Path) -> Iterator[None]:
    """root's mutation cache starts with the compiles kept in BUILDS/KEPT, and what it holds of them after is kept."""
    mutants, kept = root / ".evmstate" / "mutants", BUILDS / KEPT
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / f"{KEPT}.lock"):
        for kind in COMPILED:
            if (kept / kind).is_dir():
                shutil.copytree(kept / kind, mutants / kind)
    yield
    with interprocess_lock(BUILDS / f"{KEPT}.lock"):
        for kind in COMPILED:
            if (mutants / kind).is_dir():
                shutil.rmtree(kept / kind, ignore_errors=True)
                shutil.copytree(mutants / kind, kept / kind)


def test_the_bundled_invariants_kill_what_they_see_and_a_log_they_do_not_read_survives(example, monkeypatch, cli_env: dict[str, str]):
    monkeypatch.chdir(example)
    if FASTEST == "revm":  # what kills a mutant does not depend on the EVM; the searches cost less on revm
        with open(example / "evmstate.toml", "a") as f:
            f.write('\n[backend]\nname = "revm"\n')
    # a process of its own, as the quality tier's searches run: Hypothesis draws some values from the literals of the
    # machines loaded in the process (its local constants), and a test process holds other tests' machines too
    with kept_compiles(example):
        done = subprocess.run(
            [evmstate_exe(), "mutate", "machines/erc20.py", "--contract", "Token", "--function", "transfer", "--function",
             "approve", "-n", "1", "--max-examples", "20", "--steps", "10", "-v", "--json", "mutants.json"],
            capture_output=True, text=True, cwd=example, env=cli_env,
        )
    code, out = done.returncode, done.stdout + done.stderr
    assert code == 0, out
    # the receiver is never credited: the balances invariant sees it, and the report names it
    assert "    36: self.balanceOf[_to] += _value  →  pass  killed by ERC20Machine.invariant_balances (" in out
    # no invariant or rule reads the Approval event: removing it goes unseen
    survivors = out.split("survived:", 1)[1].split("killed:", 1)[0]
    assert "    55: log Approval(owner=msg.sender, spender=_spender, value=_value)  →  pass  (log removed)\n" in survivors
    assert re.search(r"^mutation score \d+\.\d%: \d+ of 18 killed, in \d+\.\ds \(in this process\)$", out, re.M), out
