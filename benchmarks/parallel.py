"""Steps/s of the ERC20 model workload on one process and on two worker processes (evmstate run -n).

The same work both ways: the ERC20 machine (10 accounts, a step = one rule + both invariants),
its examples split over two shards with the same seeds, run one after the other in this
process (-n 1) or at once in two spawned workers (-n 2). Wall time includes everything
`evmstate run` does (for -n 2: starting the workers, which load the project from the build
cache); the workers' start-up is also measured alone. CPU time counts this process and its
workers, so a busy machine shows as wall time, not as CPU time.

Run: python benchmarks/parallel.py [--examples 200] [--steps 50] [--repeat 1] [--backend pyevm]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.scale.parallel import Pool, ProjectSource, absolute_paths, loaded_modules
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def measure(cfg: config_mod.Config, machine: str, workers: int, examples: int, steps: int) -> tuple[int, float, float]:
    """(steps run, wall seconds, CPU seconds) of one run."""
    options = RunOptions((machine,), overrides=Overrides(max_examples=examples, stateful_step_count=steps, seed=0), save_failures=False, workers=workers, shards=2)
    wall, cpu = time.perf_counter(), _cpu()
    summary = run(cfg, options, lambda e: None)
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    (result,) = summary.results
    assert result.status == "passed", result.error or result.failure
    return result.steps, wall, cpu


def startup(cfg: config_mod.Config, machine: str, workers: int) -> float:
    """Seconds until every worker has loaded the project and is ready for a task."""
    t = time.perf_counter()
    pool = Pool(ProjectSource(cfg, absolute_paths((machine,)), None, loaded_modules()), workers)
    try:
        while len(pool.ready) < workers:
            pool.receive(0.05)
        return time.perf_counter() - t
    finally:
        pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="runs of the machine, split over two shards")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=1, help="measure this many times; the best is printed")
    parser.add_argument("--backend", default=None, help="the backend to run on (default: evmstate.toml's)")
    args = parser.parse_args()
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
        best: dict[int, tuple[int, float, float]] = {}
        for _ in range(args.repeat):
            for n in (1, 2):
                steps, wall, cpu = measure(cfg, machine, n, args.examples, args.steps)
                if n not in best or wall < best[n][1]:
                    best[n] = (steps, wall, cpu)
        up = min(startup(cfg, machine, 2) for _ in range(max(1, args.repeat)))
        rates = {}
        for n, (steps, wall, cpu) in best.items():
            rates[n] = steps / wall
            print(f"-n {n}: {steps} steps in {wall:5.1f}s wall = {rates[n]:6.0f} steps/s; {cpu:5.1f}s CPU = {steps / cpu:4.0f} steps per CPU-second")
        steps2, wall2, _ = best[2]
        print(f"-n 2 / -n 1: {rates[2] / rates[1]:.2f}x (target >= 1.8x on 2 cores)")
        print(f"two workers start in {up:.1f}s (spawn, import, project from the build cache); without it -n 2 runs {steps2 / max(wall2 - up, 1e-9):.0f} steps/s, {steps2 / max(wall2 - up, 1e-9) / rates[1]:.2f}x")
        print(f"load average at the end: {os.getloadavg()[0]:.2f} (other work on the machine slows wall time, not CPU time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
