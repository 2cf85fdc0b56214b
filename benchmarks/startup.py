"""What an `evmstate` process costs before it does anything: the CPU time of short commands.

Each command runs as a fresh `evmstate` process (the console script next to this Python) in a
copy of the bundled example project, whose build cache is warmed first; the figure is the
child's user + system CPU time (load-independent, unlike its wall time), the median of 5:

- `evmstate --version`, `evmstate --help`, `evmstate failures` (no failure saved);
- `evmstate run machines/erc20.py` of one small machine (the bundled ERC20, 1 run of 1 step,
  --fresh, on py-evm) with a warm build cache: its start-up and little else;
- and the modules of the heavy dependencies each command imported (from `python -X importtime`).

`--against REV` measures a git revision of this repository too (its files, run through this
Python and its installed packages, found before the editable install by PYTHONPATH), so that the
figures before and after a change are taken at the same time and load.

Run: python benchmarks/startup.py [--against main] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EVMSTATE = Path(sys.executable).parent / "evmstate"
# the heavy dependencies a command that does not run a machine should not import
HEAVY = ("hypothesis", "vyper", "eth", "pyrevm", "eth_abi", "eth_utils", "py_ecc", "pydantic")
COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "failures": ["failures"],
    "run (warm cache)": ["run", "machines/erc20.py", "--max-examples", "1", "--steps", "1", "--seed", "0", "--fresh", "-q", "--backend", "pyevm"],
}


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def cpu_of(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The user + system CPU seconds of one `evmstate ARGS` process (and whatever it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([str(EVMSTATE), *args], cwd=cwd, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"evmstate {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heavy_imported(args: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    """The heavy top-level packages `evmstate ARGS` imported."""
    code = f"import sys; sys.argv = ['evmstate', *{args!r}]; from evmstate_cli.launch import main; main()"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    found = {m.group(1).split(".")[0] for m in re.finditer(r"^import time:.*\|\s*(\S+)\s*$", done.stderr, re.M)}
    return [name for name in HEAVY if name in found]


def project(folder: Path) -> Path:
    """A copy of the bundled example project, its build cache warmed by one run."""
    dest = folder / "project"
    dest.mkdir()
    shutil.copy(REPO / "evmstate.toml", dest)
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, dest / name)
    return dest


def revision(rev: str, folder: Path) -> dict[str, str]:
    """The environment that runs git revision REV's evmstate (its files under folder) through this Python."""
    tree = folder / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "evmstate", "cli"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    path = folder / "path"
    path.mkdir()
    (path / "evmstate").symlink_to(tree / "evmstate")
    (path / "evmstate_cli").symlink_to(tree / "cli")
    # Hypothesis's "hypothesis" entry point (installed with this tree's evmstate) imports evmstate.search.constants as
    # Hypothesis is imported; a revision from before it imports Hypothesis from that module, which would go in a circle
    return {**os.environ, "PYTHONPATH": str(path), "HYPOTHESIS_NO_PLUGINS": "1"}


def measure(name: str, env: dict[str, str], where: Path, repeat: int) -> None:
    cpu_of(COMMANDS["run (warm cache)"], where, env)  # warms this code's build cache (keyed on evmstate's code too)
    for label, args in COMMANDS.items():
        times = [cpu_of(args, where, env) for _ in range(repeat)]
        heavy = heavy_imported(args, where, env)
        print(f"  {name:10} {label:18} {statistics.median(times):6.2f} s CPU (median of {repeat}; min {min(times):.2f})  imports: {', '.join(heavy) or 'none of them'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REV", help="also measure this git revision (e.g. main)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)
    print(f"evmstate start-up: CPU time (user + sys) of one process, load before {_load()}")
    with tempfile.TemporaryDirectory() as folder:
        where = project(Path(folder))
        if args.against:
            measure(args.against, {**revision(args.against, Path(folder)), "NO_COLOR": "1"}, where, args.repeat)
        measure("this tree", env, where, args.repeat)
    print(f"load after {_load()}")


if __name__ == "__main__":
    main()
