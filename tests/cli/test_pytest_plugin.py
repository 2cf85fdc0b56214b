"""The pytest plugin, through pytest's pytester: Brownie's fixtures and state_machine.

Runs go through runpytest_subprocess: an in-process run restores sys.modules afterwards,
which drops vyper's lazily imported modules and breaks the next compile in this process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ..seed_machine import SEED_MACHINE

REPO = Path(__file__).resolve().parents[2]

SEED_TEST = SEED_MACHINE + '''
def test_stateful(Depositer, accounts, state_machine):
    state_machine(StateMachine, accounts, Depositer)
'''


@pytest.fixture()
def project_dir(pytester: pytest.Pytester) -> Path:
    root = Path(pytester.path)
    shutil.copytree(REPO / "contracts", root / "contracts")
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    return root


def test_seed_test_function_runs_verbatim_and_reports_the_program(pytester, project_dir):
    pytester.makepyfile(test_seed=SEED_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "Falsifying example (1 step):" in out
    assert "state.rule_withdraw(address=accounts[0], value=0)" in out
    assert "Depositer.withdraw_from(0) succeeded where reverts('Insufficient balance') expected a revert" in out
    (record,) = (project_dir / ".evmstate" / "failures").glob("*.json")
    assert f"replay with: evmstate replay {record.stem}" in out
    data = json.loads(record.read_text())
    assert data["name"] == "StateMachine" and data["path"] == "test_seed.py"


def test_corrected_machine_passes_with_settings_and_fixtures_are_isolated(pytester, project_dir):
    dep = project_dir / "contracts" / "Depositer.vy"
    dep.write_text(dep.read_text().replace("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value"))
    shutil.copy(REPO / "machines" / "depositer.py", project_dir / "depositer_machine.py")
    pytester.makepyfile(
        test_things='''
from depositer_machine import StateMachine
from evmstate import given, strategy

def test_stateful(Depositer, accounts, state_machine):
    state_machine(StateMachine, accounts, Depositer, settings={"max_examples": 5, "stateful_step_count": 5})

def test_a_changes_the_chain(accounts, chain, Token):
    Token.deploy("T", "T", 18, 100)
    accounts[0].transfer(accounts[1], "1 ether")
    chain.sleep(100)

def test_b_sees_a_fresh_chain(accounts, chain):
    assert accounts[1].balance() == 100 * 10**18
    assert accounts[0].nonce == 0

@given(amount=strategy("uint256", max_value=100))
def test_property_with_fixtures(Token, accounts, amount):
    token = Token.deploy("T", "T", 18, 100)
    token.transfer(accounts[1], amount)
    assert token.balanceOf(accounts[1]) == amount
'''
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=4)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--only-stateful")
    result.assert_outcomes(passed=1, deselected=3)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--no-stateful")
    result.assert_outcomes(passed=3, deselected=1)


def test_fixtures_are_contracts_a_broken_one_fails_its_tests_and_modules_get_none(pytester):
    root = Path(pytester.path)
    (root / "contracts" / "lib").mkdir(parents=True)
    (root / "contracts" / "Good.vy").write_text("@external\n@view\ndef f() -> uint256:\n    return 1\n")
    (root / "contracts" / "Bad.vy").write_text("@external\n@view\ndef f() -> uint256:\n    return self.nope\n")
    (root / "contracts" / "lib" / "shared.vy").write_text("from snekmate.auth import ownable\nuses: ownable\n\n@internal\ndef _check():\n    ownable._check_owner()\n")
    (root / "evmstate.toml").write_text("")
    pytester.makepyfile(
        test_things='''
def test_good(Good, accounts):
    assert Good.deploy({"from": accounts[0]}).f() == 1

def test_bad(Bad):
    pass

def test_shared(shared):
    pass
'''
    )
    # the first session has no build yet: the module's fixture exists and says what it is
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "contract 'Bad' does not compile:" in out and "Storage variable 'nope' has not been declared" in out
    assert "'shared' (contracts/lib/shared.vy) is a library module" in out
    # with the build cached, a library module is not a fixture at all
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "fixture 'shared' not found" in out and "contract 'Bad' does not compile:" in out
