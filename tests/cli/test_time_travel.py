"""The clock goes back only inside a scope that undoes it; an error in an invariant names the invariant."""

from __future__ import annotations

import json

import pytest

from ..conftest import BACKENDS
from .helpers import invoke

CLOCK = """\
# pragma version ~=0.4.3
@external
@view
def now() -> uint256:
    return block.timestamp


@external
@view
def height() -> uint256:
    return block.number
"""

# snekmate's statefulFuzzExecutingNotReadyProposal warps to an earlier time inside the check
BACK_IN_AN_ANCHOR = '''
class Clock:
    def __init__(cls, chain, Clock):
        cls.chain = chain
        cls.clock = Clock.deploy()

    def rule_wait(self):
        self.chain.sleep(100)
        self.chain.mine()

    def invariant_earlier(self):
        now, height = self.chain.time(), self.chain.height
        assert self.clock.now() == now and self.clock.height() == height
        with self.chain.anchor():
            self.chain.warp(now - 1000)
            self.chain.roll(height - 1)
            assert self.clock.now() == now - 1000, "the contract sees the earlier time"
            assert self.clock.height() == height - 1
            self.chain.sleep(-1)
            assert self.clock.now() == now - 1001
        assert self.clock.now() == now and self.clock.height() == height
        sid = self.chain.snapshot()
        self.chain.mine(timestamp=now - 5)
        assert self.clock.now() == now - 5
        self.chain.revert(sid)
        assert self.clock.now() == now
'''

BACK_OUTSIDE = '''
class Clock:
    def __init__(cls, chain, Clock):
        cls.chain = chain
        cls.clock = Clock.deploy()

    def rule_wait(self):
        self.chain.sleep(100)

    def invariant_back(self):
        self.chain.mine(timestamp=self.chain.time() - 1)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_invariant_sets_the_clock_earlier_inside_a_scope_that_undoes_it(example, backend):
    (example / "contracts" / "Clock.vy").write_text(CLOCK)
    (example / "machines" / "clock.py").write_text(BACK_IN_AN_ANCHOR)
    # 5 runs of 10 steps (not the project's 50): every check of the invariant goes back and forward alike, after 0 to 9 waits
    code, out = invoke("run", "machines/clock.py", "--seed", "1", "--max-examples", "5", "--steps", "10", "--backend", backend)
    assert code == 0, out


@pytest.mark.parametrize("backend", BACKENDS)
def test_outside_a_scope_the_clock_going_back_is_an_error_naming_the_invariant(example, backend):
    (example / "contracts" / "Clock.vy").write_text(CLOCK)
    (example / "machines" / "clock.py").write_text(BACK_OUTSIDE)
    code, out = invoke("run", "machines/clock.py", "--seed", "1", "--max-examples", "5", "--backend", backend)
    assert code == 2, out
    assert "ERROR machines/clock.py::Clock" in out
    assert "Clock.invariant_back raised UsageError: chain.mine(timestamp=" in out
    assert "outside a scope that undoes it. Inside `with chain.anchor():`" in out
    assert "rule_wait raised" not in out


FEED = """\
# pragma version ~=0.4.3
updated_at: public(uint256)
answer: public(uint256)


@deploy
def __init__():
    self.updated_at = block.timestamp
    self.answer = 2000


@external
@view
def price() -> uint256:
    assert block.timestamp <= self.updated_at + 10800, "stale price"
    return self.answer
"""

# a moccasin test ported as it is: the price feed is refreshed off-chain, and boa's clock stands still
STALE = '''
from evmstate import strategy


class Engine:
    amount = strategy("uint256", max_value=1000)

    def __init__(cls, accounts, Feed):
        cls.feed = Feed.deploy()

    def setup(self):
        self.total = 0

    def rule_mint(self, amount):
        self.total += amount

    def invariant_collateral(self):
        assert self.total * self.feed.price() >= 0
'''


def test_a_revert_in_an_invariant_after_a_wait_says_the_clock_may_be_the_cause(example):
    (example / "contracts" / "Feed.vy").write_text(FEED)
    (example / "machines" / "engine.py").write_text(STALE)
    code, out = invoke("run", "machines/engine.py", "--seed", "1", "--json", "found.json")
    assert code == 1, out
    runs = json.loads((example / "found.json").read_text())["results"][0]["examples"]
    assert runs <= 10, f"the stale price was met at run {runs}: the run below, with the waits off, needs more than 10 runs"
    assert "'stale price'" in out and "chain.sleep(10801)" in out
    assert "Note: this failure needs the program's waits (the clock moved 10801 s): a revert in an invariant after time passed." in out
    assert 'set settings = {"max_time_delay": 0, "max_block_delay": 0} on the machine' in out
    (example / "machines" / "engine.py").write_text(STALE.replace("class Engine:", 'class Engine:\n    settings = {"max_time_delay": 0, "max_block_delay": 0}'))
    # 10 runs, not the project's 50: more than the search above took to meet the stale price (2 at this seed)
    code, out = invoke("run", "machines/engine.py", "--seed", "1", "--max-examples", "10")
    assert code == 0, out
