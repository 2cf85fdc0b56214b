"""Optimization power: on how many seeds the bundled vault's optimize method reaches its known maximum.

machines/share_vault.py maximizes what a deposit of 10**18 made now would lose to rounding after
the attacker's calls; its known maximum is 10**18, the whole deposit (the derivation is in the
machine's docstring). Each seed is one `evmstate run machines/share_vault.py --seed S
[--backend B] --fresh --json`, with the bundled project's budget (50 runs of 50 steps, as every
machine gets), on py-evm and on revm, in a process of its own (as a user runs it). For each
backend: the seeds that reached the maximum, the median runs before the best was first reached,
and the CPU seconds. And with --fuzz SECONDS, the same with `evmstate fuzz --time SECONDS -n 1`.

The machine load is printed first and last (`uptime`): the counts do not depend on it (the
budget is in runs), the seconds do.

Run: python benchmarks/optimize.py [--seeds N] [--fuzz SECONDS]

Measured (2 cores shared, load average 1.4 at the start, 2.9 to 4.9 at the end), with climbing
from the step that raised the best (search/guidance.py):
  run, seeds 0..9: pyevm 9 of 10 (median 34 runs in; the tenth 1.56e16), revm 10 of 10 (median 24.5)
  fuzz --time 20s -n 1, seeds 0..5: pyevm 3 of 6 (6.5e3, 250, 219 on seeds 0..2: 20 to 30 runs in
  20 s at that load), revm 6 of 6
Before it (load 5 to 10): run 5 of 10 on py-evm and 6 of 10 on revm; fuzz 3 of 6 and 6 of 6.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAXIMUM = 10**18
EXE = shutil.which("evmstate", path=str(Path(sys.executable).parent)) or "evmstate"


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def project(root: Path) -> Path:
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    return root


def one(root: Path, seed: int, backend: str, fuzz: float | None) -> tuple[int | None, int | None, float]:
    """(the best value, the runs before it was first reached, CPU seconds) of one seed."""
    report = root / f"r-{backend}-{seed}.json"
    if fuzz is None:
        command = [EXE, "run", "machines/share_vault.py", "--seed", str(seed), "--backend", backend, "--fresh", "-q", "--json", str(report)]
    else:
        command = [EXE, "fuzz", "machines/share_vault.py", "--seed", str(seed), "--backend", backend, "--fresh", "--time", f"{fuzz:g}s",
                   "-n", "1", "-q", "--json", str(report)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=root, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    data = json.loads(report.read_text())
    optima = data["results"][0]["optima"] if fuzz is None else next(iter(data["optima"].values()), [])
    if not optima:
        return None, None, cpu
    return optima[0]["value"], optima[0]["runs_before"], cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--fuzz", type=float, default=None, help="seconds of `evmstate fuzz` per seed, instead of `evmstate run`")
    args = parser.parse_args()
    print(f"load at start: {load()}")
    how = f"evmstate fuzz --time {args.fuzz:g}s -n 1" if args.fuzz is not None else "evmstate run (50 runs of 50 steps)"
    print(f"machines/share_vault.py, known maximum {MAXIMUM}, {how}, seeds 0..{args.seeds - 1}")
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        for backend in ("pyevm", "revm"):
            results = [one(root, seed, backend, args.fuzz) for seed in range(args.seeds)]
            reached = [r for r in results if r[0] == MAXIMUM]
            runs = statistics.median(r[1] for r in reached) if reached else None
            values = ", ".join("-" if v is None else "max" if v == MAXIMUM else f"{v:.2e}" for v, _, _ in results)
            print(
                f"{backend}: reached on {len(reached)} of {len(results)} seeds; median runs before it {runs}; "
                f"CPU {sum(r[2] for r in results):.0f}s; per seed: {values}"
            )
    print(f"load at end: {load()}")


if __name__ == "__main__":
    main()
