"""Errors in the user's code outside rules and invariants are errors (exit 2) with the user's traceback:
never falsified machines, never internal errors."""

from __future__ import annotations

import textwrap

from evmstate.engine.events import FailureFound

from ..cli.helpers import invoke
from .machine_runs import loaded, run_source

SETUP_FAILS = """
from evmstate import strategy

CALLS = []

class SetupFails:
    x = strategy("uint8")

    def setup(self):
        CALLS.append("setup")
        self.d = {}[1]

    def rule_a(self, x):
        pass
"""


def test_an_error_in_setup_stops_the_machine_at_once_and_is_not_a_failure(tmp_path):
    summary, events = run_source(tmp_path, SETUP_FAILS, max_examples=20)
    (result,) = summary.results
    assert result.status == "error" and result.failure is None
    assert summary.exit_code == 2
    assert loaded(tmp_path).CALLS == ["setup"], "not shrunk, not retried"
    assert not any(isinstance(e, FailureFound) for e in events)
    assert result.error.startswith("SetupFails.setup raised KeyError: 1\nTraceback (user code):\n")
    assert 'machines/m.py", line 11, in setup\n    self.d = {}[1]\n' in result.error
    assert not (tmp_path / ".evmstate" / "failures").exists(), "nothing is saved as a failure"


INIT_FAILS = """
from evmstate import strategy

def helper():
    return 1 / 0

class InitFails:
    x = strategy("uint8")

    def __init__(cls, accounts):
        cls.n = helper()

    def rule_a(self, x):
        pass
"""


def test_any_exception_in_init_is_an_error_with_the_user_traceback(tmp_path):
    summary, _ = run_source(tmp_path, INIT_FAILS)
    (result,) = summary.results
    assert result.status == "error" and summary.exit_code == 2
    assert result.error.startswith("InitFails.__init__ raised ZeroDivisionError: division by zero\nTraceback (user code):\n")
    assert "in __init__\n    cls.n = helper()\n" in result.error and "in helper\n    return 1 / 0\n" in result.error
    assert "runner.py" not in result.error


BROWNIE_DEPLOY = """
from evmstate import strategy

class Deploys:
    x = strategy("uint8")

    def __init__(cls, accounts, Token):
        cls.token = accounts[0].deploy(Token, "T", "T", 18, 100)

    def rule_a(self, x):
        pass
"""


def test_brownie_deploy_idiom_says_what_to_write(tmp_path):
    summary, _ = run_source(tmp_path, BROWNIE_DEPLOY)
    (result,) = summary.results
    assert result.status == "error"
    assert "accounts[0].deploy(Token, ...) is Brownie's spelling; evmstate deploys from the contract: " in result.error
    assert "write Token.deploy('T', 'T', 18, 100, {\"from\": accounts[0]})" in result.error
    assert "cls.token = accounts[0].deploy(Token" in result.error


LATE_ERRORS = """
from evmstate import StateMachine, given, rule, strategy
from hypothesis import strategies as st

class BadStrategy(StateMachine):
    @rule(x=st.integers(min_value=5, max_value=1))
    def a(self, x):
        pass

class FinalFails:
    x = strategy("uint8")

    def rule_a(self, x):
        pass

    def teardown_final(cls):
        raise RuntimeError("cleanup went wrong")

@given(x=strategy("uint8"))
def test_unknown_parameter(accounts, x, Tokn):
    pass
"""


def test_strategy_misuse_teardown_final_and_unknown_test_parameters_are_errors(tmp_path):
    summary, _ = run_source(tmp_path, LATE_ERRORS, max_examples=3)
    by_name = {r.name: r for r in summary.results}
    assert by_name["BadStrategy"].status == "error" and by_name["BadStrategy"].failure is None
    assert "InvalidArgument" in by_name["BadStrategy"].error and "max_value=1" in by_name["BadStrategy"].error
    assert by_name["FinalFails"].status == "error"
    assert by_name["FinalFails"].error.startswith("FinalFails.teardown_final raised RuntimeError: cleanup went wrong")
    assert by_name["test_unknown_parameter"].status == "error" and by_name["test_unknown_parameter"].examples == 0
    assert by_name["test_unknown_parameter"].error == (
        "test_unknown_parameter: cannot provide parameter 'Tokn'. Available: accounts, chain, Depositer, Token, Vault. Did you mean 'Token'?"
    )
    assert summary.exit_code == 2
    assert not (tmp_path / ".evmstate" / "failures").exists()


def test_a_missing_contracts_folder_is_named(tmp_path, monkeypatch):
    source = "from evmstate import given, strategy\n" + BROWNIE_DEPLOY.replace("accounts[0].deploy(Token, ", "Token.deploy(") + textwrap.dedent(
        """
        @given(x=strategy("uint8"))
        def test_t(Token, x):
            pass
        """
    )
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "m.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    code, out = invoke("run")
    assert code == 2, out
    assert "no contracts to test: contracts/, the contracts folder (the default: no evmstate.toml, moccasin.toml or [tool.moccasin] in pyproject.toml in" in out
    assert "does not exist." in out and 'Put the contracts in contracts/, or set contracts = "<folder>" under [project] in evmstate.toml.' in out
    assert "FAILED" not in out and "Falsifying" not in out


HELPER = "def make():\n    return {}['missing']\n"


def test_an_import_error_in_a_helper_module_shows_the_user_traceback(tmp_path, monkeypatch):
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "helpers_mod.py").write_text(HELPER)
    (tmp_path / "machines" / "m.py").write_text("from helpers_mod import make\n\nVALUE = make()\n")
    monkeypatch.chdir(tmp_path)
    code, out = invoke("run", "machines/m.py")
    assert code == 2, out
    assert "machines/m.py:3: cannot import: KeyError: 'missing'" in out
    assert 'helpers_mod.py", line 2, in make\n    return {}[\'missing\']' in out
    assert "discovery.py" not in out and "importlib" not in out
