"""How often "still reaching new code" is right: the warning of a passing run against what a longer search finds.

For each machine and property test of the projects measured, under several seeds: a search of
SHORT runs (the default budget) and one of LONG runs with the same seed and steps (whose first
SHORT runs are the short search: Hypothesis does not look at max_examples while it generates,
see budget.py). Of the short searches that passed, the warning was right when it fired and the
long search then found more (a failure, or branch outcomes the short one never reached), and
when it did not fire and the long search found nothing more. The warning as evmstate gives it
(late branches, or new kinds of state: a slot that holds a phase, a level or a flag, not
amounts, taking a new value in the last quarter of the runs; see search/feedback.py) is set
beside the one before it, which counted any new small stored value, an amount too: recomputed
here from the runs' events. A second score counts new kinds of state the long search stored as
"more" too.

Projects: the bundled one (machines/); code written elsewhere: snekmate's mocks
(tests/projects/snekmate, mutate_snekmate) and the other test projects; and tests/projects/lending,
a passing machine whose small collateral and debt amounts the warning before took for progress.
(The moccasin projects pin a vyper release installed from the package index: not measured.)

Run: python benchmarks/still_rising.py [--seeds N] [--short 50] [--long 200] [--projects bundled,snekmate,...] [--only NAME,...] [--json PATH]
     python benchmarks/still_rising.py --rows A.json B.json   (the scores of rows written before, e.g. by two runs at once)
Figures depend on the load of the machine only through time; the verdicts are the seeds'.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from evmstate import config as config_mod
from evmstate.engine.events import ExampleFinished, MachineFinished
from evmstate.engine.lifecycle import Growth
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parent.parent
PROJECTS = {
    "bundled": REPO,
    "snekmate": REPO / "tests" / "projects" / "snekmate",
    "tokens": REPO / "tests" / "projects" / "tokens",
    "timelock": REPO / "tests" / "projects" / "timelock",
    "mutate_snekmate": REPO / "tests" / "projects" / "mutate_snekmate",
    "known": REPO / "tests" / "projects" / "known",
    "rungs": REPO / "tests" / "projects" / "rungs",
    "shared_module": REPO / "tests" / "projects" / "shared_module",
    # the case that was reported: a passing machine storing new small collateral and debt amounts
    "lending": REPO / "tests" / "projects" / "lending",
}


def copy(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".evmstate", "__pycache__", "tests", "benchmarks", "docs", "evmstate", "cli", ".venv", ".git"))
    return dest


def search(cfg: config_mod.Config, path: Path, runs: int, seed: int) -> dict[str, dict[str, Any]]:
    """Every machine and test of one file at this many runs: its result, and the stored values reached after each run."""
    cfg = cfg.replace(hypothesis=dataclasses.replace(cfg.hypothesis, max_examples=runs))
    stages: dict[str, list[int]] = {}

    def watch(event: Any) -> None:
        if isinstance(event, ExampleFinished) and not event.shrinking and event.stages is not None:
            stages.setdefault(event.name, []).append(event.stages)

    summary = run(cfg, RunOptions((str(path),), overrides=Overrides(seed=seed, fresh=True), save_failures=False), watch)
    return {r.name: {"result": r, "stages": stages.get(r.name, [])} for r in summary.results}


def branches(r: MachineFinished) -> int:
    return int(r.statistics.get("branches reached", 0))


def kinds(r: MachineFinished) -> int:
    progress = str(r.statistics.get("progress", ""))
    return int(progress.split("(")[1].split(" ")[0]) if "(" in progress else 0


def old_late_stages(totals: list[int]) -> int | None:
    """The warning before: any new small stored value in the last quarter of the runs."""
    n = len(totals)
    if n < Growth.MIN_RUNS:
        return None
    return totals[-1] - totals[n - n // 4 - 1]


def measure(name: str, source: Path, seeds: int, short: int, long: int, only: set[str], rows: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = copy(source, Path(tmp) / name)
        cfg = config_mod.load(root)
        for path in sorted(cfg.machines_dir.glob("*.py")):
            if path.name.startswith("_") or (only and path.stem not in only):
                continue
            for seed in range(1, seeds + 1):
                started = time.perf_counter()
                a, b = search(cfg, path, short, seed), search(cfg, path, long, seed)
                for item, s in a.items():
                    r, longer = s["result"], b.get(item, {}).get("result")
                    if longer is None:
                        continue
                    row = {
                        "project": name, "machine": f"{path.stem}::{item}", "seed": seed, "status": r.status, "long status": longer.status,
                        "warned": r.still_rising, "late_branches": r.late_branches, "late_kinds": r.late_stages,
                        "warned before": r.status == "passed" and bool(r.late_branches or old_late_stages(s["stages"])),
                        "branches": branches(r), "long branches": branches(longer), "kinds": kinds(r), "long kinds": kinds(longer),
                    }
                    # a longer search found more: a failure, or branch outcomes the short one never reached
                    row["more"] = longer.status == "failed" or row["long branches"] > row["branches"]
                    row["more kinds"] = row["more"] or row["long kinds"] > row["kinds"]
                    rows.append(row)
                    if r.status == "passed":
                        print(f"{name}/{row['machine']} seed {seed}: warned {row['warned']} (before: {row['warned before']}), "
                              f"longer found more: {row['more']} ({row['branches']}->{row['long branches']} branches, {row['kinds']}->{row['long kinds']} kinds, {longer.status})"
                              f"  [{time.perf_counter() - started:.0f}s]", flush=True)


def score(rows: list[dict], warned: str, truth: str) -> str:
    passed = [r for r in rows if r["status"] == "passed"]
    tp = sum(r[warned] and r[truth] for r in passed)
    fp = sum(r[warned] and not r[truth] for r in passed)
    fn = sum(not r[warned] and r[truth] for r in passed)
    tn = sum(not r[warned] and not r[truth] for r in passed)
    return f"right {tp + tn} of {len(passed)} ({tp} warned and more was found, {tn} quiet and nothing more); wrong: {fp} warned for nothing, {fn} quiet while more was there"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--short", type=int, default=50)
    parser.add_argument("--long", type=int, default=200)
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--only", default="", help="machine files (stems) to measure")
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--rows", type=Path, nargs="*", help="measure nothing: score the rows that earlier runs wrote with --json")
    args = parser.parse_args()
    rows: list[dict] = []
    if args.rows:
        rows = [row for path in args.rows for row in json.loads(path.read_text())]
    else:
        only = {s for s in args.only.split(",") if s}
        for name in args.projects.split(","):
            measure(name, PROJECTS[name], args.seeds, args.short, args.long, only, rows)
    print(f"\n{args.short} runs against {args.long}, seeds 1-{args.seeds}; passing short searches:")
    for label, warned in (("now", "warned"), ("before", "warned before")):
        print(f"  the warning {label}: {score(rows, warned, 'more')}")
        print(f"    counting new kinds of state as more: {score(rows, warned, 'more kinds')}")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
