"""Time between steps: drawn before each step, shrunk toward none, printed and replayed as the
chain.sleep()/chain.mine() lines of the program; 0 turns it off."""

import json
import textwrap
from pathlib import Path

import pytest

from evmstate import ConfigError
from evmstate import config as config_mod
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink.passes import without
from evmstate.runner import Overrides, RunOptions, run

from .helpers import invoke

# plain Python machines: the clock is the chain's, no contract is needed
DEADLINE = """
class DeadlineMachine:
    def __init__(cls, chain):
        cls.chain = chain

    def setup(self):
        self.start, self.height = self.chain.time(), self.chain.height

    def rule_poke(self):
        pass

    def rule_wait(self):
        pass

    def invariant_within_the_hour(self):
        assert self.chain.time() - self.start < 3600, "an hour passed"
"""

BLOCKS = DEADLINE.replace("self.chain.time() - self.start < 3600", "self.chain.height - self.height < 100").replace("an hour passed", "100 blocks passed")


def project(tmp_path: Path, source: str, toml: str = "") -> Path:
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "deadline.py").write_text(textwrap.dedent(source))
    (tmp_path / "evmstate.toml").write_text(toml)
    return tmp_path


def run_machine(root: Path, seed: int = 0, **overrides):
    summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "deadline.py"),), overrides=Overrides(seed=seed, **overrides)), lambda e: None)
    (result,) = summary.results
    return result


@pytest.mark.parametrize("seed", range(3))
def test_a_deadline_is_found_and_the_program_waits_exactly_as_long_as_it_must(tmp_path, seed):
    root = project(tmp_path, DEADLINE)
    result = run_machine(root, seed)
    assert result.status == "failed"
    failure = result.failure
    # no machine rule moves the clock: the wait is drawn, and shrunk to the hour itself
    assert failure.program == ["state = DeadlineMachine()", "chain.sleep(3600)", "state.rule_poke()"]
    assert failure.steps == 1
    assert failure.recorded == (RecordedStep("rule_poke", {}, (), (3600, 0)),)
    assert [s.to_data() for s in failure.recorded] == [{"rule": "rule_poke", "arguments": {}, "results": [], "sleep": 3600}]


def test_blocks_pass_as_chain_mine_lines(tmp_path):
    root = project(tmp_path, BLOCKS)
    failure = run_machine(root).failure
    assert failure.program == ["state = DeadlineMachine()", "chain.mine(100)", "state.rule_poke()"]
    assert failure.recorded[0].delay == (0, 100) and failure.recorded[0].to_data() == {"rule": "rule_poke", "arguments": {}, "results": [], "mine": 100}


@pytest.mark.parametrize(
    "where",
    [
        "[fuzz]\nmax_time_delay = 0\n",
        None,  # the machine's own settings
    ],
)
def test_zero_turns_the_delays_off(tmp_path, where):
    source = DEADLINE if where is not None else DEADLINE.replace("class DeadlineMachine:\n", "class DeadlineMachine:\n    settings = {'max_time_delay': 0}\n")
    root = project(tmp_path, source, where or "")
    result = run_machine(root, max_examples=20)
    assert result.status == "passed" and result.steps > 0


def test_the_saved_program_replays_its_wait_and_an_old_record_replays_without_one(tmp_path, monkeypatch, cli_env: dict[str, str]):
    root = project(tmp_path, DEADLINE)
    monkeypatch.chdir(root)
    code, out = invoke("run", "machines/deadline.py", "--seed", "0")
    assert code == 1
    assert "Falsifying example (1 step):\nstate = DeadlineMachine()\nchain.sleep(3600)\nstate.rule_poke()\n" in out
    # the trace: the block and time the step ran at, after its wait (the chain starts at block 1, time 1700000001)
    assert "  1. chain.sleep(3600)  # now block 1, time 1700003601 (2023-11-14 23:13:21 UTC)\n     state.rule_poke()\n" in out
    (path,) = (root / ".evmstate" / "failures").glob("*.json")
    code, out = invoke("replay", path.stem)
    assert code == 1
    assert out == (
        f"replaying {path.stem}: machines/deadline.py::DeadlineMachine\n"
        "  1. chain.sleep(3600)  # now block 1, time 1700003601 (2023-11-14 23:13:21 UTC)\n"
        "     state.rule_poke()\n"
        "     invariant invariant_within_the_hour failed: AssertionError: an hour passed\n"
        "still fails: AssertionError: an hour passed\n"
    )
    # a record written before steps could wait has no delay keys: its steps run at once
    data = json.loads(path.read_text())
    del data["steps"][0]["sleep"]
    path.write_text(json.dumps(data))
    code, out = invoke("replay", path.stem)
    assert code == 0 and out.endswith(f"  1. state.rule_poke()\nfixed: {path.stem} no longer fails\n")
    # a delay that cannot be one is a clear error, not a traceback
    data["steps"][0]["sleep"] = -5
    path.write_text(json.dumps(data))
    code, out = invoke("replay", path.stem)
    assert code == 2 and "sleep = -5" in out and "Traceback" not in out


def test_the_deletion_pass_keeps_the_time_a_dropped_step_waited():
    steps = [RecordedStep("a", delay=(10, 0)), RecordedStep("b", delay=(5, 2)), RecordedStep("c")]
    assert without(steps, {1}) == [steps[0], RecordedStep("c", delay=(5, 2))]
    assert without(steps, {0, 1}) == [RecordedStep("c", delay=(15, 2))]
    assert without(steps, {2}) == steps[:2]  # a last step's wait has nothing left to delay


@pytest.mark.parametrize("value", [-1, 1.5, True, "1 day", 100 * 365 * 86400 + 1])
def test_a_bad_delay_setting_says_what_to_write(tmp_path, value):
    (tmp_path / "evmstate.toml").write_text(f"[fuzz]\nmax_time_delay = {json.dumps(value)}\n")
    with pytest.raises(ConfigError, match=r"\[fuzz\] max_time_delay must be a whole number from 0 \(no delays\) to 3153600000 \(a hundred years"):
        config_mod.load(tmp_path)


def test_a_bad_machine_delay_setting_is_a_definition_error(tmp_path):
    source = DEADLINE.replace("class DeadlineMachine:\n", "class DeadlineMachine:\n    settings = {'max_block_delay': -1}\n")
    root = project(tmp_path, source)
    summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "deadline.py"),)), lambda e: None)
    (error,) = summary.load_errors  # when the machine is loaded, before anything runs
    assert "DeadlineMachine.settings: max_block_delay must be a whole number from 0 (no delays)" in error.message
    assert summary.exit_code == 2


def test_the_defaults_are_four_years_and_four_years_of_blocks():
    fuzz = config_mod.FuzzConfig()
    assert (fuzz.max_time_delay, fuzz.max_block_delay) == (4 * 365 * 86400, 4 * 365 * 86400 // 12)


def test_the_deletion_pass_shortens_each_wait_to_the_least_that_still_fails():
    from evmstate.engine.shrink.passes import Minimized, shorten_waits

    tried = []

    def attempt(candidate):  # fails once an hour and 12 blocks have passed before the second step
        tried.append(candidate)
        seconds, blocks = candidate[1].delay
        return Minimized(candidate, [], AssertionError()) if seconds >= 3600 and blocks >= 12 else None

    steps = [RecordedStep("a"), RecordedStep("b", delay=(604800, 50400))]
    found = shorten_waits(steps, attempt)
    assert found.steps[1] == RecordedStep("b", delay=(3600, 12))
    assert len(tried) <= 40  # bisection: about log2 of each wait
    assert shorten_waits([steps[0]], attempt) is None  # nothing waits: nothing to shorten


def test_a_wait_the_failure_does_not_need_goes_in_one_replay():
    from evmstate.engine.shrink.passes import Minimized, shorten_waits

    tried = []

    def attempt(candidate):  # fails once a day has passed before the last step; the blocks and the first wait do not matter
        tried.append(candidate)
        return Minimized(candidate, [], AssertionError()) if candidate[2].delay[0] >= 86400 else None

    steps = [RecordedStep("a", delay=(20994561, 1856680)), RecordedStep("b"), RecordedStep("c", delay=(604800, 50400))]
    found = shorten_waits(steps, attempt)
    assert [s.delay for s in found.steps] == [(0, 0), (0, 0), (86400, 0)]
    # each of the three waits not needed goes at its first try; the needed one takes a try at none, then bisection
    assert len(tried) == 3 + 1 + (604800).bit_length()
