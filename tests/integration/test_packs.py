"""The property packs on real contracts: snekmate's modules on both backends, a bug planted in the bundled token, the scaffold, the canaries.

Small budgets: whether a pack passes at run's defaults and kills mutants is benchmarks/packs.py's,
the bugs it finds at run's defaults tests/quality/test_packs.py's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

from ..cli.helpers import invoke
from ..conftest import REPO, SEARCH_ONLY, copy_example, copy_project, warm_build

PACKS = REPO / "tests" / "projects" / "mutate_packs"
SNEKMATE = REPO / "tests" / "projects" / "snekmate"  # the same mocks: its build serves this project's


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_project(PACKS, tmp_path_factory.mktemp("packs"), warm=False)
    shutil.copytree(warm_build(SNEKMATE), root / ".evmstate" / "build")
    return root


def ran(root: Path, target: str, backend: str = "pyevm", **budget: object):
    config = config_mod.load(root)
    config = config.replace(backend=config_mod.BackendConfig(name=backend, check=False, named=True))
    summary = run(config, RunOptions((str(root / target),), overrides=Overrides(**budget)), lambda event: None)
    (result,) = summary.results
    return result


@pytest.mark.parametrize("backend", ["pyevm", "revm"])
@pytest.mark.parametrize("machine", ["ERC20PackMachine", "ERC721PackMachine", "ERC4626PackMachine"])
def test_each_pack_passes_on_snekmates_module(packs, machine, backend):
    result = ran(packs, f"machines/packs.py::{machine}", backend, seed=3, max_examples=2, stateful_step_count=12)
    assert result.status == "passed", result.failure and result.failure.message
    # the pack checked what it exists to check, not only empty state
    assert any(c.interesting for c in result.canaries.values()), result.canaries


VAULTS = REPO / "tests" / "projects" / "vault_bugs"


@pytest.mark.parametrize("backend", ["pyevm", "revm"])
def test_the_vault_the_quality_tests_plant_bugs_in_passes_the_erc4626_pack(tmp_path, backend):
    root = copy_project(VAULTS, tmp_path / "vaults")
    result = ran(root, "machines/vault.py", backend, seed=2, max_examples=3, stateful_step_count=12)
    assert result.status == "passed", result.failure and result.failure.message
    assert any(c.interesting for c in result.canaries.values()), result.canaries


TOKEN_PACK = '''
from evmstate.properties import ERC20Adapter, ERC20Properties


class TokenPackMachine(ERC20Properties):
    def __init__(cls, accounts, Token):
        cls.erc20 = ERC20Adapter(Token.deploy("Token", "TKN", 18, "1000 ether", {"from": accounts[0]}), accounts[:3])
'''


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    root = copy_example(tmp_path / "project")
    (root / "machines" / "token_pack.py").write_text(TOKEN_PACK)
    return root


def test_the_erc20_pack_passes_on_the_bundled_token_and_finds_an_allowance_it_forgets_to_spend(example):
    passed = ran(example, "machines/token_pack.py", seed=1, max_examples=6, stateful_step_count=20)
    assert passed.status == "passed", passed.failure and passed.failure.message
    source = example / "contracts" / "Token.vy"
    source.write_text(source.read_text().replace("    self.allowance[_from][msg.sender] -= _value\n", ""))
    failed = ran(example, "machines/token_pack.py", seed=1, max_examples=20, stateful_step_count=20, phases=SEARCH_ONLY)
    assert failed.status == "failed"
    assert failed.failure.program[-1].startswith("state.rule_erc20_transfer_from_spends_allowance("), failed.failure.program
    assert 'EIP-20, allowance: "Returns the amount which _spender is still allowed to withdraw from _owner."' in failed.failure.message


def test_init_machine_writes_a_machine_that_runs_and_refuses_to_overwrite_it(example, monkeypatch):
    monkeypatch.chdir(example)
    code, out = invoke("init", "--machine", "Token")
    assert code == 0, out
    written = example / "machines" / "token.py"
    assert f"wrote {written}" in out and "evmstate run machines/token.py" in out
    text = written.read_text()
    assert "class TokenMachine(ERC20Properties):" in text and "cls.erc20 = ERC20Adapter(cls.token, accounts[:ACTORS])" in text
    result = ran(example, "machines/token.py", seed=2, max_examples=3, stateful_step_count=10)
    assert result.status == "passed", result.failure and result.failure.message
    code, out = invoke("init", "--machine", "Token")
    assert code == 2 and "machines/token.py already exists; nothing was written. Use --force" in out
    assert invoke("init", "--machine", "Token", "--force")[0] == 0
    code, out = invoke("init", "--machine", "Tokn")
    assert code == 2 and "evmstate init --machine Tokn: no deployable contract of that name" in out and "Token" in out


CANARY = '''
from evmstate import strategy
from evmstate.properties import exercised


class CanaryMachine:
    amount = strategy("uint256", max_value=0)

    def __init__(cls, accounts, Token):
        cls.token = Token.deploy("Token", "TKN", 18, 0, {"from": accounts[0]})

    def rule_transfer_nothing(self, amount):
        self.token.transfer(self.token, amount)
        exercised("rule_transfer_nothing", amount > 0, "a transfer of a non-zero amount")
'''


def test_a_passing_machine_says_which_property_never_met_interesting_state(example, monkeypatch):
    (example / "machines" / "canary.py").write_text(CANARY)
    monkeypatch.chdir(example)
    monkeypatch.setenv("NO_COLOR", "1")
    code, out = invoke("run", "machines/canary.py", "--seed", "1", "--max-examples", "3", "--steps", "4", "--json", "report.json")
    assert code == 0, out
    assert "warning: CanaryMachine.rule_transfer_nothing was checked 12 times but never on a transfer of a non-zero amount: it passed without testing anything" in out
    assert '"unexercised": [\n        "rule_transfer_nothing"\n      ]' in (example / "report.json").read_text()
