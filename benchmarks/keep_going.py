"""A campaign that keeps going: `evmstate fuzz --time 60s -n 1` on the planted bugs of tests/projects/three_bugs.

--case three (the default): the three independent bugs of machines/ledger.py. For each seed, in a fresh copy of the
project: whether every planted bug was reported, each once, shrunk to its minimal program and saved as its own record;
when each was first seen (seconds from the campaign's start, and the runs before it); how many runs hit each (a run
that meets a failure found before counts it and goes on; it is not reported again). With --source DIR, as below.

--case shallow: more/shallow.py, a revert nearly every run meets (a rule drawn at eight steps in ten) and a deeper
invariant behind three steps of other rules: when the deeper one was first seen (seconds, runs before it). With
--source DIR, the same with the evmstate of another source tree (e.g. `git archive` of an older commit): before/after.

--case hits: more/whole.py, a revert every run meets at its first step, runs of one step: the one failure reported,
one record, and the runs that hit it.

Prints the load it ran at: the times are wall-clock seconds on a shared machine.

Measured on a shared 2-core machine, py-evm, "before" the evmstate whose runs ended at a known failure (--source a
`git archive` of it), "after" this one whose runs go on past it:
- --case three, 60 s, seeds 1,2,3: all three planted bugs, each minimal, three records, in both. The last of the three
  first seen after 107, 51 and 25 runs (10.2, 2.9, 9.0 s; load 3.3-5.2) before; after 18, 46 and 8 runs (3.0, 5.7,
  2.8 s; load 5.1-6.8).
- --case shallow, 30 s, seeds 1,2: the deeper bug first seen after 12 and 51 runs (4.6, 6.3 s; load 4.8-5.2) before;
  after 2 and 2 runs (1.5, 2.1 s; load 4.1-5.1). Runs are longer now (they go on past the revert): 1353 and 970 runs in
  30 s against 1695 and 1681.
- --case hits, 30 s, seed 1: 2670 runs, every one hitting the revert, one failure reported, one record (load 6.1-6.3).

Run: python benchmarks/keep_going.py [--case three|shallow|hits] [--time 60s] [--seeds 1,2,3] [--backend pyevm|revm]
     [--source DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "projects" / "three_bugs"

# each planted bug, by (kind, invariant or rule), and its minimal program (the lines after `state = LedgerMachine()`)
MINIMAL = {
    ("invariant", "invariant_locked"): [
        "state.rule_mint(receiver=accounts[0], amount=1)",
        "state.rule_lock(sender=accounts[0], amount=1)",
        "state.rule_lock(sender=accounts[0], amount=0)",
    ],
    ("invariant", "invariant_supply"): ["state.rule_mint(receiver=accounts[0], amount=1)", "state.rule_burn(sender=accounts[0], amount=1)"],
    ("revert", "rule_transfer"): [
        "state.rule_mint(receiver=accounts[0], amount=1)",
        "state.rule_transfer(sender=accounts[0], receiver=accounts[0], amount=1)",
    ],
}


def campaign(
    seed: int, budget: str, backend: str | None, machine: str | None = None, source: str | None = None, steps: int = 0
) -> dict:
    """One campaign in a fresh copy of the project (machine: a file of more/ fuzzed instead of machines/ledger.py): its
    JSON report, and the records it saved. source: a source tree whose evmstate runs it; steps: a run's steps, when
    not the project's."""
    root = Path(tempfile.mkdtemp(prefix="evmstate-keep-going-"))
    try:
        shutil.copytree(PROJECT, root, dirs_exist_ok=True)
        if machine is not None:
            (root / "machines" / "ledger.py").unlink()
            shutil.copy(PROJECT / "more" / machine, root / "machines" / machine)
        command = [shutil.which("evmstate") or "evmstate", "fuzz", "--time", budget, "-n", "1", "--seed", str(seed), "-q", "--json", "out.json"]
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
        if source is not None:
            # the other tree's library and CLI, ahead of the installed ones (the workers inherit the path)
            paths = root / "source"
            paths.mkdir()
            (paths / "evmstate").symlink_to(Path(source).resolve() / "evmstate")
            (paths / "evmstate_cli").symlink_to(Path(source).resolve() / "cli")
            env["PYTHONPATH"] = str(paths)
            command[0:1] = [sys.executable, "-c", "from evmstate_cli.launch import main; main()"]
        if backend:
            command += ["--backend", backend]
        if steps:
            command += ["--steps", str(steps)]
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env)
        if done.returncode not in (0, 1):
            sys.exit(f"evmstate fuzz exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        report = json.loads((root / "out.json").read_text())
        report["records"] = sorted(p.stem for p in (root / ".evmstate" / "failures").glob("*.json"))
        return report
    finally:
        shutil.rmtree(root, ignore_errors=True)


def shallow(seeds: list[int], budget: str, backend: str | None, source: str | None) -> None:
    """When the deeper failure of more/shallow.py was first seen, behind the revert nearly every run meets."""
    for seed in seeds:
        report = campaign(seed, budget, backend, "shallow.py", source)
        (item,) = report["items"].values()
        found = {f["name"]: f for f in item["failures"]}
        deep, revert = found.get("invariant_locked"), found.get("rule_send_all")
        seen = f"first seen {deep['found_after']:.1f}s in, after {deep['runs_before']} runs" if deep else "NOT found"
        hits = f"; the revert hit by {revert['hits']} runs" if revert else ""
        print(f"seed {seed}: the deeper failure (invariant_locked) {seen}; "
              f"{report['examples']} runs in {report['elapsed']:.0f}s{hits}")


def hits(seeds: list[int], budget: str, backend: str | None) -> None:
    """A revert every run meets at its first step (more/whole.py): reported once, one record, the runs that hit it."""
    for seed in seeds:
        report = campaign(seed, budget, backend, "whole.py", steps=1)  # short runs: many of them
        (item,) = report["items"].values()
        shown = [(f["id"], f["hits"]) for f in item["failures"]]
        print(f"seed {seed}: {len(report['failures'])} failure reported, {len(report['records'])} record, "
              f"{report['examples']} runs in {report['elapsed']:.0f}s; failures (id, runs that hit it): {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["three", "shallow", "hits"], default="three")
    parser.add_argument("--time", default="60s")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--backend", choices=["pyevm", "revm"])
    parser.add_argument("--source", help="a source tree (with evmstate/ and cli/) whose evmstate runs the campaigns")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min) on {os.cpu_count()} cores")
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.case != "three":
        if args.case == "shallow":
            shallow(seeds, args.time, args.backend, args.source)
        else:
            hits(seeds, args.time, args.backend)
        print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
        return
    all_found = True
    for seed in seeds:
        report = campaign(seed, args.time, args.backend, source=args.source)
        (item,) = report["items"].values()
        found = {(f["kind"], f["name"]): f for f in item["failures"]}
        programs = {(r["identity"]["kind"], r["identity"]["name"]): r["failure"]["program"][1:] for r in report["failures"]}
        print(f"seed {seed}: {len(found)} distinct failures in {report['elapsed']:.0f}s, {report['examples']} runs, {report['shards']} shards, "
              f"{len(report['records'])} records, exit {report['exit_code']}")
        for what, f in sorted(found.items(), key=lambda kv: kv[1].get("found_after", 0)):
            minimal = "minimal" if programs.get(what) == MINIMAL.get(what) else f"NOT the known minimal program: {programs.get(what)}"
            print(f"  {f['id']}  {what[0]} {what[1]}: {f['steps']} steps ({minimal}), hit by {f['hits']} runs, "
                  f"first seen {f.get('found_after', 0):.1f}s in after {f.get('runs_before')} runs")
        all_found &= set(found) == set(MINIMAL) and len(report["records"]) == len(MINIMAL)
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print("every seed reported all three planted bugs, one record each" if all_found else "NOT every seed reported all three")


if __name__ == "__main__":
    main()
