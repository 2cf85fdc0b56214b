"""Swarm testing: each run leaves out some rules (never all), shrinking enables them again, --seed repeats it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import find
from hypothesis import strategies as st

from evmstate import config as config_mod
from evmstate.engine.swarm import SWARM_LEVELS, left_out, rule_order, swarm_strategy
from evmstate.spec.machine import Param, RuleSpec
from evmstate.runner import Overrides, RunOptions, run

# three rules, no contracts: each run records the rules it called
MACHINE = """
RUNS = []

class Three:
    def setup(self):
        RUNS.append(set())

    def rule_a(self):
        RUNS[-1].add("a")

    def rule_b(self):
        RUNS[-1].add("b")

    def rule_c(self):
        RUNS[-1].add("c")
"""

# fails once rule a ran three times: a program that needs no rule left out
FAILING = """
class Count:
    def setup(self):
        self.a = 0

    def rule_a(self):
        self.a += 1

    def rule_b(self):
        pass

    def rule_c(self):
        pass

    def invariant(self):
        assert self.a < 3
"""


def rule(name: str, params: int = 0, targets: tuple = ()) -> RuleSpec:
    return RuleSpec(name, lambda self: None, [Param(f"p{i}", st.none()) for i in range(params)], targets)


def run_machine(tmp_path: Path, source: str, seed: int, **overrides):
    (tmp_path / "machines").mkdir(exist_ok=True)
    (tmp_path / "machines" / "m.py").write_text(textwrap.dedent(source))
    (tmp_path / "evmstate.toml").write_text("")
    summary = run(config_mod.load(tmp_path), RunOptions(overrides=Overrides(seed=seed, **overrides), save_failures=False), lambda e: None)
    (result,) = summary.results
    return result


def called(tmp_path: Path, seed: int) -> list[frozenset[str]]:
    import sys

    run_machine(tmp_path, MACHINE, seed, max_examples=30, stateful_step_count=20)
    module = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(tmp_path / "machines" / "m.py"))
    return [frozenset(r) for r in module.RUNS]


def test_rules_are_sampled_in_hypothesis_order():
    rules = [rule("zeta", 2), rule("alpha", 3), rule("mid", 1), rule("made", 0, ()), rule("beta", 1)]
    assert [r.name for r in rule_order(rules)] == ["made", "beta", "mid", "zeta", "alpha"]


def test_a_swarm_never_leaves_out_every_rule_and_its_smallest_choices_leave_out_none():
    names = ["a", "b", "c"]
    top = SWARM_LEVELS - 1
    assert left_out(top, [top, top, top], names) == {"a", "b"}
    assert left_out(0, [top, top, top], names) == frozenset()  # level 0: every rule enabled
    assert left_out(top, [0, 0, 0], names) == frozenset()  # each choice at its smallest: enabled
    assert left_out(128, [0, 200, 126, ], names) == {"b"}


def test_shrinking_a_swarm_goes_toward_every_rule_enabled():
    order = rule_order([rule("a"), rule("b"), rule("c")])
    assert find(swarm_strategy(order), lambda out: True) == frozenset()
    # the smallest swarm that leaves out b leaves out nothing else
    assert find(swarm_strategy(order), lambda out: "b" in out) == {"b"}


def test_runs_leave_out_rules_and_the_seed_repeats_them(tmp_path):
    runs = called(tmp_path, seed=3)
    assert len(runs) >= 30
    # 20 steps over 3 rules drawn alike leave one out by chance in 1 run of 1,000; swarms do it often
    partial = [r for r in runs if len(r) < 3]
    assert len(partial) >= 5, runs
    assert all(r for r in runs)  # never every rule left out
    again = tmp_path / "again"
    again.mkdir()
    assert called(again, seed=3) == runs


def test_a_machine_with_one_rule_draws_no_swarm():
    order = rule_order([rule("only")])
    assert find(swarm_strategy(order), lambda out: True) == frozenset()


def test_swarms_leave_shrinking_its_shortest_program(tmp_path):
    result = run_machine(tmp_path, FAILING, seed=1, max_examples=50, stateful_step_count=10)
    assert result.status == "failed"
    assert result.failure.program == ["state = Count()", "state.rule_a()", "state.rule_a()", "state.rule_a()"]
