"""evmstate run and replay against anvil through a loopback proxy that counts requests: found, cached, replayed offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..cli.helpers import invoke
from ..conftest import BACKENDS
from .nodes import Anvil, proxy
from .project import evmstate, make_project

pytestmark = pytest.mark.processes

OWNER_MACHINE = """
LIMITS = "{address}"


class OwnerMachine:
    def __init__(cls, Limits):
        cls.limits = Limits.at(LIMITS)

    def rule_nothing(self):
        pass

    def invariant_owner(self):
        assert self.limits.owner() != "0x" + "00" * 20
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_found_at_the_pinned_block_then_from_the_cache_then_through_a_failing_node_then_offline(
    tmp_path: Path, anvil: Anvil, backend: str, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]
) -> None:
    forked = make_project(tmp_path / "project", anvil)
    # what is fetched, cached, replayed and saved is the point, not the program's length: the failures are not shrunk,
    # and runs of 10 steps (two adds above 750 find the bug; LaterMachine, which passes, runs every one of its 30 runs twice)
    toml, phases = forked.root / "evmstate.toml", 'phases = ["generate", "shrink"]'
    assert phases in toml.read_text()
    toml.write_text(toml.read_text().replace(phases, 'phases = ["generate"]\nstateful_step_count = 10'))
    # the installed command runs the first search (run in this process on revm, its fetches from the proxy
    # in this process got no answer within [fork] timeout); the runs after it ask the same of the library in this process
    # (CliRunner), without starting Python again: the second in two worker processes, which fetch nothing
    monkeypatch.chdir(forked.root)
    counted = proxy(anvil.url)
    try:
        first = evmstate(forked.root, "run", "--backend", backend, "--fork-url", counted.url, "--fork-block", str(forked.pinned))
        assert first.returncode == 1, first.stdout + first.stderr
        assert f"forked from chain 31337 at block {forked.pinned}" in first.stdout.splitlines()[0]
        assert "LimitsMachine" in first.stdout and "total above the limit" in first.stdout
        # the machine pinned to the later block (limit 10**18) passes: the state is the block's, not the node's now
        assert "✓ [2/2] machines/limits.py::LaterMachine" in first.stdout and "1 passed, 1 failed" in first.stdout
        fetched = len(counted.requests)
        assert fetched > 0
        assert {"eth_getStorageAt", "eth_getCode", "eth_getBlockByNumber"} <= set(counted.calls)
        cache = forked.root / ".evmstate" / "fork" / "31337" / str(forked.pinned)
        assert json.loads((cache / f"{forked.address.lower()}.json").read_text())["storage"]["0"] == hex(1500)

        # again, in two worker processes: not one request, everything comes from the cache folder
        code, second = invoke("run", "-n", "2", "--backend", backend, "--fork-url", counted.url, "--fork-block", str(forked.pinned))
        assert code == 1, second
        assert "total above the limit" in second
        assert len(counted.requests) == fetched
        # the same failure replayed at the later block, where the limit is 10**18, no longer fails
        code, later = invoke("replay", "--last", "--backend", backend, "--fork-url", counted.url, "--fork-block", str(forked.later))
        assert code == 0 and "fixed" in later, later

        # every request fails from now on: Limits' owner slot was never read, so OwnerMachine needs the node
        # (a node failing mid-run ends that machine as an error and keeps the failures found)
        (forked.root / "machines" / "owner.py").write_text(OWNER_MACHINE.replace("{address}", forked.address))
        counted.down = True
        code, out = invoke("run", "--backend", backend, "-k", "LimitsMachine or OwnerMachine", "--fork-url", counted.url, "--fork-block", str(forked.pinned))
    finally:
        counted.close()
    assert "LimitsMachine" in out and "total above the limit" in out  # found from the cache, and saved
    assert "OwnerMachine stopped at a limit of evmstate" in out, out
    assert f"the node at {counted.url} failed while evmstate fetched storage slot 2" in out and f"at block {forked.pinned}" in out
    assert code == 1 and "1 failed, 1 error" in out  # a falsified property wins over an error (RunSummary.exit_code)
    code, listed = invoke("failures")
    assert code == 0 and "LimitsMachine" in listed, listed

    anvil.stop()  # no node at all from here on
    code, replayed = invoke("replay", "--last", "--backend", backend)
    assert code == 1, replayed
    assert "still fails" in replayed
    record = json.loads(next((forked.root / ".evmstate" / "failures").glob("*.json")).read_text())
    assert record["settings"]["fork"]["chain_id"] == 31337
