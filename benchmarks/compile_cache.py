"""Build cache figures: a cold compile, and a warm start (every source's imports resolved to check
the cache, nothing compiled) as a new process makes it and as a later one in the same process
makes it (files parsed once), for the bundled example, for a contract built on snekmate, and for
three contracts importing snekmate's modules from a copy of snekmate inside the contracts folder
(as a project that vendors it: only the contracts are compiled, not the modules they import).

Run: python benchmarks/compile_cache.py   (prints one line per figure)
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from evmstate.compiler import scan as import_scan
from evmstate.compiler.sources import compile_project

REPO = Path(__file__).resolve().parent.parent

SNEK_TOKEN = """
from snekmate.auth import ownable
from snekmate.tokens import erc20

initializes: ownable
initializes: erc20[ownable := ownable]
exports: erc20.__interface__


@deploy
def __init__():
    ownable.__init__()
    erc20.__init__("Token", "TKN", 18, "Token", "1")
"""

OWNED_COUNTER = """
from snekmate.auth import ownable

initializes: ownable
exports: ownable.__interface__

count: public(uint256)


@deploy
def __init__():
    ownable.__init__()


@external
def bump():
    ownable._check_owner()
    self.count += 1
"""

VAULT = """
from ethereum.ercs import IERC20
from snekmate.extensions import erc4626

initializes: erc4626
exports: erc4626.__interface__


@deploy
def __init__(asset: IERC20):
    erc4626.__init__("Vault", "VLT", asset, 0, "Vault", "1")
"""


def figures(name: str, contracts: Path, rounds: int = 5) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "build"
        t = time.perf_counter()
        b = compile_project(contracts, build)
        cold = time.perf_counter() - t
        first, later = [], []
        for _ in range(rounds):
            import_scan._PARSED.clear()  # as in a new process
            import_scan._PLACED.clear()
            t = time.perf_counter()
            again = compile_project(contracts, build)
            first.append(time.perf_counter() - t)
            t = time.perf_counter()
            compile_project(contracts, build)
            later.append(time.perf_counter() - t)
        assert again.compiled == [] and not again.errors
        n = len(b.artifacts)
        print(
            f"{name}: {n} contracts, {len(b.inputs)} input files; cold compile {cold:.2f}s,"
            f" warm start {min(first) * 1000:.1f} ms in a new process, {min(later) * 1000:.1f} ms after"
        )


def main() -> None:
    figures("example project", REPO / "contracts")
    with tempfile.TemporaryDirectory() as tmp:
        contracts = Path(tmp) / "contracts"
        contracts.mkdir()
        (contracts / "SnekToken.vy").write_text(SNEK_TOKEN)
        figures("snekmate ERC20", contracts)
        shutil.rmtree(contracts)
    import snekmate

    with tempfile.TemporaryDirectory() as tmp:
        contracts = Path(tmp) / "contracts"
        shutil.copytree(Path(list(snekmate.__path__)[0]), contracts / "snekmate", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
        (contracts / "SnekToken.vy").write_text(SNEK_TOKEN)
        (contracts / "OwnedCounter.vy").write_text(OWNED_COUNTER)
        (contracts / "Vault.vy").write_text(VAULT)
        figures("snekmate copied into contracts/, 3 contracts", contracts, rounds=2)


if __name__ == "__main__":
    main()
