"""The same unshrunk programs shrunk by two revisions: replays, work and CPU of shrinking alone, pass by pass.

benchmarks/shrink.py times a whole run (the search, Hypothesis's own runs after the first
failure, the report), so a change to the shrinker shows among the search's noise, and a seed whose
search a change of speed moves finds another program to shrink. Here each case's machine is run
once per seed (with this worktree's evmstate) and the program its search found is kept as it was
before any shrinking, as a failure record; then each revision shrinks that same program as
`evmstate shrink` continues a saved one, in a fresh process: the replays, the work (replayed
steps as shrink/budget.py charges them), the steps the replays ran and the replays resumed from a
checkpoint kept along the best program (0 where the revision keeps none) do not depend on the
machine's load, the CPU seconds of shrink_program less so, the wall seconds do. --profile DIR also writes a cProfile of each shrink there.

Run: python benchmarks/shrink_again.py [--before REV] [--only LABEL,...] [--seeds 0,1,2] [--backend revm] [--profile DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shrink  # noqa: E402  (benchmarks/shrink.py: its cases, projects and revisions)

# run a machine file with a seed; keep, for each machine that failed, its saved record with the program the search found
# (before shrinking) in place of the shrunk one
CAPTURE = r'''
import json, shutil, sys
from pathlib import Path
from evmstate import config as config_mod
from evmstate.engine import recorded
from evmstate.engine.shrink import finish
from evmstate.failures import FailureStore
from evmstate.runner import Overrides, RunOptions, run
root, path, seed, backend, out = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], Path(sys.argv[5])
for folder in ("failures", "examples"):
    shutil.rmtree(root / ".evmstate" / folder, ignore_errors=True)
found = {}
shrink_program = finish.shrink_program

def capturing(spec, project, base, steps, error, **kwargs):
    found[spec.name] = recorded.to_data(steps)
    return shrink_program(spec, project, base, steps, error, **kwargs)

finish.shrink_program = capturing
cfg = config_mod.load(root).replace(backend=config_mod.BackendConfig(name=backend, named=True))
run(cfg, RunOptions((str(root / path),), overrides=Overrides(seed=seed), save_failures=True, workers=1), lambda event: None)
for saved in sorted(FailureStore.of(cfg).folder.glob("*.json")):
    record = json.loads(saved.read_text())
    if record.get("name") in found:
        record["steps"] = found[record["name"]]
        (out / f"{record['name']}.json").write_text(json.dumps(record))
'''

# shrink a saved record's program as `evmstate shrink` does; print what it cost as JSON
RESHRINK = r'''
import cProfile, json, os, sys, time
from pathlib import Path
from evmstate import config as config_mod
from evmstate.engine import replay
from evmstate.engine.shrink import replayer as replayer_mod
from evmstate.failures import FailureRecord
root, record_file, backend, profile = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
cfg = config_mod.load(root).replace(backend=config_mod.BackendConfig(name=backend, named=True))
record = FailureRecord.from_dict(json.loads(record_file.read_text()), where=str(record_file))
cpu = {}
shrink_program = replay.shrink_program

def timed(*args, **kwargs):
    started, wall = time.process_time(), time.perf_counter()
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    try:
        return shrink_program(*args, **kwargs)
    finally:
        if profiler:
            profiler.disable()
            profiler.dump_stats(profile)
        cpu["cpu"], cpu["wall"] = time.process_time() - started, time.perf_counter() - wall

replay.shrink_program = timed
made = []  # every Replayer (its steps run, its replays resumed from a kept checkpoint, where it keeps them)
init = replayer_mod.Replayer.__init__

def tracked(self, *args, **kwargs):
    init(self, *args, **kwargs)
    made.append(self)

replayer_mod.Replayer.__init__ = tracked
result = replay.shrink_record(cfg, record)
outcome = result.outcome
print(json.dumps({
    "verdict": result.verdict, "cpu": cpu.get("cpu"), "wall": cpu.get("wall"), "load": os.getloadavg()[0],
    "replays": outcome.replays, "work": outcome.work, "rounds": outcome.rounds, "minimality": outcome.minimality,
    "steps": sum(r.steps for r in made), "kept": sum(getattr(r, "restored", 0) for r in made),
    "passes": {k: [v.runs, v.work, v.kept, v.seconds] for k, v in outcome.passes.items() if v.runs},
    "program": result.record.program,
}))
'''


def captured(tree: shrink.Tree, case: shrink.Case, root: Path, seed: int, backend: str, out: Path) -> Path | None:
    """The record of the program case's machine found with seed, before shrinking; None when it found none."""
    folder = out / f"{case.label.replace(' ', '-')}-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    done = tree.python(CAPTURE, str(root), case.path, str(seed), backend, str(folder), cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"{case.label} seed {seed}:\n{done.stderr}")
    record = folder / f"{case.name}.json"
    return record if record.exists() else None


def shrunk(tree: shrink.Tree, root: Path, record: Path, backend: str, profile: Path | None) -> dict:
    done = tree.python(RESHRINK, str(root), str(record), backend, str(profile or ""), cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"{tree.label}, {record}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(label: str, r: dict) -> str:
    seconds = sum(p[3] for p in r["passes"].values()) or 1.0
    longest = max(r["passes"].items(), key=lambda kv: kv[1][3], default=("-", [0, 0, 0, 0.0]))
    steps = "-" if r.get("steps") is None else r["steps"]
    kept = "-" if r.get("kept") is None else r["kept"]
    return (
        f"{label:<16} {r['replays']:>7} {r['work']:>6} {steps:>6} {kept:>5} {r['cpu']:>6.2f}s {r['wall']:>6.2f}s  "
        f"longest {longest[0]} {longest[1][3] / seconds:.0%}; "
        + ", ".join(f"{k} {runs}/{work}" for k, (runs, work, _, _) in r["passes"].items())
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also shrink with the evmstate of this git revision")
    parser.add_argument("--only", help="comma-separated case labels (benchmarks/shrink.py's)")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--backend", choices=("pyevm", "revm"), default="pyevm")
    parser.add_argument("--profile", type=Path, help="write a cProfile of each shrink into this folder")
    args = parser.parse_args()
    cases = [c for c in shrink.CASES if args.only is None or c.label in args.only.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        now = shrink.Tree("now", shrink.REPO, tmp)
        trees = [now]
        worktree = tmp / "before"
        if args.before:
            subprocess.run(["git", "-C", str(shrink.REPO), "worktree", "add", "--detach", "-f", str(worktree), args.before], check=True, capture_output=True)
            trees.insert(0, shrink.Tree(f"at {args.before}", worktree, tmp))
        try:
            print(
                f"{'':<16} {'replays':>7} {'work':>6} {'steps':>6} {'kept':>5} {'CPU':>7} {'wall':>7}  (shrink_program alone: "
                "steps run, replays resumed from a kept checkpoint; each pass: replays/work)"
            )
            roots: dict[str, Path] = {}
            for case in cases:
                if case.project not in roots:
                    roots[case.project] = shrink.make_project(case.project, tmp / f"project-{case.project}")
                    now.python(shrink.COMMAND, "compile", cwd=roots[case.project])
                for seed in seeds:
                    record = captured(now, case, roots[case.project], seed, args.backend, tmp / "records")
                    print(f"\n{case.label}, seed {seed}" + ("" if record else ": not found"), flush=True)
                    if record is None:
                        continue
                    results = []
                    for tree in trees:
                        label = tree.label.replace(" ", "-")
                        profile = args.profile / f"{case.label.replace(' ', '-')}-{seed}-{label}.prof" if args.profile else None
                        results.append(shrunk(tree, roots[case.project], record, args.backend, profile))
                        print(line(tree.label, results[-1]), flush=True)
                    programs = {tuple(r["program"]) for r in results}
                    print("    " + "\n    ".join(results[-1]["program"][1:]) + ("" if len(programs) == 1 else "   (the programs differ)"))
                    for tree, r in zip(trees[:-1], results) if len(programs) > 1 else ():
                        print(f"  {tree.label}:\n    " + "\n    ".join(r["program"][1:]))
        finally:
            for node in shrink.NODES:
                node.stop()
            if args.before:
                subprocess.run(["git", "-C", str(shrink.REPO), "worktree", "remove", "--force", str(worktree)], check=False, capture_output=True)
    print(f"\n(load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
