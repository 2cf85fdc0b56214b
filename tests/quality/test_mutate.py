"""evmstate mutate on the bundled project: what the bundled ERC20 machine's invariants see, and what they do not."""

from __future__ import annotations

import re

import pytest

from .. import zygote
from ..conftest import evmstate_exe, kept_mutant_compiles
from .conftest import FASTEST

pytestmark = [pytest.mark.quality, pytest.mark.processes]

def test_the_bundled_invariants_kill_what_they_see_and_a_log_they_do_not_read_survives(example, monkeypatch, cli_env: dict[str, str]):
    monkeypatch.chdir(example)
    if FASTEST == "revm":  # what kills a mutant does not depend on the EVM; the searches cost less on revm
        with open(example / "evmstate.toml", "a") as f:
            f.write('\n[backend]\nname = "revm"\n')
    # a process of its own, as the quality tier's searches run: Hypothesis draws some values from the literals of the
    # machines loaded in the process (its local constants), and a test process holds other tests' machines too
    with kept_mutant_compiles(example, "kept-mutants-bundled-token"):  # each mutant judged again, not compiled again
        done = zygote.run(
            [evmstate_exe(), "mutate", "machines/erc20.py", "--contract", "Token", "--function", "transfer", "--function",
             "approve", "-n", "1", "--max-examples", "20", "--steps", "10", "-v", "--json", "mutants.json"],
            cwd=example, env=cli_env,
        )
    code, out = done.returncode, done.stdout + done.stderr
    assert code == 0, out
    # the receiver is never credited: the balances invariant sees it, and the report names it
    assert "    36: self.balanceOf[_to] += _value  →  pass  killed by ERC20Machine.invariant_balances (" in out
    # no invariant or rule reads the Approval event: removing it goes unseen
    survivors = out.split("survived:", 1)[1].split("killed:", 1)[0]
    assert "    55: log Approval(owner=msg.sender, spender=_spender, value=_value)  →  pass  (log removed)\n" in survivors
    assert re.search(r"^mutation score \d+\.\d%: \d+ of 18 killed, in \d+\.\ds \(in this process\)$", out, re.M), out
