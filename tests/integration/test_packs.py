"""The property packs on real contracts: snekmate's modules on both backends, and the canaries of a passing machine.

Small budgets: whether a pack passes at run's defaults, the mutants it kills and the ERC-4626 bugs
it finds at run's defaults are benchmarks/packs.py's; the ERC-20 pack on the bundled token, a bug
it finds there and `evmstate init --machine` are run by docs/properties.md and docs/scaffold.md.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run

from ..cli.helpers import invoke
from ..conftest import BACKENDS, REPO, copy_example, copy_project, warm_build

PACKS = REPO / "tests" / "projects" / "mutate_packs"
SNEKMATE = REPO / "tests" / "projects" / "snekmate"  # the same mocks: its build serves this project's


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_project(PACKS, tmp_path_factory.mktemp("packs"), warm=False)
    shutil.copytree(warm_build(SNEKMATE), root / ".evmstate" / "build")
    return root


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_pack_passes_on_snekmates_modules(packs, backend):
    config = config_mod.load(packs).replace(backend=config_mod.BackendConfig(name=backend, check=False, named=True))
    summary = run(config, RunOptions((str(packs / "machines" / "packs.py"),), overrides=Overrides(seed=3, max_examples=2, stateful_step_count=10)), lambda event: None)
    assert [r.name for r in summary.results] == ["ERC20PackMachine", "ERC721PackMachine", "ERC4626PackMachine"]
    for result in summary.results:
        assert result.status == "passed", (result.name, result.failure and result.failure.message, result.error)
        # the pack checked what it exists to check, not only empty state
        assert any(c.interesting for c in result.canaries.values()), (result.name, result.canaries)


def test_the_reverts_a_pack_asks_for_are_counted_as_expected(packs):
    """A pack's rule that sends what must revert (a transfer beyond the balance, a redeem of more shares than held) and
    sees it revert has its revert counted as expected, as reverts() counts one: the rule table's `expected` column, and
    no warning that most of its transactions reverted."""
    summary = run(config_mod.load(packs), RunOptions((str(packs / "machines" / "packs.py"),), overrides=Overrides(seed=3, max_examples=6, stateful_step_count=20)), lambda event: None)
    asking = {}
    for result in summary.results:
        assert result.status == "passed", (result.name, result.failure and result.failure.message, result.error)
        for name, s in result.rules.items():
            if ("beyond" in name or "reverts" in name) and s.transactions_reverted:
                asking[f"{result.name}.{name}"] = (s.transactions_reverted, s.reverts, s.unexpected_reverts)
                assert not s.mostly_reverted, (name, s)
    assert len(asking) >= 3, asking
    # every revert of those rules was the one asked for
    wrong = {name: counts for name, counts in asking.items() if counts[2] or counts[0] != counts[1]}
    assert not wrong, wrong


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "project")


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
