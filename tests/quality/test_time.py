"""A bug that needs time to pass between two calls: the bundled staking pool keeps paying its
week's reward after the week is over. No rule of the machine moves the clock: the waits drawn
before each step find it, with the default settings, and the reported program is the minimal
one, its wait shrunk to the first second past the week."""

import pytest

from evmstate import config as config_mod
from evmstate.engine.replay import replay
from evmstate.failures import FailureStore

from ..conftest import copy_example
from .conftest import search

pytestmark = pytest.mark.quality

PREFIX = ["state = StakingMachine()", "state.rule_fund()", "state.rule_stake(staker=accounts[0], amount=1)"]
# The wait comes before a step, and three last steps are minimal: a claim by an account that staked
# nothing, or a second stake of 1 by the staker, leaves the pool as it is, and the invariant finds it
# owing more than it holds a week and a second on; or a second fund, after which it owes more than
# both funds only two weeks and a second on (the reward accrued past the period, twice over). Which
# one a seed meets first is the search's; each is reported with the least wait that fails.
MINIMAL = {
    "state.rule_claim(staker=accounts[1])": 604801,
    "state.rule_stake(staker=accounts[0], amount=1)": 604801,
    "state.rule_fund()": 1209601,
}


def test_a_week_and_a_second_after_a_stake_the_pool_cannot_pay(tmp_path):
    root = copy_example(tmp_path)
    (found,) = search(root, "machines/staking.py", [0])  # as evmstate run would: in a fresh process
    assert found["status"] == "failed"
    last = found["program"][-1]
    wait = MINIMAL.get(last)
    assert found["program"] == [*PREFIX, f"chain.sleep({wait})", last], found["program"]
    assert found["message"] == "the pool owes more than it holds"
    assert found["recorded"][2]["sleep"] == wait and "mine" not in found["recorded"][2]
    # the saved failure replays its wait, and fails the same way
    cfg = config_mod.load(root)
    record = FailureStore.of(cfg).load(found["id"])
    lines = []
    assert replay(cfg, record, lambda step: lines.append(step.line)).verdict == "still fails"
    # its wait's line says when the step ran: the chain's first block and time (1700000001) plus the wait
    wait_line, step_line = lines[-1].split("\n")
    assert wait_line.startswith(f"chain.sleep({wait})  # now block 1, time {1_700_000_001 + wait} (") and step_line == last, lines[-1]
