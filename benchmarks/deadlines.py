"""Deadlines against the waits drawn between steps: which are found, in how many runs, under each way of drawing.

Shapes: a day (docs/configuration.md's DeadlineMachine: an invariant that fails once a day has
passed), the staking pool's week (machines/staking.py: more than seven days after a stake), and a
vesting grant's cliff at 30 and 365 days (machines/vesting.py: a release after the cliff). Ways:
- "a week, uniform": one step in four waits a Hypothesis integer draw up to a week (the earlier default),
- "log scale, cap C": an octave, then a value in it, up to C (a year, four years, ten years),
- "log scale + jumps, cap C": the same, and half the waits jump to a time the contract compared
  block.timestamp with or stored (or one past it, or one before it): the default, with C four years.
Each with `evmstate run`'s defaults otherwise (50 runs of 50 steps), seeds 0..N-1, on py-evm.

Run: python benchmarks/deadlines.py [--seeds N] [--ways TEXT,...]    (--ways: only the ways whose name holds one of them)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from evmstate import config as config_mod
from evmstate.engine import delays
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parent.parent
YEAR = 365 * 86400

DAY = """
class DeadlineMachine:
    def __init__(cls, chain):
        cls.chain = chain

    def setup(self):
        self.opened = self.chain.time()

    def rule_poke(self):
        pass

    def invariant_open_for_a_day(self):
        assert self.chain.time() - self.opened < 86400, "the day is over"
"""

MONTH = """
import sys, os
sys.path.insert(0, os.path.dirname(__file__))
from vesting import VestingMachine


class MonthCliffMachine(VestingMachine):
    cliff = 30 * 86400
"""

SHAPES = {"a day": "day.py", "a week (staking)": "staking.py", "a 30-day cliff": "month_cliff.py", "a 365-day cliff": "vesting.py"}

real_draw_delay = delays.draw_delay


def uniform_week(draw, max_seconds, max_blocks, clock=(0, 0), known=((), ())):
    """The earlier draw: one step in four waits a plain integer draw up to a week (and a week of blocks)."""
    if draw(st.integers(0, delays.WAITS - 1)) < delays.WAITS - 1:
        return delays.NO_DELAY
    return draw(st.integers(0, 604_800)), draw(st.integers(0, 50_400))


def no_jumps(draw, max_seconds, max_blocks, clock=(0, 0), known=((), ())):
    return real_draw_delay(draw, max_seconds, max_blocks, clock, ((), ()))


WAYS = {
    "a week, uniform": (uniform_week, None),
    "log scale, cap 1 year": (no_jumps, YEAR),
    "log scale, cap 4 years": (no_jumps, 4 * YEAR),
    "log scale + jumps, cap 1 year": (real_draw_delay, YEAR),
    "log scale + jumps, cap 4 years (default)": (real_draw_delay, 4 * YEAR),
    "log scale + jumps, cap 10 years": (real_draw_delay, 10 * YEAR),
}


def project(tmp: Path) -> Path:
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, tmp / name)
    (tmp / "evmstate.toml").write_text((REPO / "evmstate.toml").read_text())
    (tmp / "machines" / "day.py").write_text(DAY)
    (tmp / "machines" / "month_cliff.py").write_text(MONTH)
    return tmp


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--ways", default="", help="only the ways whose name holds one of these texts (comma-separated)")
    args = parser.parse_args()
    wanted = [w for w in args.ways.split(",") if w]
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        for way, (draw, cap) in WAYS.items():
            if wanted and not any(w in way for w in wanted):
                continue
            delays.draw_delay = draw  # type: ignore[attr-defined]
            cfg = config_mod.load(root)
            if cap is not None:
                cfg = cfg.replace(fuzz=cfg.fuzz.__class__(**{**cfg.fuzz.__dict__, "max_time_delay": cap, "max_block_delay": cap // 12}))
            for shape, file in SHAPES.items():
                firsts = []
                for seed in range(args.seeds):
                    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
                    summary = run(cfg, RunOptions((str(root / "machines" / file),), overrides=Overrides(seed=seed), save_failures=False), lambda e: None)
                    result = summary.results[-1]
                    firsts.append(result.statistics.get("first failure at run") if result.failure else None)
                found = [f for f in firsts if f is not None]
                median = f", median run {statistics.median(found):g}" if found else ""
                print(f"{way:42} {shape:17} found on {len(found)}/{args.seeds} seeds{median} (first failure at runs {firsts})", flush=True)
        delays.draw_delay = real_draw_delay  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    sys.exit(main())
