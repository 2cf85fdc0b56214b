"""--fork-block says which block to fork: without a node to fork (--fork-url, [fork] url, or a cached block
of the chain [fork] chain_id names) it is a usage error (exit 2), never silently a run on a fresh chain.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evmstate.config import load
from evmstate.failures import FailureRecord, FailureStore

from tests.cli.helpers import invoke

from .cache_folder import BLOCK

NO_NODE = "no node to fork is given. Add --fork-url URL, or set url under [fork] in evmstate.toml"


@pytest.mark.parametrize("command", ["run", "fuzz"])
def test_fork_block_without_a_node_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    (tmp_path / "evmstate.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    code, out = invoke(command, "--fork-block", "5")
    assert code == 2 and f"--fork-block 5: {NO_NODE}" in out, out
    # a tag needs a node to ask, whatever the cache holds
    (tmp_path / "evmstate.toml").write_text("[fork]\nchain_id = 1\n")
    code, out = invoke(command, "--fork-block", "latest")
    assert code == 2 and f"--fork-block latest: {NO_NODE}" in out, out


def test_fork_block_of_a_cached_block_runs_from_the_cache(cached_project: Path) -> None:
    (cached_project / "evmstate.toml").write_text('[hypothesis]\nmax_examples = 2\nphases = ["generate"]\n\n[fork]\nchain_id = 1\n')
    code, out = invoke("run", "--fork-block", str(BLOCK))
    assert code == 1 and f"forked from chain 1 at block {BLOCK}" in out and "x is not 1" in out, out


def test_fork_block_on_replaying_a_failure_found_on_a_fresh_chain_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "evmstate.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    FailureStore.of(load(tmp_path)).save(FailureRecord(id="fresh01", kind="machine", path="machines/m.py", name="M", error={"type": "AssertionError", "message": "x"}, steps=[], program=[]))
    code, out = invoke("replay", "fresh01", "--fork-block", "5")
    assert code == 2 and "--fork-block 5: failure fresh01 was found on a fresh chain, not on a fork, and replays on one: leave out --fork-block" in out, out
