"""A campaign's first shard of a machine searches as `evmstate run --seed` does: the same seed, Hypothesis's loop, so
that what `run` finds in its first runs a campaign finds as soon; the later shards draw in evmstate's own loop."""

from __future__ import annotations

from pathlib import Path

from evmstate import config as config_mod
from evmstate.engine.item import RunRequest, run_item
from evmstate.runner import Overrides
from evmstate.scale.pool import ProjectSource
from evmstate.scale.shards import Shard, run_shard

from ..conftest import copy_example

KEY = "machines/staking.py::StakingMachine"
SEED = 3  # `evmstate run --seed 3` finds the staking pool's bug at its second example


def test_the_first_shard_finds_what_run_finds_at_the_same_run_and_the_next_shard_draws_in_the_own_loop(tmp_path: Path):
    root = copy_example(tmp_path / "example")
    cfg = config_mod.load(root).replace(backend=config_mod.BackendConfig(name="pyevm"))
    state = ProjectSource(cfg, (str(root / "machines" / "staking.py"),)).open()
    shard = run_shard(state, Shard(KEY, 0, SEED, Overrides(), None)).result
    alone = run_item(state.config, state.project, state.items[KEY], RunRequest(seed=SEED, examples=False), lambda e: None)
    assert alone.status == shard.status == "failed"
    assert shard.statistics["first failure at run"] == alone.statistics["first failure at run"], (shard.statistics, alone.statistics)
    assert shard.failure.program == alone.failure.program
    assert shard.statistics["evmstate's own loop"].startswith("off: a machine's first shard searches as `evmstate run")
    later = run_shard(state, Shard(KEY, 1, SEED, Overrides(max_examples=3), None)).result
    assert not later.statistics["evmstate's own loop"].startswith("off"), later.statistics


def test_the_first_shard_makes_all_of_run_s_examples_before_the_own_loop_takes_over(tmp_path: Path):
    # a machine that passes: the first shard makes every example run makes (the project's 50, here 24 of 5 steps), not
    # fewer, so that a campaign finds whatever run finds with the same seed, at any example
    root = copy_example(tmp_path / "example")
    cfg = config_mod.load(root).replace(backend=config_mod.BackendConfig(name="pyevm"))
    key = "machines/erc20.py::ERC20Machine"
    state = ProjectSource(cfg, (str(root / "machines" / "erc20.py"),)).open()
    overrides = Overrides(max_examples=24, stateful_step_count=5)
    shard = run_shard(state, Shard(key, 0, SEED, overrides, None)).result
    alone = run_item(state.config, state.project, state.items[key], RunRequest(seed=SEED, overrides=overrides, examples=False), lambda e: None)
    assert alone.status == shard.status == "passed", (alone.status, shard.status)
    assert shard.examples == alone.examples == 24, (shard.examples, alone.examples)
    assert shard.steps == alone.steps, (shard.steps, alone.steps)
