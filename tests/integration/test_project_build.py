"""A project as the compiler builds it, through the engine: a broken contract blocks only whoever
needs it, and an edit to an imported module outside contracts/ reaches the next run and replay."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import snekmate

from evmstate import config as config_mod
from evmstate.failures import FailureStore
from evmstate.engine.replay import replay
from evmstate.engine.events import LoadFailed, MachineFinished
from evmstate.runner import Overrides, RunOptions, run

GOOD = "@external\n@view\ndef f() -> uint256:\n    return 1\n"
BAD = "@external\n@view\ndef f() -> uint256:\n    return self.nope\n"
LIB = "from snekmate.auth import ownable\nuses: ownable\n\n@internal\ndef _check():\n    ownable._check_owner()\n"

MACHINES = """
from evmstate import given, strategy

class GoodMachine:
    def __init__(cls, accounts, Good):
        cls.c = Good.deploy({"from": accounts[0]})

    def rule_f(self):
        assert self.c.f() == 1

class BadMachine:
    def __init__(cls, accounts, Bad):
        cls.c = Bad.deploy({"from": accounts[0]})

    def rule_f(self):
        pass

class LibMachine:
    def __init__(cls, lib):
        pass

    def rule_f(self):
        pass

@given(x=strategy("uint8"))
def test_good(Good, accounts, x):
    assert Good.deploy({"from": accounts[0]}).f() == 1

@given(x=strategy("uint8"))
def test_bad(Bad, x):
    pass
"""


def run_project(root: Path, **overrides):
    events: list = []
    overrides = {"max_examples": 3, "stateful_step_count": 3, "seed": 0, **overrides}
    summary = run(config_mod.load(root), RunOptions(overrides=Overrides(**overrides)), events.append)
    return summary, events


def test_a_broken_contract_blocks_only_the_machines_and_tests_that_ask_for_it(tmp_path: Path):
    for name, text in {"contracts/Good.vy": GOOD, "contracts/Bad.vy": BAD, "contracts/lib.vy": LIB, "machines/m.py": MACHINES}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "evmstate.toml").write_text("")
    summary, events = run_project(tmp_path)
    status = {r.name: r.status for r in summary.results}
    assert status == {"GoodMachine": "passed", "BadMachine": "error", "LibMachine": "error", "test_good": "passed", "test_bad": "error"}
    assert summary.exit_code == 2
    (notice,) = [e for e in events if isinstance(e, LoadFailed)]
    assert notice.path == "contracts/Bad.vy"
    assert notice.message == "contract 'Bad' does not compile; needed by BadMachine, test_bad (they end as errors, the others run)"
    errors = {r.name: r.error for r in events if isinstance(r, MachineFinished) and r.status == "error"}
    for name, where in (("BadMachine", "BadMachine.__init__"), ("test_bad", "test_bad")):
        assert errors[name].startswith(f"{where}: cannot provide parameter 'Bad': contract 'Bad' does not compile:\n")
        assert "Storage variable 'nope' has not been declared" in errors[name] and "---> 4     return self.nope" in errors[name]
    assert "'lib' (contracts/lib.vy) is a library module" in errors["LibMachine"]


TOKEN = """
from snekmate.auth import ownable
from snekmate.tokens import erc20

initializes: ownable
initializes: erc20[ownable := ownable]
exports: erc20.__interface__


@deploy
def __init__(supply: uint256):
    ownable.__init__()
    erc20.__init__("Token", "TKN", 18, "Token", "1")
    erc20._mint(msg.sender, supply)
"""

TOKEN_MACHINE = """
from evmstate import strategy

class TokenMachine:
    st_amount = strategy("uint256", max_value=1000)
    st_sender = strategy("address")
    st_receiver = strategy("address")

    def __init__(cls, accounts, Token):
        cls.accounts = accounts
        cls.token = Token.deploy(1000, {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = 1000

    def rule_transfer(self, st_sender, st_receiver, st_amount):
        if self.balances[st_sender] >= st_amount:
            self.token.transfer(st_receiver, st_amount, {"from": st_sender})
            self.balances[st_sender] -= st_amount
            self.balances[st_receiver] += st_amount

    def invariant_balances(self):
        for a in self.accounts:
            assert self.token.balanceOf(a) == self.balances[a]
"""

DEBIT = "self.balanceOf[owner] = unsafe_sub(owner_balanceOf, amount)"
NO_DEBIT = "self.balanceOf[owner] = owner_balanceOf"


def test_a_bug_planted_in_a_copied_module_is_found_after_the_edit_and_replay_names_the_module(tmp_path: Path):
    """snekmate copied into a search path shadows the installed one; editing the copy reaches the next run."""
    vendor = tmp_path / "vendor" / "snekmate"
    shutil.copytree(Path(list(snekmate.__path__)[0]), vendor)
    erc20 = vendor / "tokens" / "erc20.vy"
    original = erc20.read_text()
    assert original.count(DEBIT) == 1
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Token.vy").write_text(TOKEN)
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "token.py").write_text(TOKEN_MACHINE)
    (tmp_path / "evmstate.toml").write_text('[compiler]\nsearch_paths = ["vendor"]\n')

    summary, _ = run_project(tmp_path, max_examples=10, stateful_step_count=5)
    assert [r.status for r in summary.results] == ["passed"]

    erc20.write_text(original.replace(DEBIT, NO_DEBIT))  # the sender is no longer debited
    summary, _ = run_project(tmp_path, max_examples=10, stateful_step_count=5)
    (result,) = summary.results
    assert result.status == "failed" and result.failure.invariant == "invariant_balances"
    record = FailureStore(tmp_path / ".evmstate" / "failures").last()
    assert record.hashes["inputs"]["vendor/snekmate/tokens/erc20.vy"] and record.hashes["inputs"]["contracts/Token.vy"]
    assert not any(p.startswith("snekmate/") for p in record.hashes["inputs"]), "the installed snekmate is shadowed"

    erc20.write_text(original)
    outcome = replay(config_mod.load(tmp_path), record, lambda step: None)
    assert outcome.verdict == "fixed"
    assert outcome.changed == ["imported: vendor/snekmate/tokens/erc20.vy"]


def test_a_sources_own_pragmas_win_over_the_project_settings(tmp_path):
    """# pragma optimize / evm-version in a source apply to that source, as with vyper on the command line."""
    from evmstate import Project
    from evmstate.config import CompilerConfig, Config, ProjectConfig

    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Small.vy").write_text("# pragma optimize codesize\n" + GOOD)
    (tmp_path / "contracts" / "Older.vy").write_text("# pragma evm-version cancun\n" + GOOD)
    (tmp_path / "contracts" / "Plain.vy").write_text(GOOD)
    for optimize in ("gas", "none", "codesize"):
        config = Config(root=tmp_path, project=ProjectConfig(contracts="contracts"), compiler=CompilerConfig(optimize=optimize, evm_version="prague"))
        project = Project(config)
        assert not project.build.errors, project.build.errors
        for name in ("Small", "Older", "Plain"):
            assert getattr(project, name).deploy().f() == 1
