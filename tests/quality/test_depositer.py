"""The bundled Depositer example: found and shrunk to exactly the 2-step program."""

import textwrap

import pytest

from evmstate.reports import failure_text

from ..seed_machine import SEED_MACHINE
from .conftest import FASTEST, run_project

pytestmark = pytest.mark.quality

PROGRAM = """\
Falsifying example (2 steps):
state = StateMachine()
state.rule_deposit(address=accounts[0], value=1)
state.rule_withdraw(address=accounts[0], value=0)"""




# two pinned seeds (three before): each must report the 2-step program; on revm, where the search and its shrinking
# cost less (the program found and its trace do not depend on the EVM)
@pytest.mark.parametrize("seed", [0, 2])
def test_planted_bug_is_shrunk_to_the_two_step_program(example, seed):
    summary, _ = run_project(example, "machines/depositer.py", seed=seed, backend=FASTEST)
    assert summary.exit_code == 1
    (result,) = summary.results
    failure = result.failure
    assert failure.invariant == "invariant" and failure.message == "assert 0 == 1"
    program, trace = failure_text(failure).split("\n\nTrace:\n")
    assert program.endswith(PROGRAM)
    assert "Depositer.withdraw_from(0)" in trace


def test_corrected_machine_passes_against_a_fixed_contract(example):
    source = (example / "contracts" / "Depositer.vy").read_text()
    fixed = source.replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value")
    assert fixed != source
    (example / "contracts" / "Depositer.vy").write_text(fixed)
    # at the default budget, on revm: whether the fixed contract passes does not depend on the EVM
    summary, _ = run_project(example, "machines/depositer.py", backend=FASTEST)
    assert summary.exit_code == 0
    (result,) = summary.results
    assert result.status == "passed" and result.examples >= 50
    assert result.rules["rule_withdraw"].reverts > 0, "the else branch's reverts() was exercised"


def test_the_seed_machine_verbatim_reports_its_own_one_step_failure(example):
    (example / "machines" / "depositer.py").write_text(textwrap.dedent(SEED_MACHINE))
    fixed = (example / "contracts" / "Depositer.vy").read_text().replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value")
    (example / "contracts" / "Depositer.vy").write_text(fixed)
    summary, _ = run_project(example, "machines/depositer.py", backend=FASTEST)
    (result,) = summary.results
    failure = result.failure
    assert failure is not None and failure.steps == 1
    assert failure.program == ["state = StateMachine()", "state.rule_withdraw(address=accounts[0], value=0)"]
    assert failure.message == "Depositer.withdraw_from(0) succeeded where reverts('Insufficient balance') expected a revert"
