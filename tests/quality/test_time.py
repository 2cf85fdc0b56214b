"""A bug that needs time to pass between two calls: the bundled staking pool keeps paying its
week's reward after the week is over. No rule of the machine moves the clock: the waits drawn
before each step find it, with the default settings, and the reported program is the minimal
one, its wait shrunk to the first second past the week."""

import json
import subprocess
import sys

import pytest

from evmstate import config as config_mod
from evmstate.engine.replay import replay
from evmstate.failures import FailureStore

from ..conftest import copy_example

pytestmark = pytest.mark.slow

# as evmstate run would: a fresh process (Hypothesis draws constants from the modules loaded)
SEARCH = """
import json, sys
from pathlib import Path
from evmstate import config
from evmstate.runner import Overrides, RunOptions, run

root = Path(sys.argv[1])
summary = run(config.load(root), RunOptions((str(root / "machines" / "staking.py"),), overrides=Overrides(seed=0)), lambda e: None)
(r,) = summary.results
f = r.failure
print(json.dumps({"status": r.status, "program": f and f.program, "message": f and f.message, "steps_data": f and f.steps_data, "id": r.failure_id}))
"""

MINIMAL = [
    "state = StakingMachine()",
    "state.rule_fund()",
    "state.rule_stake(staker=accounts[0], amount=1)",
    "chain.sleep(604801)",
    # the wait comes before a step: the simplest that leaves the pool as it is (a claim by an
    # account that staked nothing); the invariant then finds the pool owing more than it holds
    "state.rule_claim(staker=accounts[1])",
]


def test_a_week_and_a_second_after_a_stake_the_pool_cannot_pay(tmp_path):
    root = copy_example(tmp_path)
    done = subprocess.run([sys.executable, "-c", SEARCH, str(root)], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["status"] == "failed"
    assert found["program"] == MINIMAL, found["program"]
    assert found["message"] == "the pool owes more than it holds"
    assert found["steps_data"][2]["sleep"] == 604801 and "mine" not in found["steps_data"][2]
    # the saved failure replays its wait, and fails the same way
    cfg = config_mod.load(root)
    record = FailureStore.of(cfg).load(found["id"])
    lines = []
    assert replay(cfg, record, lambda step: lines.append(step.line)).verdict == "still fails"
    assert lines[-1] == "chain.sleep(604801)\nstate.rule_claim(staker=accounts[1])"
