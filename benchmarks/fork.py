"""Fork mode: steps/s of the ERC20 model machine over a forked chain (first run, then from the cache) against a fresh chain.

The token is deployed on a local anvil node (npm's @foundry-rs/anvil; $EVMSTATE_TEST_ANVIL, the
tests' build folder, or installed there with npm), its supply handed to accounts[0] at the start
of the machine, and the same machine (the bundled machines/erc20.py's rules and invariants, 30
runs x 50 steps, generate phase only, one seed) runs:
  fresh   the token deployed on a fresh chain (no fork)
  first   forked at the pinned block with an empty cache: every account and slot read is fetched
  cached  forked again in a new source (as a new process): everything is read from .evmstate/fork/
  twin    the forked machine's own text on a fresh chain, the token deployed there by the holder
on py-evm and on revm. Aim: "cached" within 10% of "fresh". The forked machine checks one balance
more than erc20.py and Hypothesis draws from the addresses in its text: "cached/twin" leaves that
out and is the cost of the fork alone.

Run: python benchmarks/fork.py [--repeats N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from eth_utils import to_checksum_address  # noqa: E402

from evmstate import config as config_mod  # noqa: E402
from evmstate.config import BackendConfig, ForkConfig  # noqa: E402
from evmstate.evm.fork.store import forget_sources, loopback_answers, requests_made  # noqa: E402
from evmstate.runner import Overrides, RunOptions, run  # noqa: E402
from tests.fork.nodes import Anvil, anvil_in, install_anvil, rpc  # noqa: E402

FRESH = (REPO / "machines" / "erc20.py").read_text()  # the bundled ERC20 machine, on a fresh chain
# the holder the node minted to hands the supply over; the search may draw its address too (a value the token stored)
FORKED = FRESH.replace(
    '''        cls.token = Token.deploy("Test Token", "TST", 18, "1000 ether", {"from": accounts[0]})''',
    '''        cls.token = Token.at("TOKEN")
        cls.token.transfer(accounts[0], "1000 ether", {"from": "HOLDER"})''',
).replace(
    "        self.balances[self.accounts[0]] = 1000 * 10**18",
    "        self.balances[self.accounts[0]] = 1000 * 10**18\n        self.balances[\"HOLDER\"] = 0",
)


# the forked machine's own text on a fresh chain: the holder deploys the token there (at the
# address it has on the node), so that the two differ by where the state comes from alone. The
# fork's machine does more than erc20.py (the holder's balance is checked too, and Hypothesis
# draws from the two addresses in its source), so "cached/twin" is the fork's own cost
TWIN = FORKED.replace(
    '''        cls.token = Token.at("TOKEN")''',
    '''        cls.token = Token.deploy("Test Token", "TST", 18, "1000 ether", {"from": "HOLDER"})
        assert cls.token.address.lower() == "TOKEN".lower()  # where the node has it''',
)


def anvil_binary() -> Path:
    import os

    given = os.environ.get("EVMSTATE_TEST_ANVIL")
    if given:
        return Path(given) if Path(given).is_file() else anvil_in(Path(given))  # type: ignore[return-value]
    from tests.conftest import BUILDS

    return anvil_in(BUILDS / "anvil") or install_anvil(BUILDS / "anvil")


def deploy_token(node: Anvil, root: Path) -> str:
    from eth_abi import encode

    from evmstate import Project

    artifact = Project.load(root).artifacts["Token"]
    args = encode(["string", "string", "uint8", "uint256"], ["Test Token", "TST", 18, 1000 * 10**18])
    tx = rpc(node.url, "eth_sendTransaction", {"from": node.account, "data": "0x" + (artifact.bytecode + args).hex(), "gas": hex(5_000_000)})
    return node.receipt(tx)["contractAddress"]


def steps_per_second(root: Path, machine: str, backend: str, fork: ForkConfig | None) -> tuple[float, int]:
    """Steps per second of one run, and what it asked: py-evm's requests to the node, or on revm what its loopback node answered."""
    cfg = config_mod.load(root).replace(backend=BackendConfig(name=backend, named=True))
    if fork is not None:
        cfg = cfg.replace(fork=fork)
    options = RunOptions((str(root / "machines" / machine),), overrides=Overrides(max_examples=30, stateful_step_count=50, seed=7, phases=("generate",)), save_failures=False)
    asked = requests_made if backend == "pyevm" else loopback_answers
    before = asked()
    summary = run(cfg, options, lambda e: None)
    result = summary.results[0]
    assert result.status == "passed", result.error or result.failure
    return result.steps / result.elapsed, asked() - before


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    node = Anvil(anvil_binary())
    work = Path(tempfile.mkdtemp(prefix="evmstate-fork-bench-"))
    try:
        root = work / "project"
        shutil.copytree(REPO / "contracts", root / "contracts")
        (root / "machines").mkdir()
        (root / "evmstate.toml").write_text("")
        token = deploy_token(node, root)
        block = node.block()
        (root / "machines" / "fresh.py").write_text(FRESH)
        holder = to_checksum_address(node.account)
        (root / "machines" / "forked.py").write_text(FORKED.replace("TOKEN", token).replace("HOLDER", holder))
        (root / "machines" / "twin.py").write_text(TWIN.replace("TOKEN", token).replace("HOLDER", holder))
        print(f"ERC20 machine, 30 runs x 50 steps, generate only; token forked at block {block} of anvil; median of {repeats}")
        print("fresh: machines/erc20.py on a fresh chain; twin: the forked machine's text on a fresh chain (the holder deploys the token)")
        print(f"{'backend':8} {'fresh':>10} {'twin':>10} {'first':>10} {'cached':>10} {'cached/fresh':>13} {'cached/twin':>12}  asked (first, cached): py-evm's requests to the node; revm's of its loopback node")
        for backend in ("pyevm", "revm"):
            fresh, twin, first, cached, asked = [], [], [], [], (0, 0)
            for _ in range(repeats):
                fresh.append(steps_per_second(root, "fresh.py", backend, None)[0])
                twin.append(steps_per_second(root, "twin.py", backend, None)[0])
                shutil.rmtree(root / ".evmstate" / "fork", ignore_errors=True)
                forget_sources()
                rate, first_requests = steps_per_second(root, "forked.py", backend, ForkConfig(url=node.url, block=block))
                first.append(rate)
                forget_sources()  # a new source reads the cache folder, as a new process or a worker would
                rate, cached_requests = steps_per_second(root, "forked.py", backend, ForkConfig(url=node.url, block=block))
                cached.append(rate)
                asked = (first_requests, cached_requests)
            f, w = statistics.median(fresh), statistics.median(twin)
            s, c = statistics.median(first), statistics.median(cached)
            print(f"{backend:8} {f:10.0f} {w:10.0f} {s:10.0f} {c:10.0f} {c / f:13.2f} {c / w:12.2f}  {asked[0]}, {asked[1]}")
    finally:
        forget_sources()
        node.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    t = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t:.0f} s)")
