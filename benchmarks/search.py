"""Search power and its cost, in one run.

1. Steps/s of the ERC20 model workload (benchmarks/machines.py's: 50 runs of 50 steps, seed 0)
   with coverage guidance and the dictionary on (the defaults) and off, and with guidance on
   but the feedback signals beyond new branches (search/feedback.py: hit counts, stored
   values, comparison operands) all off: what the signals cost (aim: at most 10%).
2. For each search-power example (machines/fee_vault.py, claims.py, inbox.py, ladder.py,
   puzzle.py, sale.py, staking.py; and benchmarks/projects/actors/'s crowdfund.py, raffle.py,
   ether_vault.py, guarded_bank.py and referral_drop.py, whose bugs need an actor: a funder or winner
   that rejects ether, a holder that re-enters, one that re-enters another function than the one
   locked (one it sent, or one another account sent); benchmarks/projects/compared/'s combination.py, an equality hidden in a
   compound condition, `seed != 0 and combination == 3 * seed + 7`, and scaled.py, the argument
   on the other side, `3 * combination + 7 == seed`): over several seeds,
   whether the bug was reported, the time to report it (search, shrinking and the step-deletion
   pass; compile excluded), the runs to the first
   failure and the printed program's length; the median time per example. With --signals, the
   same against the default signals (stored values and comparison operands): each of them off
   in turn, hit counts (off by default) on too, and none (--variants picks some of these).
3. With --guidance-vs-target: the ladder with guidance off, once with Hypothesis's target()
   given the rung as its score, once with neither: how many seeds find it within 300 runs.
4. With --vault [BUGS]: instead, the planted bugs of the vault-class workload (vault_bugs.py; by default
   a, b and c, the medium ones), each as `evmstate run` searches it at its defaults, seeds 0 to --seeds - 1,
   in a fresh process per seed: found or not, when, shrinking's time and the program's length (against
   the minimal one where it is known). With --backend revm, on py-evm and on revm. With --find-only, no shrinking:
   each seed from a cold start, found or not and at which run (what a change to the search is compared by).
5. With --campaign: `evmstate fuzz --time 60s -n 1 --seed S` on each example (the actor and compared ones too), as a user runs it,
   (with --signals too: also with the signals off): whether the minimal program was printed, and when.
6. With --backend revm: first the ERC20 workload's steps per CPU-second on revm with the search's
   signals recorded (the defaults: revm runs each call again where its path can be seen,
   evm/revm/sight.py) and with none (revm's backend declaring no hooks, as before it had them: no
   guidance, a dictionary of constants only), and py-evm with the defaults; then each example and
   seed once on py-evm and once on revm, the time to report on each (CPU seconds) and the ratio. revm's
   modules are loaded before either runs, so that a seed draws the same on both (Hypothesis
   draws constants from every module loaded). With --campaign, the campaigns run on both too.
   --fuzz "guidance = false" adds [fuzz] lines to the examples' project (and to the vault's, with --vault:
   --fuzz "invariant_interval = 5").
7. With --versus: `fuzz` against `run` in the same time. Per example (the actor and compared ones too; --examples
   may also name budget.py's machines: depositer, payments, share_vault, erc20, test_properties, snekmate/erc20) and
   seed: `evmstate run --fresh --seed S` at its defaults, the seconds from its contracts compiled to its failure
   printed (its whole search when it found none), then `evmstate fuzz --fresh -n 1 --seed S --time T` with T those seconds
   rounded up (its clock also starts once the contracts are compiled): whether the campaign found the same failure
   (the same message) and when. On py-evm, and with --backend revm on revm too (--vault-backends revm: revm alone, to
   run the backends in two processes). Wall time: run it where the load is known, and say it.
   Measured with a machine's first shard making run's whole search (the same seed, Hypothesis's loop), so that a
   campaign with one worker makes run's runs first (--versus --no-erc20 --seeds 5, `--vault-backends pyevm` and
   `--vault-backends revm --backend revm`, load 6 to 9 on 2 cores; revm's rows with the first shard still stopping at
   its 20th example, as it did then: the ladder's two misses there were run's 55th and 22nd example; measured again on
   the ladder and the puzzle, revm, load 6 to 8: the ladder 4/5 (seeds 0 to 3: seed 4, run's 78th example, was missed
   71 runs in), the puzzle 2/5; a miss with a run started is a campaign a few runs short of run's, its worker starting
   after run would have):
   fee_vault        pyevm seeds 0-4  run 5/5, median   0.7s   fuzz in that time 5/5 (0 with no run started)  load 6-6
   claims           pyevm seeds 0-4  run 5/5, median   1.3s   fuzz in that time 5/5 (0 with no run started)  load 6-6
   inbox            pyevm seeds 0-4  run 5/5, median   2.3s   fuzz in that time 5/5 (0 with no run started)  load 6-6
   ladder           pyevm seeds 0-4  run 4/5, median   7.9s   fuzz in that time 1/5 (0 with no run started)  load 6-6
   puzzle           pyevm seeds 0-4  run 2/5, median   8.9s   fuzz in that time 2/5 (0 with no run started)  load 6-7
   sale             pyevm seeds 0-4  run 5/5, median   9.2s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   safe             pyevm seeds 0-4  run 5/5, median   1.5s   fuzz in that time 4/5 (0 with no run started)  load 7-8
   staking          pyevm seeds 0-4  run 5/5, median   2.2s   fuzz in that time 5/5 (0 with no run started)  load 7-8
   vesting          pyevm seeds 0-4  run 5/5, median   0.9s   fuzz in that time 5/5 (0 with no run started)  load 6-6
   crowdfund        pyevm seeds 0-4  run 5/5, median   4.3s   fuzz in that time 5/5 (0 with no run started)  load 6-8
   raffle           pyevm seeds 0-4  run 5/5, median   0.9s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   ether_vault      pyevm seeds 0-4  run 5/5, median   5.7s   fuzz in that time 5/5 (0 with no run started)  load 6-7
   combination      pyevm seeds 0-4  run 5/5, median   1.0s   fuzz in that time 5/5 (0 with no run started)  load 6-7
   scaled           pyevm seeds 0-4  run 5/5, median   2.9s   fuzz in that time 5/5 (0 with no run started)  load 6-7
   fee_vault        revm  seeds 0-4  run 5/5, median   1.2s   fuzz in that time 3/5 (2 with no run started)  load 7-7
   claims           revm  seeds 0-4  run 5/5, median   2.0s   fuzz in that time 4/5 (1 with no run started)  load 7-8
   inbox            revm  seeds 0-4  run 5/5, median   1.0s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   ladder           revm  seeds 0-4  run 4/5, median   3.9s   fuzz in that time 3/5 (0 with no run started)  load 7-7
   puzzle           revm  seeds 0-4  run 2/5, median   4.6s   fuzz in that time 2/5 (0 with no run started)  load 7-8
   sale             revm  seeds 0-4  run 5/5, median   1.1s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   safe             revm  seeds 0-4  run 5/5, median   0.9s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   staking          revm  seeds 0-4  run 5/5, median   1.5s   fuzz in that time 5/5 (0 with no run started)  load 7-9
   vesting          revm  seeds 0-4  run 5/5, median   0.5s   fuzz in that time 4/5 (1 with no run started)  load 8-9
   crowdfund        revm  seeds 0-4  run 5/5, median   1.4s   fuzz in that time 5/5 (0 with no run started)  load 8-9
   raffle           revm  seeds 0-4  run 5/5, median   0.5s   fuzz in that time 5/5 (0 with no run started)  load 8-8
   ether_vault      revm  seeds 0-4  run 5/5, median   0.8s   fuzz in that time 5/5 (0 with no run started)  load 8-8
   combination      revm  seeds 0-4  run 5/5, median   0.6s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   scaled           revm  seeds 0-4  run 5/5, median   1.7s   fuzz in that time 5/5 (0 with no run started)  load 7-7
   Before, with each shard of a campaign drawing under a seed of its own:
   Measured (--versus --no-erc20 --seeds 5, `--vault-backends pyevm` and `--vault-backends revm --backend revm` in two
   processes, load 2 to 13 on 2 cores; docs/cli.md "Against evmstate run in the same time" says why fuzz finds less:
   a campaign's worker starts 2 to 5 s into its budget on a loaded machine; the puzzle, erc20 and test_properties
   on py-evm not measured):
   fee_vault        pyevm seeds 0-4  run 5/5, median   1.2s   fuzz in that time 0/5 (5 with no run started)  load 7-8
   fee_vault        revm  seeds 0-4  run 5/5, median   1.5s   fuzz in that time 2/5 (3 with no run started)  load 7-8
   claims           pyevm seeds 0-4  run 5/5, median   3.3s   fuzz in that time 1/5 (2 with no run started)  load 8-11
   claims           revm  seeds 0-4  run 5/5, median   2.2s   fuzz in that time 1/5 (4 with no run started)  load 8-11
   inbox            pyevm seeds 0-4  run 5/5, median   8.0s   fuzz in that time 4/5 (0 with no run started)  load 10-11
   inbox            revm  seeds 0-4  run 5/5, median   2.5s   fuzz in that time 3/5 (2 with no run started)  load 10-12
   ladder           pyevm seeds 0-4  run 4/5, median  30.3s   fuzz in that time 3/5 (0 with no run started)  load 10-11
   ladder           revm  seeds 0-4  run 4/5, median  10.9s   fuzz in that time 3/5 (0 with no run started)  load 10-13
   puzzle           revm  seeds 0-4  run 2/5, median  16.0s   fuzz in that time 3/5 (0 with no run started)  load 10-11
   sale             pyevm seeds 0-4  run 5/5, median  20.8s   fuzz in that time 3/5 (0 with no run started)  load 10-12
   sale             revm  seeds 0-4  run 5/5, median   3.5s   fuzz in that time 2/5 (1 with no run started)  load 10-12
   safe             pyevm seeds 0-4  run 5/5, median   3.1s   fuzz in that time 3/5 (2 with no run started)  load 9-10
   safe             revm  seeds 0-4  run 5/5, median   2.1s   fuzz in that time 2/5 (3 with no run started)  load 10-12
   staking          pyevm seeds 0-4  run 5/5, median   1.2s   fuzz in that time 3/5 (0 with no run started)  load 3-4
   staking          revm  seeds 0-4  run 5/5, median   2.8s   fuzz in that time 3/5 (2 with no run started)  load 9-10
   vesting          pyevm seeds 0-4  run 5/5, median   1.8s   fuzz in that time 1/5 (3 with no run started)  load 6-7
   vesting          revm  seeds 0-4  run 5/5, median   1.3s   fuzz in that time 0/5 (5 with no run started)  load 7-10
   crowdfund        pyevm seeds 0-4  run 5/5, median   6.8s   fuzz in that time 2/5 (1 with no run started)  load 7-9
   crowdfund        revm  seeds 0-4  run 5/5, median   3.0s   fuzz in that time 2/5 (1 with no run started)  load 5-6
   raffle           pyevm seeds 0-4  run 5/5, median   1.7s   fuzz in that time 2/5 (3 with no run started)  load 7-7
   raffle           revm  seeds 0-4  run 5/5, median   1.5s   fuzz in that time 2/5 (3 with no run started)  load 6-6
   ether_vault      pyevm seeds 0-4  run 5/5, median  11.9s   fuzz in that time 4/5 (0 with no run started)  load 6-7
   ether_vault      revm  seeds 0-4  run 5/5, median   2.0s   fuzz in that time 0/5 (5 with no run started)  load 6-7
   combination      pyevm seeds 0-4  run 5/5, median   3.3s   fuzz in that time 3/5 (1 with no run started)  load 6-7
   combination      revm  seeds 0-4  run 5/5, median   1.2s   fuzz in that time 1/5 (3 with no run started)  load 5-6
   scaled           pyevm seeds 0-4  run 5/5, median   6.5s   fuzz in that time 3/5 (0 with no run started)  load 6-7
   scaled           revm  seeds 0-4  run 5/5, median   4.5s   fuzz in that time 5/5 (0 with no run started)  load 5-6
   depositer        pyevm seeds 0-4  run 5/5, median   1.6s   fuzz in that time 3/5 (1 with no run started)  load 6-7
   depositer        revm  seeds 0-4  run 5/5, median   1.6s   fuzz in that time 0/5 (5 with no run started)  load 7-7
   payments         pyevm seeds 0-4  run 5/5, median   0.9s   fuzz in that time 0/5 (5 with no run started)  load 4-5
   payments         revm  seeds 0-4  run 5/5, median   1.8s   fuzz in that time 0/5 (5 with no run started)  load 6-7
   share_vault      pyevm seeds 0-4  run 0/5, median  49.2s   fuzz in that time 0/5 (0 with no run started)  load 2-5
   share_vault      revm  seeds 0-4  run 0/5, median  21.1s   fuzz in that time 0/5 (0 with no run started)  load 6-7
   erc20            revm  seeds 0-4  run 0/5, median  13.0s   fuzz in that time 0/5 (0 with no run started)  load 6-7
   test_properties  revm  seeds 0-4  run 0/5, median   4.6s   fuzz in that time 0/5 (2 with no run started)  load 5-6
   snekmate/erc20   pyevm seeds 0-4  run 0/5, median   2.2s   fuzz in that time 0/5 (0 with no run started)  load 3-5
   snekmate/erc20   revm  seeds 0-4  run 0/5, median   4.3s   fuzz in that time 0/5 (0 with no run started)  load 6-7

Run: python benchmarks/search.py [--seeds N] [--examples a,b] [--find-only] [--signals [--variants v,w]] [--guidance-vs-target] [--campaign] [--versus] [--backend revm] [--vault [a,b,c]]
  --find-only  no shrink phase (the step-deletion pass still runs): the time to find, for comparing searches; with --vault,
               each seed searched without shrinking and from a cold start: found or not, and at which run
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import statistics
import sys
import tempfile
import time
from pathlib import Path

from typing import Any

from evmstate import config as config_mod
from evmstate.engine.events import FailureFound
from evmstate.runner import Overrides, RunOptions, run
from evmstate.search.feedback import DEFAULT, ENVIRONMENT, SIGNALS

REPO = Path(__file__).resolve().parent.parent
# the command as this interpreter's environment installed it (the benchmark may run without activating it)
EVMSTATE = shutil.which("evmstate", path=str(Path(sys.executable).parent)) or "evmstate"
EXAMPLES = ("fee_vault", "claims", "inbox", "ladder", "puzzle", "sale", "safe", "staking", "vesting")
# benchmarks/projects/actors/: bugs only a contract counterparty shows, with the actors on (docs/actors.md)
ACTOR_EXAMPLES = ("crowdfund", "raffle", "ether_vault", "guarded_bank", "referral_drop")
# benchmarks/projects/compared/: a value only the comparisons show, at the tool's defaults (docs/configuration.md): an
# equality met through a compound condition or arithmetic; an amount at exactly the limit a step was refused at (a borrow
# at the collateral limit, a mint to exactly the cap)
COMPARED_EXAMPLES = ("combination", "scaled", "pool", "capped")
# the feedback signals switched on, by label, each against the default (stored values and
# comparison operands; hit counts are off): each default signal off in turn, hit counts on too, none
VARIANTS = {
    **{f"{s} off": ",".join(o for o in SIGNALS if o in DEFAULT and o != s) for s in SIGNALS if s in DEFAULT},
    **{f"{s} on too": ",".join(o for o in SIGNALS if o in DEFAULT or o == s) for s in SIGNALS if s not in DEFAULT},
    "no signals": "",
}


@contextlib.contextmanager
def signals(on: str | None) -> "object":
    """Run with these feedback signals switched on (None: the default, all)."""
    before = os.environ.get(ENVIRONMENT)
    if on is None:
        os.environ.pop(ENVIRONMENT, None)
    else:
        os.environ[ENVIRONMENT] = on
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENVIRONMENT, None)
        else:
            os.environ[ENVIRONMENT] = before


def project(tmp: Path, source: Path = REPO) -> Path:
    for name in ("contracts", "machines"):
        shutil.copytree(source / name, tmp / name)
    (tmp / "evmstate.toml").write_text((source / "evmstate.toml").read_text())
    return tmp


def with_fuzz(root: Path, lines: str) -> None:
    """Add settings to the project's [fuzz] section (made when missing)."""
    toml = root / "evmstate.toml"
    text = toml.read_text()
    if "[fuzz]" in text:
        text = text.replace("[fuzz]", "[fuzz]\n" + lines, 1)
    else:
        text += "\n[fuzz]\n" + lines + "\n"
    toml.write_text(text)


def erc20_rate(root: Path) -> float:
    summary = run(config_mod.load(root), RunOptions((str(root / "machines/erc20.py"),), overrides=Overrides(max_examples=50, stateful_step_count=50, seed=0)), lambda e: None)
    (result,) = summary.results
    return result.steps / result.elapsed


def search(root: Path, example: str, seed: int, backend: str | None = None) -> tuple[Any, float, float | None]:
    """The machine in machines/{example}.py run at its defaults from seed, a cold example database: (its result, seconds, seconds to the first failure)."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)  # search, do not replay a saved failure
    cfg = config_mod.load(root)
    if backend is not None:
        cfg = cfg.replace(backend=config_mod.BackendConfig(name=backend))
    found_at: list[float] = []
    started = time.perf_counter()

    def on_event(event: object) -> None:
        if isinstance(event, FailureFound) and not found_at:
            found_at.append(time.perf_counter() - started)

    summary = run(cfg, RunOptions((str(root / f"machines/{example}.py"),), overrides=Overrides(seed=seed), save_failures=False), on_event)
    (result,) = summary.results
    return result, time.perf_counter() - started, found_at[0] if found_at else None


def report_time(root: Path, example: str, seed: int, backend: str | None = None) -> tuple[bool, float, int | None, int | None, float | None, int | None]:
    """(reported, seconds to report, runs to the first failure, program steps, seconds to the first failure, shrink runs)."""
    result, elapsed, to_find = search(root, example, seed, backend)
    failure = result.failure
    first = result.statistics.get("first failure at run")
    shrink_runs = failure.shrink.runs if failure is not None and failure.shrink is not None else None
    return failure is not None, elapsed, first, failure.steps if failure is not None else None, to_find, shrink_runs


LADDER_TARGET = """
from hypothesis import target

from evmstate import strategy


class LadderTargetMachine:
    settings = {"max_examples": 300, "guidance": False}
    x = strategy("uint8")

    def __init__(cls, Ladder):
        cls.ladder = Ladder.deploy()

    def rule_climb(self, x):
        self.ladder.climb(x)

    def invariant_below_the_top(self):
        assert self.ladder.rung() < 4

    def teardown(self):
        # the best score target() could get: the rung itself, not just new branches
        target(self.ladder.rung(), label="rung")
"""

LADDER_PLAIN = LADDER_TARGET.replace("LadderTargetMachine", "LadderPlainMachine").replace('    def teardown(self):\n        # the best score target() could get: the rung itself, not just new branches\n        target(self.ladder.rung(), label="rung")\n', "")


def examples_times(root: Path, examples: list[str], seeds: int, label: str = "") -> None:
    for example in examples:
        run(config_mod.load(root), RunOptions((str(root / f"machines/{example}.py"),), overrides=Overrides(max_examples=1, seed=0), save_failures=False), lambda e: None)  # compile
        times, found = [], 0
        for seed in range(seeds):
            reported, elapsed, first, steps, to_find, shrink_runs = report_time(root, example, seed)
            found += reported
            times.append(elapsed if reported else float("inf"))
            what = f"reported in {elapsed:5.1f}s (found at run {first}, after {to_find:.1f}s; {steps} steps after {shrink_runs} shrink runs)" if reported else f"NOT found in {elapsed:.1f}s"
            print(f"{example:9} {label}seed {seed}: {what}")
        print(f"{example:9} {label}found in {found}/{seeds} seeds, median time to report {statistics.median(times):.1f}s")


def erc20_cpu_rate(root: Path, backend: str) -> float:
    """Steps per CPU-second of the ERC20 workload on backend (CPU time: the machine is shared)."""
    cfg = config_mod.load(root).replace(backend=config_mod.BackendConfig(name=backend))
    started = time.process_time()
    summary = run(cfg, RunOptions((str(root / "machines/erc20.py"),), overrides=Overrides(max_examples=50, stateful_step_count=50, seed=0)), lambda e: None)
    (result,) = summary.results
    return result.steps / (time.process_time() - started)


def revm_feedback_cost(root: Path) -> None:
    """The ERC20 workload on revm with the signals recorded and without, and on py-evm: median of 3, interleaved."""
    from evmstate.evm.revm import backend as revm
    from evmstate.evm.base import Capabilities

    recorded = revm.RevmBackend.capabilities
    blind = Capabilities(frames=False, coverage=False, observer=False, time_limit=False, divergence=False)
    variants = {"revm, signals recorded (the default)": (revm, recorded), "revm, no signals (no hooks)": (revm, blind), "py-evm, the default": (None, None)}
    erc20_cpu_rate(root, "revm")  # compile and warm up
    rates: dict[str, list[float]] = {label: [] for label in variants}
    try:
        for _ in range(3):
            for label, (module, capabilities) in variants.items():
                if module is not None:
                    module.RevmBackend.capabilities = capabilities
                rates[label].append(erc20_cpu_rate(root, "revm" if module is not None else "pyevm"))
    finally:
        revm.RevmBackend.capabilities = recorded
    medians = {label: statistics.median(r) for label, r in rates.items()}
    for label, rate in medians.items():
        print(f"ERC20 50x50, {label + ':':38} {rate:6.0f} steps per CPU-second (median of 3)")
    on, off = medians["revm, signals recorded (the default)"], medians["revm, no signals (no hooks)"]
    print(f"recording the signals on revm costs {100 * (1 - on / off):.1f}% of its steps (aim: at most 25%); revm with them runs {on / medians['py-evm, the default']:.1f}x py-evm's steps")


def backends_times(root: Path, examples: list[str], seeds: int) -> None:
    """Each example and seed once on py-evm and once on revm: the time to report on each, and revm's speed-up."""
    found = {"pyevm": 0, "revm": 0}
    ratios = []
    for example in examples:
        for backend in ("pyevm", "revm"):  # compile, and warm each backend up
            cfg = config_mod.load(root).replace(backend=config_mod.BackendConfig(name=backend))
            run(cfg, RunOptions((str(root / f"machines/{example}.py"),), overrides=Overrides(max_examples=1, seed=0), save_failures=False), lambda e: None)
        for seed in range(seeds):
            times = {}
            for backend in ("pyevm", "revm"):
                cpu = time.process_time()
                reported, _, first, steps, to_find, _ = report_time(root, example, seed, backend)
                elapsed = time.process_time() - cpu  # CPU time: the machine may be shared
                found[backend] += reported
                times[backend] = (reported, elapsed, first, steps)
            (p_ok, p_t, _, _), (r_ok, r_t, _, _) = times["pyevm"], times["revm"]
            ratio = p_t / r_t if p_ok and r_ok else None
            if ratio is not None:
                ratios.append(ratio)
            shown = {b: f"{t[1]:5.1f}s (run {t[2]}, {t[3]} steps)" if t[0] else f"NOT found in {t[1]:.1f}s" for b, t in times.items()}
            print(f"{example:9} seed {seed}: py-evm {shown['pyevm']}, revm {shown['revm']}" + (f", revm {ratio:.1f}x faster" if ratio else ""))
    total = len(examples) * seeds
    print(f"found on py-evm {found['pyevm']}/{total}, on revm {found['revm']}/{total}; revm's time to report against py-evm's: median {statistics.median(ratios):.1f}x faster (min {min(ratios):.1f}x, max {max(ratios):.1f}x)" if ratios else "nothing found on both")


def campaign(root: Path, example: str, seed: int, on: str | None, budget: str = "60s", backend: str | None = None, native: str | None = None) -> tuple[int | None, float | None, float]:
    """`evmstate fuzz --time budget -n 1 --seed seed` on one example: (steps of the program printed, seconds when printed, seconds in all).

    native: EVMSTATE_NATIVE for the campaign ("0": Hypothesis draws every run; None: as the environment says).
    """
    shutil.rmtree(root / ".evmstate", ignore_errors=True)
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    if native is not None:
        env["EVMSTATE_NATIVE"] = native
    if on is None:
        env.pop(ENVIRONMENT, None)
    else:
        env[ENVIRONMENT] = on
    started = time.perf_counter()
    chosen = ["--backend", backend] if backend is not None else []
    process = subprocess.Popen([EVMSTATE, "fuzz", "--time", budget, "-n", "1", "--seed", str(seed), *chosen, f"machines/{example}.py"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    steps, printed, reading = None, None, False
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Falsifying example ("):
            steps, reading = int(line.split("(")[1].split()[0]), True
        elif reading and not line.strip():
            printed, reading = time.perf_counter() - started, False
    process.wait()
    return steps, printed, time.perf_counter() - started


def timed_lines(command: list[str], root: Path, native: str | None = None) -> tuple[list[tuple[float, str]], float]:
    """command run in root (its .evmstate emptied but for the build cache): each line it printed, with the seconds since it
    started, and the seconds it took in all."""
    for name in (root / ".evmstate").glob("*"):
        if name.name != "build":
            shutil.rmtree(name, ignore_errors=True) if name.is_dir() else name.unlink()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "PYTHONUNBUFFERED": "1"}
    if native is not None:
        env["EVMSTATE_NATIVE"] = native
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append((time.perf_counter() - started, line.rstrip("\n")))
    process.wait()
    return lines, time.perf_counter() - started


def reports(lines: list[tuple[float, str]], start: str) -> tuple[float, list[tuple[str, int, float]]]:
    """The failures a run or a campaign printed: the seconds from its line beginning with start (the search's start:
    the contracts compiled) and each failure's message, the steps of its program and the seconds from that line to the
    end of the printed program."""
    origin = next((t for t, line in lines if line.startswith(start)), lines[0][0] if lines else 0.0)
    found, message, steps, reading = [], None, 0, False
    for t, line in lines:
        if line.startswith("FAILED "):
            message = None
        elif message is None and line.strip() and not line.startswith(("✗", "FAILED")):
            message = line.strip()
        if line.startswith("Falsifying example ("):
            steps, reading = int(line.split("(")[1].split()[0]), True
        elif reading and not line.strip():
            found.append((message or "", steps, t - origin))
            reading, message = False, None
    return origin, found


def kind(message: str) -> str:
    """A failure's message without its numbers and addresses: the same failure whatever values its program drew."""
    return re.sub(r"0x[0-9a-fA-F]+|\d+", "N", message)


def versus(root: Path, machine: str, seed: int, backend: str, native: str | None = None) -> dict[str, Any]:
    """`evmstate run --seed seed` at its defaults on one machine, then `evmstate fuzz -n 1 --seed seed` given the time run
    took to report its failure (its whole time when it found none), both from the contracts compiled, on backend:
    run's failure and time, and whether the campaign reported the same failure (the same message) within its time."""
    chosen = ["--backend", backend, "--seed", str(seed), f"machines/{machine}.py"]
    lines, total = timed_lines([EVMSTATE, "run", "--fresh", *chosen], root)
    origin, found = reports(lines, "compiled ")
    run_time = found[0][2] if found else total - origin
    budget = max(1, round(run_time + 0.5))
    # --fresh, as run: neither loads what an earlier seed's search saved (a campaign's kept runs, run's database)
    flines, ftotal = timed_lines([EVMSTATE, "fuzz", "--fresh", "--time", f"{budget}s", "-n", "1", *chosen], root, native)
    _, ffound = reports(flines, "fuzzing ")
    same = [f for f in ffound if not found or kind(f[0]) == kind(found[0][0])]
    summary = next((line for _, line in reversed(flines) if " shards, " in line and " runs, " in line), "")
    hit = re.search(r"found (\d+)s in", summary)
    return {"run": found[0] if found else None, "run_time": run_time, "budget": budget, "fuzz": same[0] if same else None,
            "fuzz_other": [f for f in ffound if f not in same], "fuzz_total": ftotal, "fuzz_summary": summary.strip(),
            "fuzz_hit": int(hit.group(1)) if hit else None}


def versus_table(roots: list[tuple[Path, str, list[str]]], seeds: int, backends: tuple[str, ...], native: str | None = None) -> None:
    """For each machine, backend and seed: run's time to report and its failure, then fuzz given that time (versus())."""
    for root, label, machines in roots:
        if not (root / ".evmstate" / "build").exists():
            subprocess.run([EVMSTATE, "compile"], cwd=root, capture_output=True, check=False)
        for machine in machines:
            for backend in backends:
                runs, fuzzes, times = 0, 0, []
                for seed in range(seeds):
                    r = versus(root, machine, seed, backend, native)
                    runs += r["run"] is not None
                    fuzzes += r["fuzz"] is not None
                    times.append(r["run_time"])
                    ran = f"run found it in {r['run_time']:.1f}s ({r['run'][1]} steps: {r['run'][0][:60]})" if r["run"] else f"run found nothing in {r['run_time']:.1f}s"
                    fuzzed = f"fuzz --time {r['budget']}s found it {r['fuzz_hit']}s in, printed it at {r['fuzz'][2]:.1f}s ({r['fuzz'][1]} steps)" if r["fuzz"] else f"fuzz --time {r['budget']}s did not"
                    other = f"; fuzz also printed {len(r['fuzz_other'])} other failure(s): {r['fuzz_other'][0][0][:60]}" if r["fuzz_other"] else ""
                    print(f"{label}{machine:12} {backend:5} seed {seed}: {ran}; {fuzzed}{other} [{r['fuzz_summary']}] (load {os.getloadavg()[0]:.2f})", flush=True)
                print(f"{label}{machine:12} {backend:5}: run found it on {runs}/{seeds} seeds (median {statistics.median(times):.1f}s), "
                      f"fuzz in run's time on {fuzzes}/{seeds}", flush=True)


def vault_find(root: Path, seed: int, native: bool = False) -> None:
    """One search of the vault project in root as `evmstate run` searches it, without shrinking, and a cold start: prints
    one line of JSON, whether it failed, at which run, its steps and CPU seconds (--vault --find-only runs it in a fresh
    process per seed; with native, its runs drawn by `evmstate fuzz`'s own loop)."""
    import json

    sys.path.insert(0, str(REPO / "benchmarks"))
    import vault_bugs

    if native:  # `evmstate fuzz`'s own loop (engine/native.py) at `run`'s budget: campaigns ask for it per shard, and run
        # on revm with EVMSTATE_NATIVE=run (own_loop(), which run asks for each machine, on any backend here)
        import evmstate.engine.native as native_mod

        native_mod.own_loop = lambda config: True  # type: ignore[assignment]
    started = time.process_time()
    options = RunOptions((str(root / vault_bugs.MACHINE),), overrides=Overrides(seed=seed, phases=("explicit", "generate"), fresh=True), save_failures=False)
    (result,) = run(config_mod.load(root), options, lambda e: None).results
    failure = result.failure
    print(json.dumps({"found": failure is not None, "run": result.statistics.get("first failure at run"), "steps": result.steps,
                      "cpu": round(time.process_time() - started, 1), "message": str(failure.message).splitlines()[0][:80] if failure is not None else "",
                      # a search that ended in an error (a broken build or machine) found nothing, and is no miss either
                      "error": (str(result.error).splitlines() or [""])[0][:160] if result.status == "error" else ""}))


def vault_finds(bugs: list[str], seeds: range, backends: tuple[str, ...], tmp: Path, fuzz: str = "", native: bool = False) -> None:
    """--vault --find-only: each bug, backend and seed searched without shrinking (vault_find, in a fresh process): found
    or not, and at which run."""
    import json

    sys.path.insert(0, str(REPO / "benchmarks"))
    import vault_bugs

    for bug in bugs:
        for backend in backends:
            root = vault_bugs.project(tmp / f"vault-{bug}-{backend}", bug)
            if backend != "pyevm":
                with open(root / "evmstate.toml", "a") as toml:
                    toml.write(f'\n[backend]\nname = "{backend}"\n')
            if fuzz:
                with_fuzz(root, fuzz)
            runs = []
            errors = 0
            for seed in seeds:
                out = subprocess.run([sys.executable, __file__, "--vault-find", f"{root}:{seed}:{int(native)}"], capture_output=True, text=True, check=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                runs.append(r["run"] if r["found"] else None)
                if r.get("error"):
                    errors += 1
                told = f"found at run {r['run']}: {r['message']}" if r["found"] else f"ERROR: {r['error']}" if r.get("error") else "not found"
                print(f"vault {bug} {backend:5}{' (fuzz loop)' if native else ''} seed {seed}: " + told
                      + f" ({r['steps']} steps, {r['cpu']}s CPU, load {os.getloadavg()[0]:.2f})", flush=True)
            print(f"vault {bug} {backend:5}{' (fuzz loop)' if native else ''}: found on {sum(r is not None for r in runs)}/{len(seeds)} seeds {seeds.start}-{seeds.stop - 1}, at runs {runs}" + (f", {errors} ended in an error (not counted as searched)" if errors else "") + f" (EVMSTATE_FEEDBACK={os.environ.get(ENVIRONMENT, '(unset)')})", flush=True)


def vault_baseline(bugs: list[str], seeds: range, backends: tuple[str, ...], tmp: Path, fuzz: str = "") -> None:
    """Each planted bug of the vault workload (vault_bugs.py) searched as `evmstate run` searches it, at its defaults, on seeds
    0..seeds-1 and each backend, one fresh process per seed (shrink.py's): whether it was found, when, how long shrinking
    took, and the program's length (and whether it is a minimal one, for the bugs whose minimal programs are known)."""
    # imported here, not above: Hypothesis draws constants from every local module loaded, and the other searches run in this process
    sys.path.insert(0, str(REPO / "benchmarks"))
    import shrink as shrink_bench  # searches in a fresh process, and the check of a program against its minimal ones
    import vault_bugs

    tree = shrink_bench.Tree("evmstate", REPO, tmp)
    cases = {c.project: c for c in shrink_bench.CASES}
    for bug in bugs:
        planted = vault_bugs.BUGS[bug]
        case = cases.get(f"vault-{bug}")
        for backend in backends:
            root = vault_bugs.project(tmp / f"vault-{bug}-{backend}", bug)
            if backend != "pyevm":
                with open(root / "evmstate.toml", "a") as toml:
                    toml.write(f'\n[backend]\nname = "{backend}"\n')
            if fuzz:  # --fuzz "invariant_interval = 5", say
                with_fuzz(root, fuzz)
            tree.python(shrink_bench.COMMAND, "compile", cwd=root)
            shrink_bench.BACKEND = backend  # measure() names the backend, over the project's own [backend]
            found = 0
            for seed in seeds:
                (r,) = shrink_bench.measure(tree, root, vault_bugs.MACHINE, seed)
                if r["status"] != "failed":
                    print(f"vault {bug} {planted.label:22} {backend:5} seed {seed}: {'not found' if r['status'] == 'passed' else r['status'] + ': ' + str(r['message'])}", flush=True)
                    continue
                found += 1
                steps = shrink_bench.calls(shrink_bench.parse(r["program"]))
                minimal = ""
                if case is not None:
                    shown = shrink_bench.row(case, seed, r)
                    minimal = f" of {shown['minimal_steps']}, least numbers {shrink_bench.yes(shown['least'])}, minimal {shrink_bench.yes(shown['exact'])}"
                print(f"vault {bug} {planted.label:22} {backend:5} seed {seed}: found at run {r.get('run')} after {r['found']}, shrunk in {r['shrink']:.1f}s ({r['cpu_shrink']:.1f}s CPU) "
                      f"to {steps} steps{minimal}: {r['message'].splitlines()[0][:80]}  (load {os.getloadavg()[0]:.2f})", flush=True)
                if not minimal.endswith("minimal yes"):
                    print("    " + "\n    ".join(line for line in r["program"] if not line.startswith("state = ")), flush=True)
            print(f"vault {bug} {planted.label:22} {backend:5}: found on {found}/{len(seeds)} seeds", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--find-only", action="store_true")
    parser.add_argument("--examples", default=",".join(EXAMPLES + ACTOR_EXAMPLES + COMPARED_EXAMPLES))
    parser.add_argument("--no-erc20", action="store_true")
    parser.add_argument("--no-times", action="store_true", help="skip the examples' times with every signal on (part 2)")
    parser.add_argument("--guidance-vs-target", action="store_true", help="also run the ladder with target() scores and with neither")
    parser.add_argument("--signals", action="store_true", help="also time each example with each feedback signal off, and with all off")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="with --signals: which of these, comma-separated: " + ", ".join(VARIANTS))
    parser.add_argument("--campaign", action="store_true", help="also run `evmstate fuzz --time 60s -n 1` per example and seed, signals on and off")
    parser.add_argument("--versus", action="store_true", help="instead of part 2: per example and seed, `evmstate run` at its defaults, then `evmstate fuzz -n 1` given the time run took; "
                        "--examples may name budget.py's machines too (depositer, erc20, ..., snekmate/erc20); with --backend revm on both backends; with --native, the campaigns with EVMSTATE_NATIVE=0")
    parser.add_argument("--backend", choices=["revm"], help="compare each example's time to report on revm against py-evm (same seeds, one run each)")
    parser.add_argument("--native", action="store_true", help="with --campaign: each campaign with evmstate's own loop (engine/native.py) and with Hypothesis drawing every run, one after the other; with --vault --find-only: run's budget searched by that loop")
    parser.add_argument("--fuzz", default="", help='[fuzz] lines for the examples\' project, e.g. "guidance = false"')
    parser.add_argument("--vault-backends", help="with --vault or --versus: the backends, comma-separated (pyevm,revm), over --backend's choice (one per process, to measure both at once)")
    parser.add_argument("--first-seed", type=int, default=0, help="with --vault: seeds from this one (--seeds of them)")
    parser.add_argument("--vault-find", metavar="ROOT:SEED", help=argparse.SUPPRESS)  # one search, for --vault --find-only
    parser.add_argument("--vault", nargs="?", const="a,b,c", metavar="BUGS", help="instead, the vault workload's planted bugs (default a,b,c: the medium ones; see vault_bugs.py), seeds found on each backend")
    args = parser.parse_args()
    if args.vault_find:
        root, seed, native = args.vault_find.rsplit(":", 2)
        vault_find(Path(root), int(seed), native == "1")
        return 0
    if args.vault:
        backends = tuple(args.vault_backends.split(",")) if args.vault_backends else ("pyevm", "revm") if args.backend else ("pyevm",)
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        with tempfile.TemporaryDirectory() as tmp:
            if args.find_only:
                vault_finds(args.vault.split(","), seeds, backends, Path(tmp), args.fuzz.replace("\\n", "\n"), args.native)
            else:
                vault_baseline(args.vault.split(","), seeds, backends, Path(tmp), args.fuzz.replace("\\n", "\n"))
        return 0
    if args.backend == "revm":
        import evmstate.evm.revm.backend  # noqa: F401  (loaded before any run: the same constants for both backends)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if args.backend == "revm" and not args.no_erc20:
            revm_feedback_cost(project(base / "revm-erc20"))
        elif not args.no_erc20:
            variants = {
                "guidance and dictionary on": ("", None),
                "the same, feedback signals off": ("", ""),
                "guidance only": ("dictionary_weight = 0", None),
                "dictionary only": ("guidance = false", None),
                "guidance and dictionary off": ("dictionary_weight = 0\nguidance = false", None),
            }
            roots = {}
            for i, (label, (lines, _)) in enumerate(variants.items()):
                roots[label] = project(base / f"v{i}")
                if lines:
                    with_fuzz(roots[label], lines)
            erc20_rate(roots["guidance and dictionary on"])  # compile and warm up
            rates: dict[str, list[float]] = {label: [] for label in variants}
            for _ in range(3):  # interleaved, so that a busy machine weighs on all alike
                for label, root in roots.items():
                    with signals(variants[label][1]):
                        rates[label].append(erc20_rate(root))
            medians = {label: statistics.median(r) for label, r in rates.items()}
            off = medians["guidance and dictionary off"]
            for label, rate in medians.items():
                print(f"ERC20 50x50, {label + ':':33} {rate:6.0f} steps/s (median of 3), {100 * (1 - rate / off):5.1f}% fewer than with both off")
            signals_cost = 100 * (1 - medians["guidance and dictionary on"] / medians["the same, feedback signals off"])
            print(f"the feedback signals cost {signals_cost:.1f}% of steps/s (target: at most 10%)")
            print("target: guidance and dictionary on costs at most 15% of steps/s")
        root = project(base / "examples")
        if args.fuzz:
            with_fuzz(root, args.fuzz.replace("\\n", "\n"))
        if args.find_only:
            toml = root / "evmstate.toml"
            toml.write_text(toml.read_text().replace("[hypothesis]", '[hypothesis]\nphases = ["explicit", "generate"]', 1))
        chosen = [e for e in args.examples.split(",") if e]
        examples = [e for e in chosen if e not in ACTOR_EXAMPLES + COMPARED_EXAMPLES]
        with_actors = [e for e in chosen if e in ACTOR_EXAMPLES]
        compared = [e for e in chosen if e in COMPARED_EXAMPLES]
        actors_root = project(base / "actors", REPO / "benchmarks" / "projects" / "actors")
        compared_root = project(base / "compared", REPO / "benchmarks" / "projects" / "compared")
        if args.find_only:
            for toml in (actors_root / "evmstate.toml", compared_root / "evmstate.toml"):
                toml.write_text(toml.read_text() + '\n[hypothesis]\nphases = ["explicit", "generate"]\n')
        if args.backend == "revm" and not args.versus:
            for where, names in ((root, examples), (actors_root, with_actors), (compared_root, compared)):
                if names:
                    backends_times(where, names, args.seeds)
        elif not args.no_times and not args.versus:
            examples_times(root, examples, args.seeds)
            examples_times(actors_root, with_actors, args.seeds, "[actors on] ")
            examples_times(compared_root, compared, args.seeds)
        if args.signals:
            for label, on in VARIANTS.items():
                if label not in args.variants.split(","):
                    continue
                if frozenset(on.split(",")) - {""} != DEFAULT:  # the default ran above
                    with signals(on):
                        examples_times(root, examples, args.seeds, f"[{label}] ")
        if args.versus:
            snekmate = [e.split("/", 1)[1] for e in chosen if e.startswith("snekmate/")]
            snekmate_root = project(base / "snekmate", REPO / "tests" / "projects" / "snekmate")
            where = {**dict.fromkeys(with_actors, (actors_root, "[actors on] ")), **dict.fromkeys(compared, (compared_root, "")),
                     **{f"snekmate/{e}": (snekmate_root, "snekmate/") for e in snekmate}}
            versus_table([(*where.get(e, (root, "")), [e.removeprefix("snekmate/")]) for e in chosen], args.seeds,
                         tuple(args.vault_backends.split(",")) if args.vault_backends else ("pyevm", "revm") if args.backend else ("pyevm",), "0" if args.native else None)
        if args.campaign:
            backends = ("pyevm", "revm") if args.backend else (None,)
            for example, where_root in [(e, root) for e in examples] + [(e, actors_root) for e in with_actors] + [(e, compared_root) for e in compared]:
                for label, on in (("default signals", None), ("signals off", ""))[: 2 if args.signals else 1]:
                    for backend in backends:
                        loops = {"own loop": "1", "Hypothesis's loop": "0"} if args.native else {"": None}
                        found, whens = dict.fromkeys(loops, 0), {loop: [] for loop in loops}
                        for seed in range(args.seeds):
                            for loop, native in loops.items():  # interleaved, so that a busy machine weighs on both alike
                                steps, printed, elapsed = campaign(where_root, example, seed, on, backend=backend, native=native)
                                found[loop] += printed is not None and printed <= 60
                                whens[loop].append(f"{printed:.0f}s ({steps} steps)" if printed is not None else f"not in {elapsed:.0f}s")
                        where = f" on {backend}" if backend else ""
                        for loop in loops:
                            shown = f", {loop}" if loop else ""
                            print(f"evmstate fuzz --time 60s -n 1, {example:9} {label}{where}{shown}: printed within 60s on {found[loop]}/{args.seeds} seeds: {', '.join(whens[loop])} (load {os.getloadavg()[0]:.2f})", flush=True)
        if args.guidance_vs_target:
            # the ladder three ways: the guided provider (above), Hypothesis's target() phase given
            # the rung as its score, and neither; within the ladder's 300 runs
            (root / "machines" / "ladder_target.py").write_text(LADDER_TARGET)
            (root / "machines" / "ladder_plain.py").write_text(LADDER_PLAIN)
            for example in ("ladder_target", "ladder_plain"):
                found, firsts = 0, []
                for seed in range(args.seeds):
                    reported, elapsed, first, steps, to_find, shrink_runs = report_time(root, example, seed)
                    found += reported
                    if reported:
                        firsts.append(first)
                print(f"{example:13} (guidance off) found in {found}/{args.seeds} seeds within 300 runs; first failure at runs {firsts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
