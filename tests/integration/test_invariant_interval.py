"""[fuzz] invariant_interval (engine/example.py): the invariants after every N-th step and at each run's end, and a
failing run played again checking every step, so that the program reported is the one N = 1 gives."""

from __future__ import annotations

import pytest

from evmstate.config import ConfigError
from evmstate import config as config_mod
from evmstate.engine.events import FailureFound

from evmstate.contracts.project import Project
from evmstate.engine.discovery import discover
from evmstate.engine.item import RunRequest, run_item
from evmstate.runner import Overrides, RunOptions, run

from .test_engine import loaded


def run_source(tmp_path, source: str, *, toml: str = "", **overrides):
    """The machine run in a project of no contracts (nothing to compile)."""
    (tmp_path / "contracts").mkdir(exist_ok=True)
    (tmp_path / "machines").mkdir(exist_ok=True)
    (tmp_path / "machines" / "m.py").write_text(source)
    (tmp_path / "evmstate.toml").write_text(toml)
    events: list = []
    summary = run(config_mod.load(tmp_path), RunOptions(overrides=Overrides(seed=0, **overrides)), events.append)
    return summary, events

COUNTED = """
from evmstate import strategy

CHECKS = []

class Counted:
    x = strategy("uint8")

    def __init__(cls, accounts):
        pass

    def setup(self):
        self.steps = 0

    def rule_step(self, x):
        self.steps += 1

    def invariant_seen(self):
        CHECKS.append(self.steps)
"""

# a bug that stays once made: the total passes 600 (the model says it never does), and a rule that changes nothing
PERSISTENT = """
from evmstate import strategy

class Total:
    x = strategy("uint8")

    def __init__(cls, accounts):
        pass

    def setup(self):
        self.total = 0

    def rule_add(self, x):
        self.total += x

    def rule_wait(self):
        pass

    def invariant_bounded(self):
        assert self.total <= 600, self.total
"""


def test_the_invariants_run_every_nth_step_and_at_each_runs_end(tmp_path):
    summary, _ = run_source(tmp_path, COUNTED, toml="[fuzz]\ninvariant_interval = 5\n", max_examples=3, stateful_step_count=12)
    assert summary.exit_code == 0
    checks = loaded(tmp_path).CHECKS
    # each run: after setup, after steps 5 and 10, and at its end (step 12)
    assert checks == [0, 5, 10, 12] * 3


def test_a_machines_own_interval_wins(tmp_path):
    source = COUNTED.replace("class Counted:\n", "class Counted:\n    settings = {'invariant_interval': 4}\n")
    summary, _ = run_source(tmp_path, source, toml="[fuzz]\ninvariant_interval = 5\n", max_examples=2, stateful_step_count=9)
    assert summary.exit_code == 0
    assert loaded(tmp_path).CHECKS == [0, 4, 8, 9] * 2


def failure_text(tmp_path, interval: int):
    summary, events = run_source(tmp_path, PERSISTENT, toml=f"[fuzz]\ninvariant_interval = {interval}\n", max_examples=40, stateful_step_count=30, phases=("generate",))
    assert summary.exit_code == 1
    (found,) = [e for e in events if isinstance(e, FailureFound)]
    (result,) = summary.results
    return found.examples, result.failure


def test_a_failure_found_at_an_interval_is_the_one_every_step_gives(tmp_path_factory):
    every = failure_text(tmp_path_factory.mktemp("every"), 1)
    sparse = failure_text(tmp_path_factory.mktemp("sparse"), 7)
    assert every[0] == sparse[0]  # found in the same run
    # not shrunk: the run as found, cut at the step whose invariants failed first (a check after it came later)
    assert every[1].program == sparse[1].program and every[1].error.message == sparse[1].error.message
    assert every[1].steps % 7 and every[1].steps < 30, every[1].program


# an invariant broken for a while (spike, then heal), and a rule that fails once it ever was
TRANSIENT = """
class Transient:
    def __init__(cls, accounts):
        pass

    def setup(self):
        self.bad = self.ever = False

    def rule_spike(self):
        self.bad = self.ever = True

    def rule_heal(self):
        self.bad = False

    def rule_crash(self):
        if self.ever:
            raise ValueError("crashed after a spike")

    def invariant_calm(self):
        assert not self.bad, "spiked"
"""


@pytest.mark.parametrize("interval", [1, 50])
def test_a_rule_failing_after_a_check_left_out_reports_the_invariant_every_step_finds(tmp_path, interval):
    """In evmstate's own loop, whose failure Hypothesis replays checking every step: the run that found it is played
    again first, so both find the spike (else a crash at 50 against a spike in the replay: an internal error)."""
    (tmp_path / "contracts").mkdir()
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "m.py").write_text(TRANSIENT)
    (tmp_path / "evmstate.toml").write_text(f"[fuzz]\ninvariant_interval = {interval}\n")
    cfg = config_mod.load(tmp_path)
    project = Project(cfg)
    project.activate()
    (item,) = discover(cfg, (str(tmp_path / "machines" / "m.py"),)).items
    request = RunRequest(overrides=Overrides(seed=0, max_examples=30, stateful_step_count=20), seed=0, native=True, save_failures=False)
    result = run_item(cfg, project, item, request, lambda e: None)
    assert result.statistics["evmstate's own loop"].endswith("its failure replayed by Hypothesis"), result.statistics
    assert result.status == "failed", result.error
    assert result.failure.program == ["state = Transient()", "state.rule_spike()"] and result.failure.error.message == "spiked"


@pytest.mark.parametrize(("value", "toml"), [(0, "0"), (-1, "-1"), (1.5, "1.5"), (True, "true"), ("5", '"5"'), (1001, "1001")])
def test_an_interval_that_is_not_a_whole_number_of_steps_is_refused(tmp_path, value, toml):
    (tmp_path / "evmstate.toml").write_text(f"[fuzz]\ninvariant_interval = {toml}\n")
    with pytest.raises(ConfigError, match="invariant_interval must be a whole number of steps from 1"):
        config_mod.load(tmp_path)
    source = COUNTED.replace("class Counted:\n", f"class Counted:\n    settings = {{'invariant_interval': {value!r}}}\n")
    (tmp_path / "evmstate.toml").unlink()
    summary, _ = run_source(tmp_path, source, max_examples=1)
    (refused,) = summary.load_errors  # when the machine is loaded, before it runs
    assert summary.exit_code == 2 and refused.message.startswith("Counted.settings: invariant_interval must be a whole number of steps from 1")
