"""Whether two evmstates print the same: the bundled example under a fixed seed, compared apart from timings.

For a change that must not change behaviour (a refactoring): the same programs for the same
seeds, the same printed lines, the same failure ids and record JSON, the same example-database
keys. Both evmstates run in one sitting on copies of the bundled example (contracts/, machines/,
evmstate.toml), each command in a fresh process:

- `evmstate run --seed 1 --json run.json`, then `evmstate run --seed 1 -v` (the example database warm);
- `evmstate replay ID` and `evmstate shrink ID` for every failure saved, and `evmstate failures`;
- `evmstate fuzz --time 20s --seed 1 -n 1 -v --stop-on-failure` on a fresh copy: the records of the machines
  both campaigns found a failure in (how many they get to in 20 s follows the machine's load; each machine stops at
  its first failure, as before fuzz kept going: an evmstate without the flag is run without it);
- the saved failure records (their JSON, the `created` time aside) and the names of the
  example-database entries (Hypothesis's keys, `.evmstate/hypothesis` and `.evmstate/examples`).

Timings are blanked (`0.52s`, `171 steps/s`, `2m ago`, the JSON's elapsed/seconds/created/found_after), and a
statistics line whose value is only a time is left out, so that a phase timed in one evmstate and not
in the other is no difference; so are the live progress lines, printed every so many seconds.

With --backend revm the example project names that backend ([backend] name = "revm", so that every command runs
on it); `--before HEAD --backend revm` then checks that the same seeds give the same programs run after run where
`evmstate run` draws through evmstate's own loop (engine/native.py).

Run: python benchmarks/same_output.py [--before REV] [--now REV] [--backend revm]   (default: main, and this checkout
as it is, on the project's backend); prints "identical apart from timings" or the differences, and exits 1 when there
are any.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
COMMAND = "import sys; from evmstate_cli.launch import main; sys.argv[0] = 'evmstate'; main()"
TIME_KEYS = {"elapsed", "seconds", "created", "first_failure_at", "found_after", "shrink_seconds"}
TIMES = [
    (re.compile(r"\b(\d+[smhd] ago|just now)"), "<age>"),
    (re.compile(r"\b\d+(\.\d+)?(s|ms)\b"), "<t>"),
    (re.compile(r"\b\d+ steps/s\b"), "<rate>"),
    (re.compile(r"\b\d+h\d+m\b|\b\d+m\d+s\b"), "<t>"),
    (re.compile(r"  +"), " "),  # columns as wide as their (blanked) widest value
]
# a live progress line is printed every so many seconds (no terminal): how many there are follows the clock
PROGRESS = re.compile(r"^… \[\d+/\d+\] ")
ONLY_A_TIME = re.compile(r"^\s+[\w .()-]+: <t>$")


class Tree:
    """An evmstate to run: a folder put first on PYTHONPATH, holding its evmstate and evmstate_cli."""

    def __init__(self, label: str, source: Path, tmp: Path) -> None:
        self.label = label
        self.path = tmp / f"import-{label}"
        self.path.mkdir()
        (self.path / "evmstate").symlink_to(source / "evmstate")
        (self.path / "evmstate_cli").symlink_to(source / "cli")
        # fuzz keeps going after a machine's first failure unless told to stop (an evmstate from before had no flag)
        knows = "--stop-on-failure" in (source / "cli" / "main.py").read_text()
        self.stop_on_failure: tuple[str, ...] = ("--stop-on-failure",) if knows else ()

    def evmstate(self, *args: str, cwd: Path) -> str:
        env = {**os.environ, "PYTHONPATH": str(self.path), "NO_COLOR": "1", "COLUMNS": "160"}
        done = subprocess.run([sys.executable, "-c", COMMAND, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
        return f"$ evmstate {' '.join(args)}\n{done.stdout}{done.stderr}exit {done.returncode}\n"


def blank(text: str) -> str:
    out = []
    for line in text.splitlines():
        for pattern, mark in TIMES:
            line = pattern.sub(mark, line)
        if not ONLY_A_TIME.match(line) and not PROGRESS.match(line):
            out.append(line)
    return "\n".join(out) + "\n"


def blank_json(data: object) -> object:
    if isinstance(data, dict):
        # "phases": seconds per phase, a dictionary of timings only
        return {k: None if k in TIME_KEYS else blank_json(v) for k, v in data.items() if k != "phases"}
    if isinstance(data, list):
        return [blank_json(v) for v in data]
    if isinstance(data, str):
        return blank(data).rstrip("\n")
    return data


def statistics_without_times(data: object) -> object:
    """Statistics entries that are only a time are left out (a phase timed in one evmstate only)."""
    if isinstance(data, dict):
        return {k: statistics_without_times(v) for k, v in data.items() if not (isinstance(v, str) and re.fullmatch(r"\d+(\.\d+)?s", v)) and not k.endswith(" seconds")}
    if isinstance(data, list):
        return [statistics_without_times(v) for v in data]
    return data


BACKEND: str | None = None  # --backend: the backend the example project names


def example_project(dest: Path) -> Path:
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, dest / name)
    shutil.copy(REPO / "evmstate.toml", dest / "evmstate.toml")
    if BACKEND is not None:
        with open(dest / "evmstate.toml", "a") as toml:
            toml.write(f'\n[backend]\nname = "{BACKEND}"\n')
    return dest


def records(root: Path) -> dict[str, object]:
    folder = root / ".evmstate" / "failures"
    return {p.name: blank_json(json.loads(p.read_text())) for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


def database_keys(root: Path) -> list[str]:
    keys = []
    for name in ("hypothesis", "examples"):
        folder = root / ".evmstate" / name
        if folder.is_dir():
            keys += sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_dir())
    return keys


def capture(tree: Tree, tmp: Path) -> dict[str, str]:
    """Everything compared, as text, by name."""
    out: dict[str, str] = {}
    root = example_project(tmp / f"run-{tree.label}")
    out["run"] = blank(tree.evmstate("run", "--seed", "1", "--json", "run.json", cwd=root))
    out["run.json"] = json.dumps(statistics_without_times(blank_json(json.loads((root / "run.json").read_text()))), indent=1, sort_keys=True)
    out["run -v"] = blank(tree.evmstate("run", "--seed", "1", "-v", cwd=root))
    saved = records(root)
    out["records"] = json.dumps(saved, indent=1, sort_keys=True)
    for name in saved:
        out[f"replay {name}"] = blank(tree.evmstate("replay", name.removesuffix(".json"), cwd=root))
    out["failures"] = blank(tree.evmstate("failures", cwd=root))
    for name in saved:
        out[f"shrink {name}"] = blank(tree.evmstate("shrink", name.removesuffix(".json"), cwd=root))
    out["records after shrink"] = json.dumps(records(root), indent=1, sort_keys=True)
    out["database keys"] = "\n".join(database_keys(root))
    root = example_project(tmp / f"fuzz-{tree.label}")
    tree.evmstate("fuzz", "--time", "20s", "--seed", "1", "-n", "1", "-v", *tree.stop_on_failure, cwd=root)
    # how many machines a 20 s campaign gets to follows the machine's speed: compared where both found one
    out["fuzz records"] = {v["path"] + "::" + v["name"]: json.dumps({"id": k, "program": v["program"], "error": v["error"], "steps": v["steps"]}, indent=1, sort_keys=True) for k, v in records(root).items()}  # type: ignore[index,assignment]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", default="main", help="the evmstate to compare with (a git revision; default main)")
    parser.add_argument("--now", metavar="REV", help="the evmstate to compare (a git revision; default: this checkout as it is)")
    parser.add_argument("--backend", choices=["pyevm", "revm"], help="the backend the example project names (default: its own, py-evm)")
    args = parser.parse_args()
    global BACKEND
    BACKEND = args.backend
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        trees = {"before": args.before, "now": args.now}
        checkouts = {label: tmp / f"checkout-{label}" for label, rev in trees.items() if rev is not None}
        try:
            for label, folder in checkouts.items():
                subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(folder), trees[label]], check=True, capture_output=True)
            before = capture(Tree("before", checkouts["before"], tmp), tmp)
            now = capture(Tree("now", checkouts.get("now", REPO), tmp), tmp)
        finally:
            for folder in checkouts.values():
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)], check=False, capture_output=True)
    fuzzed_before, fuzzed_now = before.pop("fuzz records"), now.pop("fuzz records")
    both = sorted(set(fuzzed_before) & set(fuzzed_now))  # type: ignore[arg-type]
    for key in both:
        before[f"fuzz {key}"], now[f"fuzz {key}"] = fuzzed_before[key], fuzzed_now[key]  # type: ignore[index]
    only = sorted(set(fuzzed_before) ^ set(fuzzed_now))  # type: ignore[arg-type]
    print(f"fuzz: failures of {len(both)} machines found by both, compared; {len(only)} found by one only (the budget is wall time): {', '.join(only) or 'none'}")
    differ = [name for name in before if before[name] != now.get(name)]
    for name in differ:
        print(f"--- {name} differs:")
        sys.stdout.writelines(difflib.unified_diff(before[name].splitlines(True), now.get(name, "").splitlines(True), f"{args.before}", "now", n=1))
    compared = ", ".join(f"{name} ({len(before[name].splitlines())} lines)" for name in before)
    print(f"compared: {compared}")
    print("identical apart from timings" if not differ else f"{len(differ)} of {len(before)} differ: {', '.join(differ)}")
    print(f"(took {time.perf_counter() - started:.0f}s)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
