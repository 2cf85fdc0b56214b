"""The default budget of `evmstate run`: bugs found against seconds, at several runs x steps.

Every bundled machine and property test (machines/) and a snekmate machine
(tests/projects/snekmate's erc20 by default, with that project's accounts) run under several
seeds at the largest budget asked for (runs per machine x steps per run, as [hypothesis]
max_examples and stateful_step_count set them: a machine's own settings still win), one
after the other in this process. A search of N runs is the first N runs of a longer one with the
same seed and steps (the search does not look at max_examples while it generates), so each
smaller budget of the same steps is read off the same run: a bug counts as found within R
runs when its first failure came at run R or earlier, and it then costs the time to that
failure plus the shrinking; a machine that passed costs its time in proportion to its runs.
Per budget it prints the bugs found (over machines x seeds), those seconds (CPU time of this
process: wall time means little on a loaded machine), and how many
passing machines were still reaching new branches in their last quarter of runs (from the
largest budget only). Per machine: how often its bug was found and at which run.

--backend revm runs every machine on revm (where `evmstate run` draws through evmstate's own loop; EVMSTATE_NATIVE=0
for Hypothesis's loop, as before).

Run: python benchmarks/budget.py [--seeds N] [--first-seed K] [--budgets 50x50,100x50,200x50] [--only NAME,...] [--snekmate NAME,...] [--backend revm]
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
BACKEND: str | None = None  # --backend: over each project's own
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
    if BACKEND is not None:
        cfg = cfg.replace(backend=config_mod.BackendConfig(name=BACKEND))
    rows = []
    for path in sorted((root / "machines").glob("*.py")):
        if only and path.stem not in only:
            continue
        shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)  # search afresh: do not replay a failure saved by another budget
        wall, used = time.perf_counter(), cpu()
        summary = run(cfg, RunOptions((str(path),), overrides=Overrides(seed=seed), save_failures=False), lambda event: None)
        wall, used = time.perf_counter() - wall, cpu() - used
        total = sum(r.elapsed for r in summary.results) or 1.0
        for r in summary.results:
            # the file's CPU time, shared among its machines and tests as their wall time was
            rows.append({
                "machine": f"{root.name}/{path.stem}::{r.name}", "status": r.status, "seconds": used * r.elapsed / total, "wall": wall * r.elapsed / total,
                "runs": r.runs, "at": r.statistics.get("first failure at run"), "rising": r.still_rising,
                # the share of its time spent before its first failure (the rest shrank it)
                "searching": float(r.statistics.get("first failure after", f"{r.elapsed}s").rstrip("s")) / (r.elapsed or 1.0),
            })
    return rows


def cost(row: dict, runs: int) -> float:
    """The CPU seconds a budget of this many runs would have spent on the machine."""
    if row["at"] is not None and row["at"] <= runs:
        return row["seconds"]  # found: the search up to the failure and its shrinking
    if row["at"] is not None:  # found later: these runs of its search
        return row["seconds"] * row["searching"] * runs / row["at"]
    return row["seconds"] * min(1.0, runs / max(row["runs"], 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds run from this one (to split a measurement over processes)")
    parser.add_argument("--budgets", default="50x50,100x50,200x50")
    parser.add_argument("--only", default="", help="bundled machine files (stems) to run, comma-separated; all by default")
    parser.add_argument("--snekmate", default="erc20", help="snekmate machine files (stems) to run, comma-separated (default erc20)")
    parser.add_argument("--backend", choices=["pyevm", "revm"], help="the backend every machine runs on (default: each project's own)")
    args = parser.parse_args()
    global BACKEND
    BACKEND = args.backend
    budgets = [tuple(int(x) for x in b.split("x")) for b in args.budgets.split(",")]
    only = {s for s in args.only.split(",") if s}
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} on {os.cpu_count()} cores"
          + (f"; backend {BACKEND}, EVMSTATE_NATIVE={os.environ.get('EVMSTATE_NATIVE', '(unset)')}" if BACKEND else ""))
    with tempfile.TemporaryDirectory() as tmp:
        roots = [copy(REPO, Path(tmp) / "bundled"), copy(SNEKMATE, Path(tmp) / "snekmate")]
        for root in roots:
            Project(config_mod.load(root))  # compile once: the runs read the build cache
        for steps in sorted({b[1] for b in budgets}):
            most = max(r for r, s in budgets if s == steps)
            rows = []
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                rows += run_budget(roots[0], most, steps, seed, only)
                rows += run_budget(roots[1], most, steps, seed, {s for s in args.snekmate.split(",") if s})
            results = [r for r in rows if "machine" in r]
            for runs in sorted(r for r, s in budgets if s == steps):
                found = [r for r in results if r["at"] is not None and r["at"] <= runs]
                seconds = sum(cost(r, runs) for r in results)
                print(f"\n{runs} runs x {steps} steps, {args.seeds} seeds: {len(found)} of {len(results)} machine runs found a bug in {seconds:.0f}s of CPU"
                      + (f"; {sum(r['rising'] for r in results)} passed still reaching new code" if runs == most else ""))
            for name in sorted({r["machine"] for r in results}):
                mine = [r for r in results if r["machine"] == name]
                at = [r["at"] for r in mine if r["at"] is not None]
                still = sum(r["rising"] for r in mine)
                print(f"  {name:<48} found {len(at)}/{len(mine)}" + (f" at run {', '.join(map(str, at))}" if at else "")
                      + f"  median {statistics.median(r['seconds'] for r in mine):6.1f}s CPU, {statistics.median(r['wall'] for r in mine):6.1f}s wall" + (f"  still rising {still}/{len(mine)}" if still else ""))
    print(f"\nload after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
