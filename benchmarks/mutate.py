"""evmstate mutate on snekmate's ERC20 and two-step ownable: a whole run, mutant by mutant, then a second run with nothing changed.

The project is tests/projects/mutate_snekmate (ERC20Mock and Ownable2StepMock, built from the
installed snekmate's modules, and two machines of evmstate's own), copied to a temporary folder.
A campaign first keeps a guidance corpus (`evmstate fuzz --time`, --corpus seconds; 0 for none),
then `evmstate mutate -n auto` mutates the two mocks and snekmate's erc20, ownable and
ownable_2step modules (--contract names them: they are an installed package's), and runs again
with nothing changed.

Run: python benchmarks/mutate.py [--corpus 60] [--workers auto] [--keep DIR]

Prints the mutants made, dropped (equivalent to the real code, duplicates, not compiling), not
covered, killed (by a saved failure, by the corpus replayed, by the search) and survived; the
run's wall seconds and the CPU seconds of its parts (compiles, judging, the real code's runs, the
parent process), each per mutant; and the second run's seconds and its share of the first. On a
machine other work shares, the wall seconds grow with the load; the CPU seconds do not, and
(compiles + judging + real code + parent) / cores is what the run takes on idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "projects" / "mutate_snekmate"
TARGETS = ("--contract", "ERC20Mock", "--contract", "Ownable2StepMock", "--contract", "erc20", "--contract", "ownable", "--contract", "ownable_2step")


def evmstate() -> str:
    """The evmstate command beside this interpreter (the one this checkout is installed in)."""
    found = shutil.which("evmstate", path=str(Path(sys.executable).parent)) or shutil.which("evmstate")
    if found is None:
        sys.exit("evmstate is not installed beside this python: pip install -e .")
    return found


def timed(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    return time.perf_counter() - started, done


def figures(report: dict, wall: float) -> None:
    mutants = report["mutants"]
    made = len(mutants)
    dropped = Counter(m["reason"].split(":")[0].split(" of ")[0] for m in mutants if m["status"] == "dropped")
    stages = Counter(m["killed_by"]["stage"] for m in mutants if m["killed_by"])
    counts = report["counts"]
    t = report["timing"]
    compiled = sum(1 for m in mutants if m["compile_seconds"] > 0)
    judged = sum(1 for m in mutants if m["status"] in ("killed", "survived", "error"))
    cpu = t["compile"] + t["judge_cpu"] + t["baseline_cpu"] + t["parent_cpu"]
    cores = os.cpu_count() or 1
    per_source = Counter(m["source"] for m in mutants)
    print(f"mutants made: {made} ({', '.join(f'{s} {per_source[s]}' for s in report['sources'])})")
    print(f"dropped: {counts['dropped']} (equivalent {dropped.get('equivalent', 0)}, duplicate {dropped.get('duplicate', 0)}, not compiling {dropped.get('does not compile', 0)})")
    print(f"not covered: {counts['not covered']} (neither compiled nor run)")
    print(f"killed: {counts['killed']} (by a saved failure {stages.get('saved failure', 0)}, by the corpus replayed {stages.get('corpus', 0)}, by the search {stages.get('search', 0)}); survived: {counts['survived']}; errors: {counts['error']}")
    print(f"score: {100 * report['score']:.1f}%" if report["score"] is not None else "score: -")
    print(f"run: {wall:.1f}s wall, {wall / made:.2f}s per mutant made (on {report['workers']})")
    print(f"CPU: {cpu:.1f}s in all, {cpu / made:.2f}s per mutant made; on {cores} idle cores about {cpu / cores:.0f}s")
    print(f"  compiles: {t['compile']:.1f}s for {compiled} mutants, {t['compile'] / max(compiled, 1):.2f}s each")
    print(f"  judging: {t['judge_cpu']:.1f}s CPU ({t['judge']:.1f}s wall) for {judged} mutants, {t['judge_cpu'] / max(judged, 1):.2f}s each")
    print(f"  the real code's runs (with coverage): {t['baseline_cpu']:.1f}s; this process (discovery, compiling the project, scheduling): {t['parent_cpu']:.1f}s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=float, default=60.0, help="seconds of `evmstate fuzz` to keep a corpus first (0: none)")
    parser.add_argument("--workers", default="auto", help="-n for evmstate mutate")
    parser.add_argument("--keep", type=Path, help="run in this folder (kept) instead of a temporary one")
    args = parser.parse_args()
    exe = evmstate()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "project"
        shutil.copytree(PROJECT, root, dirs_exist_ok=True)
        if args.corpus > 0:
            seconds, done = timed([exe, "fuzz", "--time", f"{args.corpus:g}s", "-n", args.workers], root)
            print(f"corpus: `evmstate fuzz --time {args.corpus:g}s` in {seconds:.0f}s: {done.stdout.strip().splitlines()[-2] if done.stdout.strip() else done.stderr[-300:]}")
        command = [exe, "mutate", "-n", args.workers, *TARGETS, "--json", "first.json"]
        wall, done = timed(command, root)
        if done.returncode != 0:
            sys.exit(f"evmstate mutate exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        print(done.stdout.strip().splitlines()[-1])
        figures(json.loads((root / "first.json").read_text()), wall)
        again, done = timed([*command[:-1], "second.json"], root)
        second = json.loads((root / "second.json").read_text())
        kept = sum(1 for m in second["mutants"] if m["cached"])
        print(f"second run, nothing changed: {again:.1f}s wall ({100 * again / wall:.1f}% of the first), {kept} verdicts kept, workers: {second['workers']}")


if __name__ == "__main__":
    main()
