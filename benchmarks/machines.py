"""Steps/s of the bundled machines (a step = one rule + all invariants over 10 accounts).

Run: python benchmarks/machines.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parent.parent


def steps_per_second(root: Path, path: str) -> tuple[float, str]:
    summary = run(config_mod.load(root), RunOptions((str(root / path),), overrides=Overrides(max_examples=50, stateful_step_count=50, seed=0)), lambda e: None)
    (result,) = summary.results
    return result.steps / result.elapsed, result.status


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("contracts", "machines"):
            shutil.copytree(REPO / name, root / name)
        shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
        dep = root / "contracts" / "Depositer.vy"
        dep.write_text(dep.read_text().replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value"))
        rate, status = steps_per_second(root, "machines/depositer.py")
        print(f"Depositer (fixed) 50x50: {rate:6.0f} steps/s [{status}] (target >= 110)")
        rate, status = steps_per_second(root, "machines/erc20.py")
        print(f"ERC20 50x50:            {rate:6.0f} steps/s [{status}] (target >= 95)")
        shutil.copy(REPO / "contracts" / "Depositer.vy", dep)
        t = time.perf_counter()
        summary = run(config_mod.load(root), RunOptions((str(root / "machines/depositer.py"),), overrides=Overrides(seed=0)), lambda e: None)
        elapsed = time.perf_counter() - t
        print(f"Depositer bug found and shrunk to {summary.results[0].failure.steps} steps in {elapsed:.1f}s (target <= 5s, compile included)")
        # without a seed Hypothesis uses the example database: the second run replays the saved failure
        opts = RunOptions((str(root / "machines/depositer.py"),))
        for label in ("first", "second"):
            t = time.perf_counter()
            result = run(config_mod.load(root), opts, lambda e: None).results[0]
            print(f"Depositer bug reported on the {label} run with the example database: {time.perf_counter() - t:.2f}s (first failure at run {result.statistics.get('first failure at run')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
