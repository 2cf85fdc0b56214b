"""Whether learning which rules end a machine's progress pays: a shop whose shutdown() makes every
later call revert, with a bug only a long run of sales before the shutdown reaches
(benchmarks/projects/shutdown/). Over several seeds, at `evmstate run`'s defaults, with the learning on (the
default) and off (every rule drawn alike): the share of transactions that reverted, the runs to
the first failure, and whether the bug was found.

Run: python benchmarks/rule_weights.py [--seeds N] [--backend revm]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from evmstate import config as config_mod
from evmstate.engine import swarm
from evmstate.runner import Overrides, RunOptions, run

HERE = Path(__file__).resolve().parent


def one(root: Path, seed: int, backend: str | None) -> tuple[bool, int | None, float, int]:
    """(found, first failure at run, share of transactions reverted, runs)."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    cfg = config_mod.load(root)
    if backend is not None:
        cfg = cfg.replace(backend=config_mod.BackendConfig(name=backend))
    summary = run(cfg, RunOptions((str(root / "machines" / "shop.py"),), overrides=Overrides(seed=seed), save_failures=False), lambda e: None)
    (result,) = summary.results
    sent = sum(s.transactions for s in result.rules.values())
    reverted = sum(s.transactions_reverted for s in result.rules.values())
    return result.failure is not None, result.statistics.get("first failure at run"), reverted / sent if sent else 0.0, result.runs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--backend", choices=["pyevm", "revm"])
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "shop"
        shutil.copytree(HERE / "projects" / "shutdown", root)
        one(root, 0, args.backend)  # compile
        for label, learn in (("learned (default)", True), ("uniform", False)):
            swarm.LEARN = learn
            found, shares, firsts = 0, [], []
            started = time.process_time()
            for seed in range(args.seeds):
                hit, first, share, runs = one(root, seed, args.backend)
                found += hit
                shares.append(share)
                firsts.append(first)
                print(f"{label:18} seed {seed}: {'found at run ' + str(first) if hit else 'NOT found'}; {100 * share:.0f}% of transactions reverted")
            print(f"{label:18} found on {found}/{args.seeds} seeds, median share of transactions reverted {100 * statistics.median(shares):.0f}% ({time.process_time() - started:.0f} CPU s)")
    swarm.LEARN = True
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
