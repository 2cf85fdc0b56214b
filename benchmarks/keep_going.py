"""A campaign that keeps going: `evmstate fuzz --time 60s -n 1` on tests/projects/three_bugs (three independent planted bugs).

For each seed, in a fresh copy of the project: whether every planted bug was reported, each once, shrunk to its
minimal program and saved as its own record; when each was first seen (seconds from the campaign's start, and the
runs before it); how many runs hit each (a run that fails as a failure found before is counted, not reported again).
Prints the load it ran at: the times are wall-clock seconds on a shared machine.

Run: python benchmarks/keep_going.py [--time 60s] [--seeds 1,2,3] [--backend pyevm|revm]
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


def campaign(seed: int, budget: str, backend: str | None) -> dict:
    """One campaign in a fresh copy of the project: its JSON report, and the records it saved."""
    root = Path(tempfile.mkdtemp(prefix="evmstate-keep-going-"))
    try:
        shutil.copytree(PROJECT, root, dirs_exist_ok=True)
        command = [shutil.which("evmstate") or "evmstate", "fuzz", "--time", budget, "-n", "1", "--seed", str(seed), "-q", "--json", "out.json"]
        if backend:
            command += ["--backend", backend]
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
        if done.returncode not in (0, 1):
            sys.exit(f"evmstate fuzz exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        report = json.loads((root / "out.json").read_text())
        report["records"] = sorted(p.stem for p in (root / ".evmstate" / "failures").glob("*.json"))
        return report
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", default="60s")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--backend", choices=["pyevm", "revm"])
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min) on {os.cpu_count()} cores")
    all_found = True
    for seed in (int(s) for s in args.seeds.split(",")):
        report = campaign(seed, args.time, args.backend)
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
