"""The property packs on snekmate's ERC20, ERC721 and ERC4626: no false alarm, and the mutants they kill beside snekmate's own suites.

The project is tests/projects/mutate_packs, copied to a temporary folder: the mocks built from the
installed snekmate, the packs alone (machines/packs.py) and snekmate's Foundry invariant suites
ported to evmstate (machines/foundry.py). First each pack machine runs under `evmstate run` at its
defaults on both backends, over --seeds: a failure there is a false alarm. Then `evmstate mutate
--mutants mutants.txt` judges the listed mutants of snekmate's erc20, erc721 and erc4626 modules,
once with the packs and once with the ported suites, at the same budget and seed.

Run: python benchmarks/packs.py [--seeds 0 1] [--workers auto] [--backend revm] [--max-examples 50] [--keep DIR]

Prints each run's verdict and time, then per module the mutants each set killed, those only one
killed, and what killed them (the pack property's name).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from mutate import evmstate, timed  # benchmarks/mutate.py: the command beside this python, a timed run of it

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "projects" / "mutate_packs"
MODULES = ("--contract", "erc20", "--contract", "erc721", "--contract", "erc4626")


def false_alarms(exe: str, root: Path, seeds: list[int]) -> None:
    """Each pack machine at `evmstate run`'s defaults, on both backends: it must pass."""
    for backend in ("pyevm", "revm"):
        for seed in seeds:
            wall, done = timed([exe, "run", "machines/packs.py", "--seed", str(seed), "--backend", backend, "-q", "--json", "run.json"], root)
            report = json.loads((root / "run.json").read_text()) if (root / "run.json").exists() else {"results": []}
            verdicts = ", ".join(f"{r['name']} {r['status']} ({r['steps']} steps)" for r in report.get("results", []))
            print(f"run --backend {backend} --seed {seed}: exit {done.returncode} in {wall:.0f}s wall: {verdicts or done.stdout[-500:] + done.stderr[-500:]}")


def judged(exe: str, root: Path, machines: str, workers: str, max_examples: int | None) -> dict[str, dict]:
    """`evmstate mutate --mutants mutants.txt` with one set of machines: each listed mutant as the report gives it, by its line."""
    out = f"{Path(machines).stem}.json"
    budget = ["--max-examples", str(max_examples)] if max_examples else []
    wall, done = timed([exe, "mutate", machines, *MODULES, "--mutants", "mutants.txt", "-n", workers, *budget, "--json", out], root)
    if done.returncode not in (0, 1):
        sys.exit(f"evmstate mutate {machines} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    print(f"mutate {machines}: {done.stdout.strip().splitlines()[-1]} ({wall:.0f}s wall)")
    report = json.loads((root / out).read_text())
    return {f"{m['source']}:{m['line']}: {m['before']}  →  {m['after'] or '(removed)'}": m for m in report["mutants"]}


def compare(packs: dict[str, dict], ports: dict[str, dict]) -> None:
    for module in sorted({key.split(":")[0] for key in packs}):
        keys = [k for k in packs if k.startswith(module + ":")]
        by_packs = {k for k in keys if packs[k]["status"] == "killed"}
        by_ports = {k for k in keys if ports[k]["status"] == "killed"}
        print(f"{module}: {len(keys)} mutants; killed by the packs {len(by_packs)}, by snekmate's suites {len(by_ports)}, by both {len(by_packs & by_ports)}")
        for k in sorted(by_packs - by_ports, key=lambda k: int(k.split(":")[1])):
            print(f"  only the packs: {k.split(': ', 1)[0]} ({packs[k]['killed_by']['by']})")
        for k in sorted(by_ports - by_packs, key=lambda k: int(k.split(":")[1])):
            print(f"  only snekmate's suites: {k} ({ports[k]['killed_by']['by']})")
        for k in sorted(set(keys) - by_packs - by_ports, key=lambda k: int(k.split(":")[1])):
            print(f"  neither: {k} ({packs[k]['status']})")
    total = len(packs)
    print(f"in all: the packs killed {sum(m['status'] == 'killed' for m in packs.values())} of {total}, snekmate's suites {sum(m['status'] == 'killed' for m in ports.values())} of {total}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1], help="seeds of the no-false-alarm runs (none: skip them)")
    parser.add_argument("--workers", default="auto", help="-n for evmstate mutate")
    parser.add_argument("--backend", choices=("pyevm", "revm"), default="revm", help="the backend mutate's judges run on ([backend] name)")
    parser.add_argument("--max-examples", type=int, help="runs each judge searches each mutant (default: evmstate.toml's, 50)")
    parser.add_argument("--keep", type=Path, help="run in this folder (kept) instead of a temporary one")
    args = parser.parse_args()
    exe = evmstate()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "project"
        shutil.copytree(PROJECT, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".evmstate", "__pycache__"))
        if args.seeds:
            false_alarms(exe, root, args.seeds)
        with open(root / "evmstate.toml", "a") as f:
            f.write(f'\n[backend]\nname = "{args.backend}"\n')
        packs = judged(exe, root, "machines/packs.py", args.workers, args.max_examples)
        ports = judged(exe, root, "machines/foundry.py", args.workers, args.max_examples)
        compare(packs, ports)


if __name__ == "__main__":
    main()
