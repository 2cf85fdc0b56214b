"""Every reported program is shrunk, whatever the example database holds."""

from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

pytestmark = pytest.mark.quality

TWO_BUGS = '''
from evmstate import strategy

BUG_A = {bug_a}


class TwoBugs:
    value = strategy("uint8")

    def setup(self):
        self.total = 0
        self.count = 0

    def rule_add(self, value):
        self.total += value
        self.count += 1

    def invariant_total(self):
        assert not (BUG_A and self.total >= 500), "total"

    def invariant_many(self):
        assert not (self.count >= 5 and 300 <= self.total < 500), "many"
'''

MINIMAL_B = [
    "state = TwoBugs()",
    "state.rule_add(value=0)",
    "state.rule_add(value=0)",
    "state.rule_add(value=0)",
    "state.rule_add(value=45)",
    "state.rule_add(value=255)",
]


def _run(root: Path, bug_a: bool, seed: int):
    (root / "machines" / "twobugs.py").write_text(TWO_BUGS.format(bug_a=bug_a))
    summary = run(config_mod.load(root), RunOptions(overrides=Overrides(seed=seed)), lambda e: None)
    (result,) = summary.results
    return result


def test_a_second_bug_met_while_shrinking_the_first_is_reported_shrunk_on_the_next_run(tmp_path):
    checked = 0
    for seed in range(20):
        root = tmp_path / str(seed)
        for folder in ("contracts", "machines"):
            (root / folder).mkdir(parents=True)
        # enough runs to find B by itself once A is fixed, whatever else this process loaded
        (root / "evmstate.toml").write_text("[hypothesis]\nmax_examples = 200\n")
        first = _run(root, bug_a=True, seed=seed)
        if first.failure.message != "total":
            continue  # this seed met bug B first: not the case under test
        assert first.failure.steps == 2
        # with A fixed, B is what fails: its program must be shrunk, not one Hypothesis saved
        # unshrunk while shrinking A
        second = _run(root, bug_a=False, seed=seed)
        assert second.failure.message == "many"
        assert second.failure.program == MINIMAL_B
        # and the run after that replays the shrunk example from the database
        third = _run(root, bug_a=False, seed=seed)
        assert third.statistics["first failure at run"] == 1 and third.failure.shrink.replayed
        assert third.failure.program == MINIMAL_B
        checked += 1
        if checked == 3:
            break
    assert checked == 3, "three seeds whose first run reports bug A"
