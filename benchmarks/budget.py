"""The default budget of `evmstate run`: bugs found against seconds, at several runs x steps.

For each budget (runs per machine x steps per run, as [hypothesis] max_examples and
stateful_step_count would set them: a machine's own settings still win), every bundled machine
and property test (machines/) and a snekmate machine (tests/projects/snekmate's erc20 by default,
with that project's accounts) run under several seeds, each in this process, one after the other. Per budget it
prints the bugs found (failed machines, over machines x seeds), the seconds (wall and this
process's CPU, compiling excluded: the build cache is warmed first), and how many passing
machines were still reaching new branches in their last quarter of runs (a budget too small
to tell). Per machine it prints how often its bug was found and its median seconds.

Run: python benchmarks/budget.py [--seeds N] [--budgets 50x50,100x50,200x50] [--only NAME,...] [--snekmate NAME,...]
Figures depend on the load of the machine: say it (uptime) next to them.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parent.parent
SNEKMATE = REPO / "tests" / "projects" / "snekmate"


def copy(source: Path, dest: Path) -> Path:
    for name in ("contracts", "machines"):
        shutil.copytree(source / name, dest / name)
    shutil.copy(source / "evmstate.toml", dest / "evmstate.toml")
    return dest


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_budget(root: Path, runs: int, steps: int, seed: int, only: set[str]) -> list[dict]:
    """Every machine and test of the project at this budget and seed: one row each."""
    cfg = config_mod.load(root)
    cfg = cfg.replace(hypothesis=dataclasses.replace(cfg.hypothesis, max_examples=runs, stateful_step_count=steps))
    rows = []
    for path in sorted((root / "machines").glob("*.py")):
        if only and path.stem not in only:
            continue
        shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)  # search afresh: do not replay a failure saved by another budget
        wall, used = time.perf_counter(), cpu()
        summary = run(cfg, RunOptions((str(path),), overrides=Overrides(seed=seed), save_failures=False), lambda event: None)
        wall, used = time.perf_counter() - wall, cpu() - used
        for r in summary.results:
            rows.append({
                "machine": f"{root.name}/{path.stem}::{r.name}", "status": r.status, "seconds": r.elapsed,
                "first": r.statistics.get("first failure after"), "rising": r.still_rising,
            })
        rows.append({"file": f"{root.name}/{path.stem}", "wall": wall, "cpu": used})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--budgets", default="50x50,100x50,200x50")
    parser.add_argument("--only", default="", help="bundled machine files (stems) to run, comma-separated; all by default")
    parser.add_argument("--snekmate", default="erc20", help="snekmate machine files (stems) to run, comma-separated (default erc20)")
    args = parser.parse_args()
    budgets = [tuple(int(x) for x in b.split("x")) for b in args.budgets.split(",")]
    only = {s for s in args.only.split(",") if s}
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        roots = [copy(REPO, Path(tmp) / "bundled"), copy(SNEKMATE, Path(tmp) / "snekmate")]
        for root in roots:
            Project(config_mod.load(root))  # compile once: the runs read the build cache
        for runs, steps in budgets:
            rows = []
            for seed in range(args.seeds):
                rows += run_budget(roots[0], runs, steps, seed, only)
                rows += run_budget(roots[1], runs, steps, seed, {s for s in args.snekmate.split(",") if s})
            results = [r for r in rows if "machine" in r]
            files = [r for r in rows if "file" in r]
            found = sum(r["status"] == "failed" for r in results)
            rising = sum(r["rising"] for r in results)
            wall, used = sum(f["wall"] for f in files), sum(f["cpu"] for f in files)
            print(f"\n{runs} runs x {steps} steps, {args.seeds} seeds: {found} of {len(results)} machine runs found a bug, "
                  f"{rising} passed still reaching new code; {wall:.0f}s wall, {used:.0f}s CPU ({used / args.seeds:.0f}s CPU per seed over every machine)")
            for name in sorted({r["machine"] for r in results}):
                mine = [r for r in results if r["machine"] == name]
                hits = sum(r["status"] == "failed" for r in mine)
                still = sum(r["rising"] for r in mine)
                seconds = statistics.median(r["seconds"] for r in mine)
                firsts = [r["first"] for r in mine if r["first"]]
                print(f"  {name:<48} found {hits}/{len(mine)}  median {seconds:6.1f}s" + (f"  first failure after {', '.join(firsts)}" if firsts else "") + (f"  still rising {still}/{len(mine)}" if still else ""))
    print(f"\nload after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
