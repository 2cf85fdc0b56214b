"""The property packs on snekmate's ERC20, ERC721 and ERC4626: no false alarm, and the mutants they kill beside snekmate's own suites.

The project is tests/projects/mutate_packs, copied to a temporary folder: the mocks built from the
installed snekmate, the packs alone (machines/packs.py) and snekmate's Foundry invariant suites
ported to evmstate (machines/foundry.py). First each pack machine runs under `evmstate run` at its
defaults on both backends, over --seeds: a failure there is a false alarm. Then `evmstate mutate
--mutants mutants.txt` judges the listed mutants of snekmate's erc20, erc721 and erc4626 modules,
once with the packs and once with the ported suites, at the same budget and seed.

With --bugs it measures the ERC-4626 pack instead, on tests/projects/vault_bugs: the correct vault
at `evmstate run`'s defaults on both backends (no false alarm), then the bug classes of its
bugs.py, each planted in a copy of the vault and searched by the pack alone at run's defaults over
--seeds: which property reported each, after how many runs, and whether it is one that may.

Run: python benchmarks/packs.py [--seeds 0 1] [--workers auto] [--backend revm] [--max-examples 50] [--keep DIR]
     python benchmarks/packs.py --bugs [--seeds 1 2] [--backend revm] [--keep DIR]

Prints each run's verdict and time, then per module the mutants each set killed, those only one
killed, and what killed them (the pack property's name); with --bugs, each bug class's verdicts.
"""

from __future__ import annotations

import argparse
import json
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

from mutate import evmstate, timed  # benchmarks/mutate.py: the command beside this python, a timed run of it

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "projects" / "mutate_packs"
VAULTS = HERE.parent / "tests" / "projects" / "vault_bugs"
MODULES = ("--contract", "erc20", "--contract", "erc721", "--contract", "erc4626")


def ran(exe: str, root: Path, machines: str, seed: int, backend: str) -> list[dict]:
    """`evmstate run` of machines at its defaults: the results of its JSON report, each run's verdicts printed."""
    (root / "run.json").unlink(missing_ok=True)
    wall, done = timed([exe, "run", machines, "--seed", str(seed), "--backend", backend, "--fresh", "-q", "--json", "run.json"], root)
    report = json.loads((root / "run.json").read_text()) if (root / "run.json").exists() else {"results": []}
    results = report.get("results", [])
    verdicts = ", ".join(f"{r['name']} {r['status']} ({r['examples']} runs, {r['steps']} steps)" for r in results)
    print(f"run {machines} --backend {backend} --seed {seed}: exit {done.returncode} in {wall:.0f}s wall: {verdicts or done.stdout[-500:] + done.stderr[-500:]}", flush=True)
    return results


def false_alarms(exe: str, root: Path, seeds: list[int], machines: str = "machines/packs.py") -> None:
    """Each pack machine at `evmstate run`'s defaults, on both backends: it must pass."""
    for backend in ("pyevm", "revm"):
        for seed in seeds:
            ran(exe, root, machines, seed, backend)


def planted(exe: str, root: Path, seeds: list[int], backend: str) -> None:
    """Each ERC-4626 bug class of vault_bugs/bugs.py in a copy of the vault, searched by the pack alone at run's defaults."""
    bugs = runpy.run_path(str(root / "bugs.py"))
    variants = bugs["variants"]((root / "contracts" / "Vault.vy").read_text())
    for name in bugs["BUGS"]:
        (root / "contracts" / f"{name}.vy").write_text(variants[name])
    (root / "machines" / "bugs.py").write_text(bugs["machines"](list(bugs["BUGS"])))
    found: dict[str, list[str]] = {name: [] for name in bugs["BUGS"]}
    for seed in seeds:
        for r in ran(exe, root, "machines/bugs.py", seed, backend):
            name = r["name"].removesuffix("Machine")
            failure = r.get("failure") or {}
            program = failure.get("program") or []
            reported = program[-1].split("(")[0].removeprefix("state.") if program else ""
            expected = "an expected property" if reported in bugs["BUGS"][name][2] else "NOT one expected"
            found[name].append(f"seed {seed}: {r['status']} after {r['examples']} runs by {reported or '-'} ({expected})")
    for name, lines in found.items():
        print(f"{name}: " + "; ".join(lines))


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
    parser.add_argument("--bugs", action="store_true", help="the ERC-4626 pack on tests/projects/vault_bugs instead: no false alarm, and the planted bug classes")
    args = parser.parse_args()
    exe = evmstate()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "project"
        if args.bugs:
            shutil.copytree(VAULTS, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".evmstate", "__pycache__"))
            false_alarms(exe, root, args.seeds, "machines/vault.py")
            planted(exe, root, args.seeds, args.backend)
            return
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
