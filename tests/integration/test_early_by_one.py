"""A deadline met one second early: the waits drawn between steps land on a time the contract knows, one past it, or
one before it, and the second before is the one the contract sees.

The timelock below stores when its lock ends (unlock_at) and checks the week in elapsed seconds, counting the second of
the lock itself: its ether goes a second before unlock_at. The contract never compares the clock with that second (the
comparison is of elapsed time with the week), so only a wait that lands on the second before the time it stored finds
it; a wait to the time itself or one past it withdraws as it should.

The grant below stores only when it was funded, and checks its cliff as elapsed time: the time it waits for is one no
slot holds and no comparison has on a side, met only by solving the elapsed time for it (pyevm/opcodes.py _solved())."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from evmstate import Project, reverts
from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import BACKENDS

WEEK = 7 * 86400

TIMELOCK = """# pragma version ~=0.4.3
# Ether locked for a week: its owner may withdraw it once the week since the lock is over, at unlock_at.
# Planted bug: withdraw() counts the second of the lock itself as one that passed (`+ 1`), so the
# ether can be taken a second before unlock_at.

LOCK: constant(uint256) = 7 * 86400

owner: public(address)
amount: public(uint256)
locked_at: public(uint256)
unlock_at: public(uint256)


@external
@payable
def lock():
    assert self.unlock_at == 0, "already locked"
    assert msg.value > 0, "nothing locked"
    self.owner = msg.sender
    self.amount = msg.value
    self.locked_at = block.timestamp
    self.unlock_at = block.timestamp + LOCK


@external
def withdraw():
    assert self.unlock_at != 0, "nothing locked"
    assert msg.sender == self.owner, "not the owner"
    assert block.timestamp - self.locked_at + 1 >= LOCK, "still locked"
    amount: uint256 = self.amount
    self.amount = 0
    self.unlock_at = 0
    send(msg.sender, amount)


@view
@external
def clock() -> uint256:
    return block.timestamp
"""

MACHINE = """
from evmstate import reverts

LOCK = 7 * 86400


class TimelockMachine:
    def __init__(cls, accounts, chain, Timelock):
        cls.chain, cls.owner = chain, accounts[0]
        cls.timelock = Timelock.deploy({"from": accounts[0]})

    def setup(self):
        self.unlock_at = None

    def rule_lock(self):
        if self.unlock_at is not None:
            with reverts("already locked"):
                self.timelock.lock({"from": self.owner, "value": "1 ether"})
            return
        self.timelock.lock({"from": self.owner, "value": "1 ether"})
        self.unlock_at = self.chain.time() + LOCK

    def rule_withdraw(self):
        if self.unlock_at is None or self.chain.time() < self.unlock_at:
            with reverts():
                self.timelock.withdraw({"from": self.owner})
            return
        self.timelock.withdraw({"from": self.owner})
        self.unlock_at = None
"""


CLIFF = 90 * 86400 + 12345

GRANT = """# pragma version ~=0.4.3
# A grant whose cliff is counted from when it was funded: its beneficiary may claim it once CLIFF
# seconds have passed since. Only the funding time is stored.
# Planted bug: claim() counts the funding second itself (`+ 1`), so it pays a second early.

CLIFF: constant(uint256) = 90 * 86400 + 12345

beneficiary: public(address)
amount: public(uint256)
funded_at: public(uint256)


@external
@payable
def fund(beneficiary: address):
    assert self.amount == 0, "already funded"
    assert msg.value > 0, "nothing funded"
    self.beneficiary = beneficiary
    self.amount = msg.value
    self.funded_at = block.timestamp


@external
def claim():
    assert self.amount != 0, "nothing funded"
    assert block.timestamp - self.funded_at + 1 >= CLIFF, "cliff not reached"
    amount: uint256 = self.amount
    self.amount = 0
    send(self.beneficiary, amount)
"""

GRANT_MACHINE = """
from evmstate import reverts

CLIFF = 90 * 86400 + 12345


class GrantMachine:
    def __init__(cls, accounts, chain, Grant):
        cls.chain, cls.funder, cls.beneficiary = chain, accounts[0], accounts[1]
        cls.grant = Grant.deploy({"from": accounts[0]})

    def setup(self):
        self.funded_at = None

    def rule_fund(self):
        if self.funded_at is not None:
            with reverts("already funded"):
                self.grant.fund(self.beneficiary, {"from": self.funder, "value": "1 ether"})
            return
        self.grant.fund(self.beneficiary, {"from": self.funder, "value": "1 ether"})
        self.funded_at = self.chain.time()

    def rule_claim(self):
        if self.funded_at is None or self.chain.time() < self.funded_at + CLIFF:
            with reverts():
                self.grant.claim({"from": self.beneficiary})
            return
        self.grant.claim({"from": self.beneficiary})
        self.funded_at = None
"""


def project(root: Path, backend: str, grant: bool = False) -> Path:
    """The timelock's project, or the grant's."""
    (root / "contracts").mkdir()
    (root / "machines").mkdir()
    if grant:
        (root / "contracts" / "Grant.vy").write_text(GRANT)
        (root / "machines" / "grant.py").write_text(textwrap.dedent(GRANT_MACHINE))
    else:
        (root / "contracts" / "Timelock.vy").write_text(TIMELOCK)
        (root / "machines" / "timelock.py").write_text(textwrap.dedent(MACHINE))
    (root / "evmstate.toml").write_text(f'[project]\ncontracts = "contracts"\nmachines = "machines"\n\n[backend]\nname = "{backend}"\n')
    return root


@pytest.mark.parametrize("backend", BACKENDS)
def test_after_a_sleep_of_n_seconds_the_next_call_sees_the_clock_n_seconds_on(tmp_path, backend):
    p = Project(config_mod.load(project(tmp_path, backend)))
    chain, owner = p.chain, p.accounts[0]
    timelock = p.Timelock.deploy({"from": owner})
    start = chain.time()
    assert timelock.clock() == start
    timelock.lock({"from": owner, "value": 1})
    # a transaction moves neither the clock nor what the next call sees
    assert chain.time() == start and timelock.clock() == start
    assert timelock.locked_at() == start and timelock.unlock_at() == start + WEEK
    chain.sleep(WEEK - 2)
    assert chain.time() == timelock.clock() == start + WEEK - 2
    with reverts("still locked"):
        timelock.withdraw({"from": owner})
    # a second on, the second before unlock_at: what the contract sees is what the wait drawn before a step aims at
    chain.sleep(1)
    assert timelock.clock() == timelock.unlock_at() - 1
    timelock.withdraw({"from": owner})
    assert timelock.amount() == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lock_withdrawn_a_second_early_is_found_at_the_defaults(tmp_path, backend):
    root = project(tmp_path, backend)
    summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "timelock.py"),), overrides=Overrides(seed=0)), lambda e: None)
    (result,) = summary.results
    assert result.status == "failed", result.status
    # the minimal program: the wait lands on the second before the end the contract stored
    assert result.failure.program == [
        "state = TimelockMachine()", "state.rule_lock()", f"chain.sleep({WEEK - 1})", "state.rule_withdraw()"
    ], result.failure.program
    assert "succeeded where reverts() expected a revert" in result.failure.message, result.failure.message


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cliff_checked_only_as_elapsed_time_is_found_a_second_early_at_the_defaults(tmp_path, backend):
    root = project(tmp_path, backend, grant=True)
    summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "grant.py"),), overrides=Overrides(seed=0)), lambda e: None)
    (result,) = summary.results
    assert result.status == "failed", result.status
    # the wait lands on the second before funded_at + CLIFF, a time the contract never stored
    assert result.failure.program == [
        "state = GrantMachine()", "state.rule_fund()", f"chain.sleep({CLIFF - 1})", "state.rule_claim()"
    ], result.failure.program
    assert "succeeded where reverts() expected a revert" in result.failure.message, result.failure.message
