"""The bundled Depositer example: found and shrunk to exactly the 2-step program."""

import textwrap

import pytest

from evmstate.reports import failure_text

from .conftest import run_project

pytestmark = pytest.mark.slow

PROGRAM = """\
Falsifying example (2 steps):
state = StateMachine()
state.rule_deposit(address=accounts[0], value=1)
state.rule_withdraw(address=accounts[0], value=0)"""

SEED_MACHINE = '''
import evmstate as brownie  # the body says brownie.reverts(...): evmstate provides it
from evmstate import reverts, strategy


class StateMachine:

    value = strategy('uint256', max_value="1 ether")
    address = strategy('address')

    def __init__(cls, accounts, Depositer):
        # deploy the contract at the start of the test
        cls.accounts = accounts
        cls.contract = Depositer.deploy({'from': accounts[0]})

    def setup(self):
        # zero the deposit amounts at the start of each test run
        self.deposits = {i: 0 for i in self.accounts}

    def rule_deposit(self, address, value):
        # make a deposit and adjust the local record
        self.contract.deposit_for(address, {'from': self.accounts[0], 'value': value})
        self.deposits[address] += value

    def rule_withdraw(self, address, value):
        if self.deposits[address] >= value:
            # make a withdrawal and adjust the local record
            self.contract.withdraw_from(value, {'from': address})
            self.deposits[address] -= value
            # attempting to withdraw beyond your balance should revert
            with brownie.reverts("Insufficient balance"):
                self.contract.withdraw_from(value, {'from': address})

    def invariant(self):
        # compare the contract deposit amounts with the local record
        for address, amount in self.deposits.items():
            assert self.contract.deposited(address) == amount
'''


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_bug_is_shrunk_to_the_two_step_program(example, seed):
    summary, _ = run_project(example, "machines/depositer.py", seed=seed)
    assert summary.exit_code == 1
    (result,) = summary.results
    failure = result.failure
    assert failure.invariant == "invariant" and failure.message == "assert 0 == 1"
    assert failure_text(failure).endswith(PROGRAM)


def test_corrected_machine_passes_against_a_fixed_contract(example):
    source = (example / "contracts" / "Depositer.vy").read_text()
    fixed = source.replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value")
    assert fixed != source
    (example / "contracts" / "Depositer.vy").write_text(fixed)
    summary, _ = run_project(example, "machines/depositer.py")
    assert summary.exit_code == 0
    (result,) = summary.results
    assert result.status == "passed" and result.examples >= 50
    assert result.rules["rule_withdraw"].reverts > 0, "the else branch's reverts() was exercised"


def test_the_seed_machine_verbatim_reports_its_own_one_step_failure(example):
    (example / "machines" / "depositer.py").write_text(textwrap.dedent(SEED_MACHINE))
    fixed = (example / "contracts" / "Depositer.vy").read_text().replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value")
    (example / "contracts" / "Depositer.vy").write_text(fixed)
    summary, _ = run_project(example, "machines/depositer.py")
    (result,) = summary.results
    failure = result.failure
    assert failure is not None and failure.steps == 1
    assert failure.program == ["state = StateMachine()", "state.rule_withdraw(address=accounts[0], value=0)"]
    assert failure.message == "Depositer.withdraw_from(0) succeeded where reverts('Insufficient balance') expected a revert"
