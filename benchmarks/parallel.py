"""Steps/s of the ERC20 model workload on one process and on two worker processes (evmstate run -n).

The same work both ways: the ERC20 machine (10 accounts, a step = one rule + both invariants),
its examples split over two shards with the same seeds, run one after the other in this
process (-n 1) or at once in two workers (-n 2). Wall time includes everything `evmstate run`
does (for -n 2: starting the workers, which are forked from the fork server, discover the
machines and build the project from this process's compiled contracts). As the `evmstate`
command does, this script starts the fork server before it imports evmstate, and waits for it
before measuring, so that -n 1 does not share the cores with its imports. The start-up is also
measured alone: from a running fork server, from a fork server started only when the run
begins (a fresh process: what a run waits when nothing started the server before), and spawned
(EVMSTATE_START_METHOD=spawn, as every worker started before). CPU time counts this process
and its workers, so a busy machine shows as wall time, not as CPU time.

Run: python benchmarks/parallel.py [--examples 200] [--steps 50] [--repeat 1] [--backend pyevm]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

# evmstate is imported in the functions: main() starts the workers' fork server first, as the
# `evmstate` command does (evmstate_cli.launch imports nothing of evmstate)
from evmstate_cli import launch

if TYPE_CHECKING:
    from evmstate import config as config_mod

REPO = Path(__file__).resolve().parent.parent


def process_cpu() -> float:
    """CPU seconds of this process, of its children that ended, and of the fork server's (its workers, forked by it)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime + _fork_server_cpu()


# the command lines of the servers a process forks its workers from: multiprocessing's fork server, and the tests' zygote
# (tests/zygote.py), which forks the commands a test runs
FORK_SERVERS = (b"multiprocessing.forkserver", b"evmstate-tests-zygote")


def _fork_server_cpu() -> float:
    """The CPU seconds of this process's fork servers and of the workers they forked that ended (Linux's /proc; 0 elsewhere)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[1]) == os.getpid() and any(server in (stat.parent / "cmdline").read_bytes() for server in FORK_SERVERS):
                total += sum(int(t) for t in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime
        except (OSError, ValueError, IndexError):
            continue
    return total


def measure(cfg: config_mod.Config, machine: str, workers: int, examples: int, steps: int) -> tuple[int, float, float]:
    """(steps run, wall seconds, CPU seconds) of one run."""
    from evmstate.runner import Overrides, RunOptions, run

    options = RunOptions((machine,), overrides=Overrides(max_examples=examples, stateful_step_count=steps, seed=0), save_failures=False, workers=workers, shards=2)
    wall, cpu = time.perf_counter(), process_cpu()
    summary = run(cfg, options, lambda e: None)
    wall, cpu = time.perf_counter() - wall, process_cpu() - cpu
    (result,) = summary.results
    assert result.status == "passed", result.error or result.failure
    return result.steps, wall, cpu


def startup(cfg: config_mod.Config, machine: str, workers: int, method: str | None = None) -> float:
    """Seconds until every worker has loaded the project and is ready for a task (method: EVMSTATE_START_METHOD)."""
    from evmstate.contracts.project import Project
    from evmstate.scale.pool import (
        Pool,
        ProjectSource,
        absolute_paths,
        loaded_modules,
    )

    if method is not None:
        cfg = dataclasses.replace(cfg, environment=dataclasses.replace(cfg.environment, start_method=method))
    build = Project(cfg).build  # as a run has it, compiled before its workers start
    t = time.perf_counter()
    pool = Pool(ProjectSource(cfg, absolute_paths((machine,)), None, loaded_modules(), build), workers)
    try:
        while len(pool.ready) < workers:
            pool.receive(0.05)
        return time.perf_counter() - t
    finally:
        pool.close()


COLD = """
import dataclasses, sys, time
from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.contracts.project import Project
from evmstate.scale.pool import Pool, ProjectSource, absolute_paths, loaded_modules, start_early
import evmstate.runner
if __name__ == "__main__":
    cfg = dataclasses.replace(config_mod.load(), backend=BackendConfig(name=sys.argv[2]))
    build = Project(cfg).build
    t = time.perf_counter()
    start_early(cfg.environment)
    pool = Pool(ProjectSource(cfg, absolute_paths((sys.argv[1],)), None, loaded_modules(), build), 2)
    while len(pool.ready) < 2:
        pool.receive(0.05)
    print(time.perf_counter() - t)
    pool.close()
"""


def cold_startup(cfg: config_mod.Config, root: Path, machine: str) -> float:
    """Seconds until two workers are ready in a fresh process that starts the fork server only then."""
    script = root / "cold_startup.py"
    script.write_text(COLD)
    out = subprocess.run([sys.executable, str(script), machine, cfg.backend.name], cwd=root, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="runs of the machine, split over two shards")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=1, help="measure this many times; the best is printed")
    parser.add_argument("--backend", default=None, help="the backend to run on (default: evmstate.toml's)")
    args = parser.parse_args()
    if launch.forkserver_chosen():
        launch.start_fork_server()  # as `evmstate run -n 2` does, before it imports evmstate
    import evmstate_cli.main  # noqa: F401  (the fork server preloads it: this process loads it too, as the command does)

    from evmstate import config as config_mod
    from evmstate.config import BackendConfig
    from evmstate.runner import Overrides, RunOptions, run
    from evmstate.scale.pool import start_method

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("contracts", "machines"):
            shutil.copytree(REPO / name, root / name)
        shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
        os.chdir(root)
        cfg = config_mod.load(root)
        if args.backend is not None:
            cfg = dataclasses.replace(cfg, backend=BackendConfig(name=args.backend))
        machine = str(root / "machines" / "erc20.py")
        print(f"ERC20 model, {args.examples} runs x {args.steps} steps in 2 shards, backend {cfg.backend.name}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        run(cfg, RunOptions((machine,), overrides=Overrides(max_examples=1, stateful_step_count=1, seed=0), save_failures=False), lambda e: None)  # compile once
        first = startup(cfg, machine, 2)  # waits for the fork server started above, if still importing
        best: dict[int, tuple[int, float, float]] = {}
        for _ in range(args.repeat):
            for n in (1, 2):
                steps, wall, cpu = measure(cfg, machine, n, args.examples, args.steps)
                if n not in best or wall < best[n][1]:
                    best[n] = (steps, wall, cpu)
        repeats = max(1, args.repeat)
        up = min(startup(cfg, machine, 2) for _ in range(repeats))
        cold = min(cold_startup(cfg, root, machine) for _ in range(repeats)) if start_method(cfg.environment) == "forkserver" else None
        spawned = min(startup(cfg, machine, 2, "spawn") for _ in range(repeats))
        rates = {}
        for n, (steps, wall, cpu) in best.items():
            rates[n] = steps / wall
            print(f"-n {n}: {steps} steps in {wall:5.1f}s wall = {rates[n]:6.0f} steps/s; {cpu:5.1f}s CPU = {steps / cpu:4.0f} steps per CPU-second")
        steps2, wall2, _ = best[2]
        print(f"-n 2 / -n 1: {rates[2] / rates[1]:.2f}x (target >= 1.8x on 2 cores)")
        without = steps2 / max(wall2 - up, 1e-9)
        how = {"forkserver": "forked from the fork server", "spawn": "spawned, import everything", "fork": "forked from this process"}[start_method(cfg.environment)]
        print(f"two workers start in {up:.2f}s ({how}, discover, build the project); without it -n 2 runs {without:.0f} steps/s, {without / rates[1]:.2f}x")
        if cold is not None:
            print(f"  with the fork server started only when the run begins (fresh process): {cold:.2f}s; the first pool here, after this script's start: {first:.2f}s")
        print(f"  spawned instead (EVMSTATE_START_METHOD=spawn: import everything, then the project): {spawned:.2f}s")
        print(f"load average at the end: {os.getloadavg()[0]:.2f} (other work on the machine slows wall time, not CPU time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
