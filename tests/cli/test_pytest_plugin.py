"""The pytest plugin, through pytest's pytester: Brownie's fixtures and state_machine.

Each run is a pytest of its own in a child forked from this process (tests/forked_pytest.py), not
an in-process run: that restores sys.modules afterwards, which drops vyper's lazily imported
modules and breaks the next compile in this process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ..conftest import FASTEST, warm_build
from ..forked_pytest import runpytest
from ..seed_machine import SEED_MACHINE
from .helpers import invoke

pytestmark = pytest.mark.processes  # each run is a pytest process of its own (forked)

if FASTEST == "revm":
    # imported with this module, before any test: pytester takes out of sys.modules what a test imported, and
    # pyrevm, a native module, cannot be imported again in this process (revm would then be "not installed")
    import evmstate.evm.revm.backend  # noqa: F401

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
    shutil.copytree(warm_build(), root / ".evmstate" / "build")  # the bundled contracts, compiled
    return root


def test_seed_test_function_runs_verbatim_and_reports_the_program(pytester, project_dir):
    pytester.makepyfile(test_seed=SEED_TEST)
    result = runpytest(pytester, "-p", "no:cacheprovider")
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
from hypothesis import settings
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

@settings(max_examples=10)  # each example deploys: ten show the fixtures serve a @given test
@given(amount=strategy("uint256", max_value=100))
def test_property_with_fixtures(Token, accounts, amount):
    token = Token.deploy("T", "T", 18, 100)
    token.transfer(accounts[1], amount)
    assert token.balanceOf(accounts[1]) == amount
'''
    )
    result = runpytest(pytester, "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=4)
    # --only-stateful and --no-stateful select as docs/pytest.md's Options say and show (tests/docs/test_docs.py runs them)


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
    result = runpytest(pytester, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "contract 'Bad' does not compile:" in out and "Storage variable 'nope' has not been declared" in out
    assert "'shared' (contracts/lib/shared.vy) is a library module" in out
    # with the build cached, a library module is not a fixture at all
    result = runpytest(pytester, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "fixture 'shared' not found" in out and "contract 'Bad' does not compile:" in out


# on revm where installed (both sides read the same evmstate.toml): the verdicts are the machines' and tests'
PARITY_TOML = f"""
[backend]
name = "{FASTEST}"

[hypothesis]
max_examples = 30
stateful_step_count = 10
seed = 3
"""

PARITY_PROPS = '''
from hypothesis import settings

from evmstate import given, strategy

# pytest runs the tests outside the machines folder with Hypothesis's own settings (a 200 ms
# deadline), which a loaded machine can miss; evmstate.toml's deadline (none) applies to the rest


@settings(deadline=None, max_examples=30)  # as evmstate.toml gives the machines folder
@given(amount=strategy("uint256", max_value=100))
def test_every_example_starts_fresh(Token, accounts, amount):
    token = Token.deploy("T", "T", 18, 1000, {"from": accounts[0]})
    assert accounts[0].nonce == 1, "the previous example's deployment was not reverted"
    token.transfer(accounts[1], amount, {"from": accounts[0]})


@settings(deadline=None)
@given(amount=strategy("uint256", max_value=100))
def test_small_amounts(Token, accounts, amount):
    token = Token.deploy("T", "T", 18, 1000, {"from": accounts[0]})
    token.transfer(accounts[1], amount, {"from": accounts[0]})
    assert token.balanceOf(accounts[1]) < 50
'''


def _outcomes(junit: Path) -> dict[str, str]:
    from xml.etree import ElementTree as ET

    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        status = "failed" if case.find("failure") is not None else "error" if case.find("error") is not None else "passed"
        out[case.get("name")] = status
    return out


def test_the_machines_folder_gives_the_same_verdicts_under_pytest_and_evmstate_run(pytester, project_dir, monkeypatch, cli_env: dict[str, str]):
    (project_dir / "evmstate.toml").write_text(PARITY_TOML)
    (project_dir / "machines").mkdir()
    shutil.copy(REPO / "machines" / "depositer.py", project_dir / "machines" / "depositer.py")
    (project_dir / "machines" / "test_props.py").write_text(PARITY_PROPS)
    # the same tests outside the machines folder run as plain pytest tests with the fixtures
    (project_dir / "tests").mkdir()
    (project_dir / "tests" / "test_outside.py").write_text(PARITY_PROPS.replace("def test_", "def test_outside_"))

    monkeypatch.chdir(project_dir)
    code, out = invoke("run", "--json", "run.json")
    assert code == 1, out
    by_run = {r["name"]: r for r in json.loads((project_dir / "run.json").read_text())["results"]}
    assert {n: r["status"] for n, r in by_run.items()} == {
        "StateMachine": "failed",
        "test_every_example_starts_fresh": "passed",
        "test_small_amounts": "failed",
    }
    saved_by_run = {p.stem for p in (project_dir / ".evmstate" / "failures").glob("*.json")}
    assert saved_by_run == {by_run["StateMachine"]["failure_id"], by_run["test_small_amounts"]["failure_id"]}

    result = runpytest(pytester, "-p", "no:cacheprovider", "--junitxml", "pytest.xml")
    out = result.stdout.str()
    # collected once each: the machines folder by evmstate, tests/ by pytest
    result.assert_outcomes(passed=2, failed=3)
    by_pytest = _outcomes(project_dir / "pytest.xml")
    assert by_pytest == {
        "StateMachine": "failed",
        "test_every_example_starts_fresh": "passed",
        "test_small_amounts": "failed",
        "test_outside_every_example_starts_fresh": "passed",
        "test_outside_small_amounts": "failed",
    }
    program = "\n".join(by_run["StateMachine"]["failure"]["program"])
    assert program in out, "pytest reports the same shrunk program"
    assert "amount=50" in out and "\n".join(by_run["test_small_amounts"]["failure"]["program"]) in out
    # the same failures are saved under the same ids, plus the one only pytest ran
    saved = {p.stem: json.loads(p.read_text()) for p in (project_dir / ".evmstate" / "failures").glob("*.json")}
    assert saved_by_run < set(saved) and len(saved) == 3
    (outside,) = [rid for rid, rec in saved.items() if rec["name"] == "test_outside_small_amounts"]
    assert saved[outside]["path"] == "tests/test_outside.py" and saved[outside]["steps"][0]["arguments"] == {"amount": 50}
    assert f"replay with: evmstate replay {outside}" in out
    for rid in saved:
        code, replayed = invoke("replay", rid)
        assert code == 1 and "still fails" in replayed, replayed


def test_machines_folder_errors_under_pytest_are_errors_and_do_not_stop_the_others(pytester, project_dir):
    (project_dir / "machines").mkdir()
    (project_dir / "machines" / "broken.py").write_text("from evmstate import nothing_here\n")
    (project_dir / "machines" / "defs.py").write_text(
        "from evmstate import strategy\n\nclass OnlyInvariants:\n    def invariant(self):\n        pass\n\n"
        "class Fine:\n    settings = {'max_examples': 5, 'stateful_step_count': 5}\n    x = strategy('uint8')\n    def rule_a(self, x):\n        pass\n"
    )
    result = runpytest(pytester, "-p", "no:cacheprovider", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "broken.py:1: cannot import: ImportError" in out
    assert "OnlyInvariants has invariants but no rules" in out


def test_a_suites_own_accounts_fixture_overrides_evmstates_and_loads_no_project(pytester, project_dir):
    # a test whose `accounts` is the suite's own (as in a Brownie-style conftest) compiles nothing of the project;
    # one whose own fixture asks for evmstate's of the same name loads it. What was compiled shows in the build cache:
    # a new contract's entry
    (project_dir / "contracts" / "Added.vy").write_text("@external\ndef f() -> uint256:\n    return 1\n")
    pytester.makeconftest('''
import pytest

@pytest.fixture()
def accounts():
    return ["0x" + "11" * 20]
''')
    pytester.makepyfile(test_own='''
import pytest

def test_own_accounts(accounts):
    assert accounts == ["0x" + "11" * 20]

@pytest.fixture()
def chain(chain):
    return chain

def test_wraps_evmstates_chain(chain):
    chain.sleep(1)
''')
    build = project_dir / ".evmstate" / "build"
    runpytest(pytester, "-p", "no:cacheprovider", "-k", "own_accounts").assert_outcomes(passed=1)
    assert not list(build.rglob("Added-*.json"))
    runpytest(pytester, "-p", "no:cacheprovider", "-k", "wraps").assert_outcomes(passed=1)
    assert list(build.rglob("Added-*.json"))
