"""A saved failure whose rule took other arguments then: replay says the machine changed since, not that its code is
wrong."""

from __future__ import annotations

import pytest

from evmstate import config as config_mod
from evmstate.engine.replay import check, replay
from evmstate.errors import FailureRecordError
from evmstate.failures import FailureStore
from evmstate.runner import Overrides, RunOptions, run

MACHINE = """
from evmstate import strategy


class Locks:
    weeks = strategy("uint8")

    def setup(self):
        self.total = 0

    def rule_lock(self, weeks):
        self.total += weeks

    def invariant_short(self):
        assert self.total < 100, "locked too long"
"""


def test_a_record_whose_rule_now_takes_other_arguments_names_them_and_how_to_remove_it(tmp_path):
    machine = tmp_path / "machines" / "locks.py"
    machine.parent.mkdir()
    machine.write_text(MACHINE)
    (tmp_path / "evmstate.toml").write_text("")
    config = config_mod.load(tmp_path)
    summary = run(config, RunOptions((str(machine),), overrides=Overrides(seed=0)), lambda e: None)
    (result,) = summary.results
    assert result.status == "failed", result.error
    record = FailureStore.of(config).load(result.failure_id)

    # the lock's length drawn as weeks and seconds now: the recorded `weeks=` alone no longer fits the rule
    machine.write_text(MACHINE.replace("def rule_lock(self, weeks):", "def rule_lock(self, weeks, seconds):").replace(
        'weeks = strategy("uint8")', 'weeks = strategy("uint8")\n    seconds = strategy("uint8")'
    ))
    with pytest.raises(FailureRecordError) as raised:
        replay(config, record, lambda step: None)
    message = str(raised.value)
    assert "TypeError" not in message and "machine's own code is wrong" not in message, message
    assert f"failure {record.id}: step 1 calls Locks.rule_lock with weeks; the rule now takes weeks, seconds" in message
    assert f"evmstate failures rm {record.id}" in message and "evmstate failures prune --unreplayable" in message
    # `evmstate failures --check` and prune see the same: cannot replay, for that reason
    checked = check(config, FailureStore.of(config), record.id)
    assert checked.verdict == "cannot replay" and "the rule now takes weeks, seconds" in checked.reason, checked
