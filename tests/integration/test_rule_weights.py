"""Rule weights and limits: @rule(weight=, max_times=), settings' weights and max_times, and the rules
the search learns end a machine's progress, drawn rarely from then on."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import strategies as st

from evmstate import config as config_mod
from evmstate.engine.swarm import Endings, RuleDraw, slot_counts
from evmstate.errors import MachineDefinitionError
from evmstate.runner import Overrides, RunOptions, run
from evmstate.spec.machine import Param, RuleSpec, collect
from evmstate.spec.markers import rule
from tests.conftest import REPO, copy_project

# no contracts: the machine counts the calls of each rule, and fails when max_times is passed
WEIGHTED = """
import json
from pathlib import Path

from evmstate import StateMachine, rule

# each run's calls of each rule, a line a run
RUNS = Path(__file__).with_name("weighted_runs.jsonl")

class WeightedMachine(StateMachine):
    def setup(self):
        self.calls = {"often": 0, "seldom": 0}

    @rule(weight=9)
    def often(self):
        self.calls["often"] += 1

    @rule()
    def seldom(self):
        self.calls["seldom"] += 1

    def teardown(self):
        with RUNS.open("a") as f:
            f.write(json.dumps(self.calls) + "\\n")

class LimitedMachine:
    settings = {"max_times": {"rule_twice": 2}, "weights": {"rule_twice": 20}}

    def setup(self):
        self.twice = 0

    def rule_twice(self):
        self.twice += 1

    def rule_other(self):
        pass

    def invariant_at_most_twice(self):
        assert self.twice <= 2
"""


def run_source(tmp_path: Path, source: str, **overrides):
    (tmp_path / "machines").mkdir(exist_ok=True)
    (tmp_path / "machines" / "m.py").write_text(textwrap.dedent(source))
    (tmp_path / "evmstate.toml").write_text("")
    summary = run(config_mod.load(tmp_path), RunOptions(overrides=Overrides(seed=3, **overrides), save_failures=False), lambda e: None)
    return {r.name: r for r in summary.results}


@pytest.fixture(scope="module")
def weighted_root(tmp_path_factory):
    return tmp_path_factory.mktemp("weights")


@pytest.fixture(scope="module")
def weighted(weighted_root):
    return run_source(weighted_root, WEIGHTED, max_examples=12, stateful_step_count=20)


def test_a_weight_draws_its_rule_that_many_times_as_often(weighted, weighted_root):
    rules = weighted["WeightedMachine"].rules
    assert weighted["WeightedMachine"].status == "passed"
    assert rules["often"].calls > 0 and rules["seldom"].calls > 0
    assert weighted["WeightedMachine"].statistics["rule weights"] == "often 9"
    # 9 to 1 by weight among the rules a run draws from: swarm testing leaves one of the two out of some runs (there
    # the other takes every step, which moves the whole search's totals by seed), so the runs that called both count
    runs = [json.loads(line) for line in (weighted_root / "machines" / "weighted_runs.jsonl").read_text().splitlines()]
    both = [r for r in runs if r["often"] and r["seldom"]]
    often, seldom = sum(r["often"] for r in both), sum(r["seldom"] for r in both)
    assert len(both) >= 3 and often > 4 * seldom, (len(runs), both)


def test_max_times_caps_a_rule_per_run_and_the_settings_give_both_to_convention_rules(weighted):
    result = weighted["LimitedMachine"]
    assert result.status == "passed", result.failure
    # weight 20 against 1: without its limit it would be most of every run's steps
    assert 0 < result.rules["rule_twice"].calls <= 2 * result.runs
    assert result.rules["rule_other"].calls > result.rules["rule_twice"].calls


def test_without_weights_every_rule_holds_one_slot_so_a_step_draws_as_before():
    rules = [RuleSpec(n, lambda self: None, [Param("x", st.none())]) for n in ("a", "b", "c")]
    assert slot_counts(rules) == [1, 1, 1]
    assert RuleDraw(rules, 50).slots == [0, 1, 2]
    rules[0].weight, rules[1].weight = 3, 0.5
    assert slot_counts(rules) == [85, 14, 28]  # not whole numbers: shares of 128 slots
    rules[0].weight = 2
    rules[1].weight = 1
    assert slot_counts(rules) == [2, 1, 1]


@pytest.mark.parametrize(
    "body, message",
    [
        ("@rule(weight=0)\n    def a(self): pass", "a weight must be a positive number"),
        ("@rule(max_times=0.5)\n    def a(self): pass", "max_times must be a positive whole number"),
        ('settings = {"weights": {"rule_shutdwn": 0.1}}\n    def rule_shutdown(self): pass', "Did you mean 'rule_shutdown'?"),
        ('settings = {"max_times": ["rule_a"]}\n    def rule_a(self): pass', "must be a dict of rule names"),
    ],
)
def test_a_bad_weight_or_limit_is_an_error_when_the_machine_loads(body, message):
    namespace = {"rule": rule}
    with pytest.raises(MachineDefinitionError, match=message):
        exec(textwrap.dedent(f"class M:\n    {body}\n"), namespace)  # @rule(...) checks its options
        collect(namespace["M"])  # the settings are read with the machine


def test_an_initializer_takes_no_weight():
    from evmstate import initialize

    with pytest.raises(MachineDefinitionError, match="takes no weight"):
        initialize(weight=2)


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    """benchmarks/rule_weights.py's shop, whose shutdown ends every later call, without the invariant its planted bug breaks."""
    root = copy_project(REPO / "benchmarks" / "projects" / "shutdown", tmp_path_factory.mktemp("shutdown-project"))
    machine = root / "machines" / "shop.py"
    machine.write_text(machine.read_text().replace("def invariant_rebates_paid_once(", "def rebates_paid_once("))
    return root


# the shop searched in a fresh process: Hypothesis draws some values from the constants of every local module the
# process has loaded, so in a test process the search would depend on which tests ran there before
SHOP_SEARCH = """
import json, sys
from pathlib import Path
from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run
shop = Path(sys.argv[1])
summary = run(config_mod.load(shop), RunOptions((str(shop / "machines" / "shop.py"),), overrides=Overrides(seed=1, max_examples=12, stateful_step_count=20), save_failures=False), lambda e: None)
(result,) = summary.results
print(json.dumps({"status": result.status, "learned": result.statistics.get("rules drawn rarely"), "calls": {name: s.calls for name, s in result.rules.items()}}))
"""


@pytest.mark.processes
def test_a_rule_after_which_everything_reverts_is_learned_and_drawn_rarely(shop):
    from .. import zygote

    done = zygote.run([sys.executable, "-c", SHOP_SEARCH, str(shop)], cwd=shop)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == "passed"
    assert result["learned"].startswith("rule_shutdown (learned at run "), result["learned"]
    # about once in four runs from then on: drawn uniformly it would be a third of the steps
    calls = result["calls"]
    assert calls["rule_shutdown"] < sum(calls.values()) / 5, calls


def test_only_the_other_rules_reverting_after_a_rule_make_it_one_that_ends_progress():
    rules = [RuleSpec(n, lambda self: None, []) for n in ("open", "send")]
    # an inbox each of three accounts opens once: its own repeats revert, sends go on as before
    inbox = Endings(rules)
    for _ in range(5):
        inbox.learn([("send", 1, 0), ("open", 1, 0)] + [("open", 1, int(i % 3 != 0)) if i % 2 else ("send", 1, 0) for i in range(20)])
    assert inbox.rare == frozenset()
    # a shutdown: every send after it reverts
    shop = Endings(rules)
    for _ in range(5):
        shop.learn([("send", 1, 0)] * 3 + [("open", 1, 0)] + [("send", 1, 1)] * 10)
    assert shop.rare == {"open"} and shop.learned == {"open": 3}



def test_a_close_is_learned_and_not_a_bump_that_came_after_it():
    rules = [RuleSpec(n, lambda self: None, []) for n in ("buy", "bump", "close")]
    sale = Endings(rules)
    # the close first, then a bump (a counter that always goes through): the buys and the close's own repeats after
    # the bump revert, but the close is what they follow
    close_first = [("buy", 1, 0)] * 3 + [("close", 1, 0), ("bump", 1, 0)] + [("buy", 1, 1), ("close", 1, 1)] * 10
    close_first += [("buy", 1, 1)] * 10 + [("bump", 1, 0)]
    # the bump first: buys and the close go through after it
    bump_first = [("bump", 1, 0)] + [("buy", 1, 0)] * 5 + [("close", 1, 0)] + [("buy", 1, 1)] * 20 + [("bump", 1, 0)]
    for steps in (close_first, close_first, close_first, bump_first, close_first, bump_first):
        sale.learn(steps)
        assert "bump" not in sale.rare
    assert sale.rare == {"close"} and sale.learned == {"close": 3}
    assert sale.why("close") == ("close (learned at run 3: after its first call that changed the state, 120 of the other "
                                 "rules' 130 transactions reverted, 0% before it)"), sale.why("close")
    # none of the reverts after the bump is its: the buys follow the close, the close's repeats the close itself
    assert "bump" not in sale.blamed and sale.counted("bump").reverted == 0

def vault_run(shut: bool, knob_first: bool, steps: int = 40) -> list[tuple[str, int, int]]:
    """A run of a vault-like machine: deposits go through (one in five reverts: an amount above the wallet), knobs
    always; with shut, a shutdown first, after which every deposit reverts and the knobs go on."""
    run = [("shutdown", 1, 0)] if shut else []
    for i in range(steps):
        run.append(("knob", 1, 0) if i % 2 == knob_first else ("deposit", 1, int(shut or i % 10 == 4)))
    return run


def test_a_rule_that_closes_another_for_good_is_learned_with_closing_on():
    rules = [RuleSpec(n, lambda self: None, []) for n in ("deposit", "knob", "shutdown")]
    learned = {}
    for closing in (False, True):
        vault = Endings(rules, closing=closing)
        for n in range(8):
            vault.learn(vault_run(shut=n % 2 == 0, knob_first=n % 4 > 1))
        learned[closing] = vault
    # the knobs go through after it: half the other rules' transactions revert, below SHARE, so the share alone misses it
    assert learned[False].rare == frozenset()
    vault = learned[True]
    assert vault.rare == {"shutdown"}, vault.rare
    # learned once deposits had gone through in three runs without it, and reverted in three after it; not the knob,
    # though in runs with the shutdown every deposit after the knob's first call reverted too: in runs without it, the
    # deposits after the knob went through
    assert vault.why("shutdown") == ("shutdown (learned at run 6: after its first call that changed the state, all 80 of "
                                     "deposit's first tries reverted, 0% before it)"), vault.why("shutdown")


def test_a_rule_that_goes_through_once_a_run_is_not_taken_for_one_closed_by_another():
    rules = [RuleSpec(n, lambda self: None, []) for n in ("claim", "knob")]
    claims = Endings(rules, closing=True)
    # each account claims once: the first claim of a run goes through, every later one reverts, whatever came between
    for n in range(8):
        knob_first = [("knob", 1, 0)] if n % 2 else []
        claims.learn(knob_first + [("claim", 1, 0)] + [("knob", 1, 0) if i % 2 else ("claim", 1, 1) for i in range(30)])
    assert claims.closed("knob") is None and claims.closed("claim") is None
    # a rule that sometimes goes through after it is not closed either
    shop = Endings([RuleSpec(n, lambda self: None, []) for n in ("buy", "pause")], closing=True)
    for n in range(8):
        # with the pause, buys revert until one goes through (an unpause the machine does not show); without it, at once
        shop.learn([("pause", 1, 0)] + [("buy", 1, int(i < n)) for i in range(20)] if n % 2 else [("buy", 1, 0)] * 20)
    assert shop.closed("pause") is None
    assert shop.fresh_after["pause", "buy"].reverted == 1 + 3 + 5 + 7 and shop.opened_runs["pause", "buy"] == 4


# the shop of benchmarks/projects/shutdown, without its shutdown: refund always asks for one unit more than was sold
REFUNDS = """
from evmstate import TransactionReverted, strategy


class RefundMachine:
    n = strategy("uint8")

    def __init__(cls, Shop):
        cls.shop = Shop.deploy()

    def rule_buy(self, n):
        self.shop.buy(n)

    def rule_restock(self, n):
        try:
            self.shop.restock(n)
        except TransactionReverted:
            assert n > self.shop.sold()

    def rule_refund(self):
        try:
            self.shop.restock(self.shop.sold() + 1)
        except TransactionReverted:
            pass
"""


@pytest.fixture(scope="module")
def refunds(tmp_path_factory) -> Path:
    root = copy_project(REPO / "benchmarks" / "projects" / "shutdown", tmp_path_factory.mktemp("refunds-project"))
    (root / "machines" / "shop.py").unlink()
    (root / "machines" / "refunds.py").write_text(textwrap.dedent(REFUNDS))
    return root


REFUND_SEARCH = """
import json, sys
from pathlib import Path
from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run
root = Path(sys.argv[1])
summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "refunds.py"),), overrides=Overrides(seed=2, max_examples=30, stateful_step_count=30), save_failures=False), lambda e: None)
(result,) = summary.results
print(json.dumps({"status": result.status, "rules": {name: (s.calls, s.transactions_reverted) for name, s in result.rules.items()}}))
"""


def refund_calls(root: Path, streaks: bool) -> dict[str, list[int]]:
    """Each rule's calls and reverted transactions in a search of the refunds machine, in a process of its own: what
    Hypothesis draws depends on the constants of the modules the process loaded (in a test worker, other tests')."""
    import os

    from evmstate.config import FEEDBACK_VARIABLE

    from .. import zygote

    env = {**os.environ, FEEDBACK_VARIABLE: "storage,cmplog,streaks" if streaks else "storage,cmplog"}
    done = zygote.run([sys.executable, "-c", REFUND_SEARCH, str(root)], cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == "passed", result
    return result["rules"]


@pytest.mark.processes
def test_a_rule_whose_latest_calls_all_reverted_is_drawn_less_in_that_run(refunds):
    on, off = refund_calls(refunds, True), refund_calls(refunds, False)
    # every refund reverts: drawn a third of the steps without streaks (299 of 900), with them kept at odds of 1/2,
    # 1/4, then 1/8 after its reverts (148: its first three calls of each run come at full odds). Each search in a
    # process of its own: in a test worker that had loaded other tests' modules the counts were 91 with streaks and
    # 119 without
    assert on["rule_refund"][1] == on["rule_refund"][0] and off["rule_refund"][1] == off["rule_refund"][0]
    assert on["rule_refund"][0] < 0.75 * off["rule_refund"][0], (on, off)
    # the steps it leaves go to the others, whose calls go through
    assert on["rule_buy"][0] > off["rule_buy"][0], (on, off)


def test_a_stale_rule_is_kept_at_halving_odds_down_to_a_floor_and_a_rare_rule_as_before():
    import random

    from evmstate.engine.swarm import STALE_FLOOR, Avoid

    rules = [RuleSpec(n, lambda self: None, []) for n in ("a", "b", "c")]
    slot = {"min_value": 0, "max_value": 2}
    rnd = random.Random(0)
    for streak, odds in ((1, 0.5), (2, 0.25), (5, STALE_FLOOR)):
        avoid = Avoid([0, 1, 2], rules, frozenset(), 50, {"a": streak, "b": 0})
        kept = sum(avoid(slot, 0, rnd) == 0 for _ in range(4000)) / 4000
        assert abs(kept - odds) < 0.03, (streak, kept)
        # a draw of another rule, or another choice than the rule's slot, is left as it is
        assert all(avoid(slot, k, rnd) == k for k in (1, 2)) and avoid({"min_value": 0, "max_value": 9}, 0, rnd) == 0
    # every rule stale: nowhere to move to
    assert Avoid([0, 1, 2], rules, frozenset(), 50, {"a": 3, "b": 3, "c": 3})(slot, 0, rnd) == 0
    # a rule learned to end progress, the others stale after it (they all revert once it ran): it stays rare, and a
    # draw of a stale one is moved among the stale ones, never to it
    after_end = Avoid([0, 1, 2], rules, frozenset({"c"}), 50, {"a": 3, "b": 3})
    drawn = [after_end(slot, k, rnd) for k in (0, 1, 2) for _ in range(2000)]
    assert drawn.count(2) < 2000 * 0.05 and drawn.count(0) > 2000 and drawn.count(1) > 2000, [drawn.count(k) for k in (0, 1, 2)]
