"""What the test suite costs, per tier and per test: wall time, CPU time, and the tests that cost most.

Runs one tier of the suite (`quick`: -m "not quality and not network and not processes and not slow";
`in-process`: the quick tier and the slow tests; `marked`: -m "quality or network or processes or slow";
`all`) with pytest-xdist, as CI does, and prints:
the wall time, the CPU time of pytest and everything it started and waited for (load-independent,
unlike the wall time on a shared machine), the machine's load before and after, pytest's summary
line, and the tests that cost most by CPU time (each with its wall time and its markers).

A test's CPU time is that of the xdist worker that ran it, of the processes it started and waited
for, and of the workers forked by the worker's multiprocessing fork server and the commands forked by
its test zygote (tests/zygote.py; Linux's /proc). A
process that outlives the test it was started by is counted by none.

This file is also the pytest plugin that measures each test (`-p suite_time`, found on the path
the script sets).

`--slow tests/slow.txt` (with `--tier in-process`) writes the in-process tests that cost a second of CPU
or more: the list the `slow` marker is read from (tests/conftest.py). `--costs tests/costs.txt` (with
`--tier all`) writes what each test module cost in all: the order the suite runs its modules in, costliest
first (tests/conftest.py), so that the last tests xdist hands out are short ones.

It also prints where the wall time goes that is not CPU: each module's idle time, the sum over its
tests of wall minus CPU (a worker waiting on a process starting, a node, a server, a sleep or a
poll, or for a core on a loaded machine: read it with the load). A large idle sum is time another
worker could use: `-n` above the cores overlaps one worker's waits with another's CPU.

Run: python benchmarks/suite_time.py [--tier quick|in-process|marked|all] [-n 2] [--top 30] [--json out.json] [--slow FILE] [--costs FILE] [-- PYTEST ARGS]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

# this process, its children that ended, and its fork servers' workers
from parallel import process_cpu

REPO = Path(__file__).resolve().parent.parent

TIERS = {
    "quick": "not quality and not network and not processes and not slow",
    "in-process": "not quality and not network and not processes",  # the quick tier and the slow tests
    "marked": "quality or network or processes or slow",
    "all": "",
}
MARKERS = ("quality", "network", "processes", "slow")
# tests/slow.txt: the in-process tests that cost at least this much CPU (seconds) when measured
SLOW_ABOVE = 1.0
# where the plugin writes one JSON line per test (set by the script for its pytest run)
OUT = "EVMSTATE_SUITE_TIME_OUT"


# the plugin: pytest imports this module with -p suite_time
try:
    import pytest
except ImportError:  # pragma: no cover - the script itself needs only the standard library
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: Any, nextitem: Any) -> Iterator[None]:
        out = os.environ.get(OUT)
        if not out:
            yield
            return
        cpu, wall, own, delay = process_cpu(), time.monotonic(), _own_cpu(), _run_delay()
        yield
        record = {
            "id": item.nodeid,
            "cpu": process_cpu() - cpu,
            "wall": time.monotonic() - wall,
            "own_cpu": _own_cpu() - own,
            "run_delay": _run_delay() - delay,
            "markers": sorted({m.name for m in item.iter_markers()} & set(MARKERS)),
        }
        with open(out, "a") as f:
            f.write(json.dumps(record) + "\n")


def _own_cpu() -> float:
    """CPU seconds of this process alone."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def _run_delay() -> float:
    """Seconds this process's threads have waited for a core while ready to run (Linux's /proc/PID/task/*/schedstat; 0 elsewhere)."""
    total = 0
    for stat in Path("/proc/self/task").glob("*/schedstat"):
        try:
            total += int(stat.read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


def idle(test: dict[str, Any]) -> float:
    """Seconds of a test's wall time that no process of it ran or waited for a core: wall - CPU - the wait for a core.

    The worker's own wait is measured; that of the processes it started is not (they have ended), and
    is taken in the same proportion to their CPU as the worker's wait to its own.
    """
    own, delay = test.get("own_cpu", 0.0), test.get("run_delay", 0.0)
    children = max(0.0, test["cpu"] - own)
    ratio = delay / own if own > 0.05 else 0.0
    return max(0.0, test["wall"] - test["cpu"] - delay - children * ratio)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tier", choices=sorted(TIERS), default="quick")
    parser.add_argument("-n", default="2", help="pytest-xdist's workers (default 2, as CI's two cores)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--json", help="write every test's figures here")
    parser.add_argument("--slow", metavar="FILE", help=f"write the in-process tests that cost {SLOW_ABOVE} s of CPU or more here (tests/slow.txt; run the in-process tier)")
    parser.add_argument("--costs", metavar="FILE", help="write each test module's CPU seconds here (tests/costs.txt; run the whole suite)")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        records = Path(folder) / "tests.jsonl"
        env = {**os.environ, OUT: str(records), "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "pytest", "-n", args.n, "-p", "suite_time", "-q", *(["-m", TIERS[args.tier]] if TIERS[args.tier] else []), *args.pytest_args]
        before = _load()
        started = time.monotonic()
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
        wall = time.monotonic() - started
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = children.ru_utime + children.ru_stime
        after = _load()
        tests = [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []
    summary = next((line for line in reversed(done.stdout.splitlines()) if re.search(r"\d+ (passed|failed)", line)), "(no summary line)")
    print(f"tier {args.tier} ({TIERS[args.tier] or 'every test'}), -n {args.n}: {summary.strip('= ')}")
    print(f"wall {wall:.0f}s, CPU {cpu:.0f}s (pytest and everything it waited for); the tests alone: CPU {sum(t['cpu'] for t in tests):.0f}s")
    print(f"load before {before}, after {after}")
    print(f"the {args.top} tests that cost most CPU time:")
    for t in sorted(tests, key=lambda t: -t["cpu"])[: args.top]:
        print(f"  {t['cpu']:6.1f}s CPU {t['wall']:6.1f}s wall  {','.join(t['markers']) or '-':18} {t['id']}")
    idled: dict[str, float] = {}
    for t in tests:
        module = t["id"].split("::", 1)[0]
        idled[module] = idled.get(module, 0.0) + idle(t)
    waited = sum(t.get("run_delay", 0.0) for t in tests)
    print(f"idle (wall - CPU - the wait for a core, of its tests) {sum(idled.values()):.0f}s in all (the workers waited {waited:.0f}s for a core); the {args.top} modules that idled most:")
    for module, seconds in sorted(idled.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {seconds:6.1f}s idle  {module}")
    if args.json:
        Path(args.json).write_text(json.dumps({"tier": args.tier, "wall": wall, "cpu": cpu, "load": [before, after], "summary": summary, "tests": tests}, indent=1))
    if args.slow:
        slow = sorted((t for t in tests if set(t["markers"]) <= {"slow"} and t["cpu"] >= SLOW_ABOVE), key=lambda t: -t["cpu"])
        head = f"# in-process tests that cost {SLOW_ABOVE} s of CPU or more: CPU seconds, then the test (benchmarks/suite_time.py --tier in-process --slow, load {before})\n"
        Path(args.slow).write_text(head + "".join(f"{t['cpu']:.1f} {t['id']}\n" for t in slow), encoding="utf-8")
        print(f"{len(slow)} slow tests written to {args.slow}")
    if args.costs:
        modules: dict[str, float] = {}
        for t in tests:
            module = t["id"].split("::", 1)[0]
            modules[module] = modules.get(module, 0.0) + t["cpu"]
        head = f"# what each test module cost, CPU seconds (benchmarks/suite_time.py --tier all --costs, load {before}): the suite runs the costliest first\n"
        ranked = sorted(modules.items(), key=lambda kv: -kv[1])
        Path(args.costs).write_text(head + "".join(f"{cpu:.1f} {module}\n" for module, cpu in ranked), encoding="utf-8")
        print(f"{len(ranked)} modules' costs written to {args.costs}")
    if done.returncode not in (0, 5):
        print(done.stdout[-3000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
        sys.exit(done.returncode)


if __name__ == "__main__":
    main()
