"""Many runs, and every shrink attempt: each starts from the same chain (setup checks it, every run)."""

import pytest

from .conftest import FASTEST, run_project

pytestmark = pytest.mark.quality

MACHINE = '''
from evmstate import strategy

SEEN = {{"runs": 0, "leaks": 0}}


class LeakProbe:
    amount = strategy("uint256", max_value=1000)
    who = strategy("address")
    fail = {fail}

    def __init__(cls, accounts, chain, Token):
        cls.accounts, cls.chain = accounts, chain
        cls.token = Token.deploy("T", "T", 18, 10**6, {{"from": accounts[0]}})
        cls.start = (chain.time(), chain.height, accounts[1].balance(), accounts[0].nonce)

    def setup(self):
        SEEN["runs"] += 1
        now = (self.chain.time(), self.chain.height, self.accounts[1].balance(), self.accounts[0].nonce)
        if now != self.start or self.token.balanceOf(self.accounts[0]) != 10**6:
            SEEN["leaks"] += 1
            raise RuntimeError(f"state leaked into a new run: {{now}} != {{self.start}}")
        self.sent = 0

    def rule_send(self, who, amount):
        self.token.transfer(who, amount, {{"from": self.accounts[0]}})
        self.accounts[0].transfer(self.accounts[1], 1)
        self.chain.sleep(13)
        self.chain.mine()
        self.sent += amount

    def invariant_planted(self):
        assert not (self.fail and self.sent > 1500), "planted failure"
'''


def _write(example, fail: bool):
    (example / "machines" / "probe.py").write_text(MACHINE.format(fail=fail))


def test_three_thousand_steps_over_sixty_runs_without_leaks(example):
    _write(example, fail=False)
    # on revm (py-evm's 3,000 steps cost three times the CPU): the test below runs py-evm's runs and shrink replays
    summary, _ = run_project(example, "machines/probe.py", max_examples=60, stateful_step_count=50, backend=FASTEST)
    (result,) = summary.results
    assert result.status == "passed", result.failure
    assert result.steps >= 3_000 and result.examples >= 60


def test_nothing_leaks_after_a_failing_run_or_while_shrinking(example):
    _write(example, fail=True)
    summary, _ = run_project(example, "machines/probe.py", max_examples=100)
    (result,) = summary.results
    assert result.status == "failed"
    # a leak would surface as the RuntimeError from setup (or as Hypothesis's Flaky), not this
    assert result.failure.message == "planted failure"
    # shrinking replayed many programs, from the chain after __init__ or from checkpoints taken in it
    assert result.failure.shrink.replays > 20, "shrinking replayed many programs after the first failure"
