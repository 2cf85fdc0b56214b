"""Differential runs (--differential): one machine against two builds in lockstep, on the real compiler and
both backends. What a divergence reports, what is told apart, what is expected, and what is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.errors import ConfigError
from evmstate.failures import FailureStore
from evmstate.engine.replay import replay
from evmstate.runner import Overrides, RunOptions, run, with_differential

from ..cli.helpers import invoke

from ..conftest import SEARCH_ONLY

HERE = Path(__file__).parent
PROJECT = HERE.parent / "projects" / "differential"

MACHINE = '''
from evmstate import reverts, strategy


class PairMachine:
    value = strategy("uint256", max_value=20)

    def __init__(cls, accounts, Pair):
        cls.pair = Pair.deploy({"from": accounts[0]})

    def rule_set(self, value):
        try:
            self.pair.set(value)  # noqa
        except Exception:
            pass  # a machine that swallows what a call raises: the divergence is raised again after the step

    def rule_check(self, value):
        with reverts():
            self.pair.check(value + 100)
'''
PAIR = '''
x: public(uint256)
hidden: uint256

@external
def set(v: uint256) -> uint256:
    self.x = v
    self.hidden = v{hidden}
    return self.x

@external
def check(v: uint256):
    assert v < 10, "{reason}"
'''


def project(root: Path, old: str, new: str, toml: str = "") -> Path:
    """A project whose contracts/ holds new and contracts_v1/ old, with PairMachine; Hypothesis's shrinking off."""
    for folder, text in (("contracts", new), ("contracts_v1", old)):
        (root / folder).mkdir(parents=True)
        (root / folder / "Pair.vy").write_text(text)
    (root / "machines").mkdir()
    (root / "machines" / "pair.py").write_text(MACHINE)
    (root / "evmstate.toml").write_text(f"[hypothesis]\nmax_examples = 10\nstateful_step_count = 6\nphases = {json.dumps(SEARCH_ONLY)}\n{toml}")
    return root


def ran(root: Path, mode: str = "sources:contracts_v1:", backend: str = "pyevm", **overrides):
    config = with_differential(config_mod.load(root), mode)
    config = config.replace(backend=config_mod.BackendConfig(name=backend))
    events: list = []
    summary = run(config, RunOptions((), overrides=Overrides(seed=0, **overrides)), events.append)
    return summary, [r for r in summary.results]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The planted upgrade, copied and compiled once for the tests of this module."""
    root = tmp_path_factory.mktemp("differential") / "planted"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns(".evmstate"))
    toml = root / "evmstate.toml"
    toml.write_text(toml.read_text().replace("[hypothesis]\n", f"[hypothesis]\nphases = {json.dumps(SEARCH_ONLY)}\n"))
    return root


def test_a_planted_rounding_divergence_is_found_reported_with_both_sides_saved_and_replayed(planted):
    # on revm here; on py-evm through the command line below
    summary, (result,) = ran(planted, backend="revm")
    assert summary.exit_code == 1 and result.status == "failed"
    failure = result.failure
    assert failure.error_type == "BuildsDiverged"
    assert failure.revert_reason == "Vault.previewRedeem: return data"
    head, a, b = failure.message.splitlines()[:3]
    assert head.startswith("Vault.previewRedeem(") and head.endswith("(a call): build B (new (contracts/)) diverged from build A (old (contracts_v1/)) in its return data")
    assert a.startswith("  A (old (contracts_v1/)): returned ") and b.startswith("  B (new (contracts/)): returned ")
    assert int(b.rsplit(" ", 1)[1]) == int(a.rsplit(" ", 1)[1]) + 1  # rounded up on the new side
    assert failure.location.endswith("machines/vault.py:38 in rule_preview\n    self.vault.previewRedeem(shares)"), failure.location
    record = FailureStore(planted / ".evmstate" / "failures").load(result.failure_id)
    assert record.settings["differential"]["mode"] == "sources:contracts_v1:"
    # replayed as it was found, whatever [differential] says now (nothing): the record keeps the mode
    again = replay(config_mod.load(planted), record, lambda _: None)
    assert again.verdict == "still fails" and not again.changed, again


def test_without_the_differential_mode_the_same_machine_passes(planted):
    events: list = []
    summary = run(config_mod.load(planted), RunOptions((), overrides=Overrides(seed=0, max_examples=5, fresh=True)), events.append)
    assert summary.exit_code == 0, summary.results


def test_a_divergence_the_machine_swallows_is_raised_after_its_step(tmp_path):
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), PAIR.format(hidden="", reason="low").replace("self.x = v", "self.x = v + 1"))
    summary, (result,) = ran(root)
    assert result.status == "failed" and result.failure.error_type == "BuildsDiverged", result.error
    assert result.failure.revert_reason == "Pair.set: return data", result.failure.revert_reason
    assert result.failure.location.endswith("in rule_set\n    self.pair.set(v)") or "rule_set" in result.failure.location, result.failure.location


LOGGER = """# pragma version ~=0.4.0
event Paid:
    to: indexed(address)
    amount: uint256


@external
def pay(to: address):
    log Paid(to=to, amount={amount})
"""


def test_a_divergence_in_logs_names_the_accounts_and_shows_each_sides_logs_once(tmp_path):
    from evmstate import BuildsDiverged, Project

    for folder, amount in (("contracts", 2), ("contracts_v1", 1)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "Logger.vy").write_text(LOGGER.format(amount=amount))
    (tmp_path / "evmstate.toml").write_text("")
    project = Project(with_differential(config_mod.load(tmp_path), "sources:contracts_v1:"))
    accounts = project.accounts
    logger = project.Logger.deploy()
    with pytest.raises(BuildsDiverged) as caught:
        logger.pay(accounts[1], {"from": accounts[2]})
    head, a, b, *rest = str(caught.value).splitlines()
    assert head.startswith("Logger.pay(accounts[1]) from accounts[2] (a transaction): build B"), head
    assert a.endswith("logs Paid(to=accounts[1], amount=1)") and b.endswith("logs Paid(to=accounts[1], amount=2)"), (a, b)
    assert not [line for line in rest if line.startswith("  logs:")], rest  # the raw topics and data: not again


def test_a_different_revert_reason_is_told_apart_unless_asked_for(tmp_path):
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), PAIR.format(hidden="", reason="too low"))
    summary, (result,) = ran(root)
    assert summary.exit_code == 0, result.failure
    ((what, count, ours, theirs),) = result.differential["apart"]
    assert what == "Pair.check: revert reason" and count > 0
    assert ours.startswith("revert: 0x08c379a0") and ours != theirs
    (root / "evmstate.toml").write_text((root / "evmstate.toml").read_text() + "\n[differential]\nrevert_reasons = true\n")
    summary, (result,) = ran(root)
    assert summary.exit_code == 1 and result.failure.revert_reason == "Pair.check: revert reason"
    assert "A (old (contracts_v1/)): reverted: 'low'" in result.failure.message and "B (new (contracts/)): reverted: 'too low'" in result.failure.message


def test_storage_is_compared_only_when_asked_and_a_declared_difference_is_not_reported(tmp_path):
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), PAIR.format(hidden=" + 1", reason="low"))
    summary, (result,) = ran(root)
    assert summary.exit_code == 0  # the hidden variable has no getter: nothing a call returns differs
    (root / "evmstate.toml").write_text((root / "evmstate.toml").read_text() + "\n[differential]\nstorage = true\ngas = true\n")
    summary, (result,) = ran(root)
    assert summary.exit_code == 1 and result.failure.revert_reason == "Pair.set: storage of", result.failure.revert_reason
    assert "storage of 0x" in result.failure.message and "slot 1: " in result.failure.message
    (root / "evmstate.toml").write_text((root / "evmstate.toml").read_text() + 'expected = [{ function = "Pair.set", aspect = "storage" }]\n')
    summary, (result,) = ran(root)
    assert summary.exit_code == 0, result.failure
    assert list(result.differential["expected"]) and all(k.startswith("Pair.set: storage of 0x") for k in result.differential["expected"])
    calls, on_a, on_b = result.differential["gas"]["Pair.set"]
    assert calls > 0 and on_a > 0 and on_b > 0


def test_storage_comparison_is_refused_where_the_layouts_differ(tmp_path):
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), "extra: uint256\n" + PAIR.format(hidden="", reason="low"), "\n[differential]\nstorage = true\n")
    with pytest.raises(ConfigError, match="Pair's storage layout differs between old .contracts_v1/. and new .contracts/."):
        ran(root)


def test_codegen_builds_each_contract_both_ways_and_finds_nothing_in_agreeing_code(tmp_path):
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), PAIR.format(hidden="", reason="low"), "\n[differential]\ngas = true\n")
    summary, (result,) = ran(root, mode="codegen")
    assert summary.exit_code == 0, result.failure
    assert result.differential["labels"] == ["legacy", "venom"]
    assert set(result.differential["gas"]) == {"Pair.deploy", "Pair.set", "Pair.check"}


def test_a_constructor_that_differs_is_a_failure_not_an_error(tmp_path):
    reverting = "@deploy\ndef __init__():\n    assert block.number == 0, \"not at genesis\"\n" + PAIR.format(hidden="", reason="low")
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), reverting)
    summary, (result,) = ran(root)
    assert summary.exit_code == 1 and result.status == "failed", result.error
    assert result.failure.revert_reason == "Pair.deploy: success" and result.failure.steps == 0
    assert "B (new (contracts/)): reverted: 'not at genesis'" in result.failure.message


def test_a_contract_only_one_side_has_is_an_error_of_whoever_asks_for_it(tmp_path):
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), PAIR.format(hidden="", reason="low"))
    (root / "contracts" / "Pair.vy").rename(root / "contracts" / "Other.vy")
    summary, (result,) = ran(root)
    assert summary.exit_code == 2 and result.status == "error"
    assert "side B (new (contracts/)) of the differential run has no contract 'Pair', which side A (old (contracts_v1/)) has" in result.error, result.error


def test_sources_from_a_git_revision(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = project(tmp_path, PAIR.format(hidden="", reason="low"), PAIR.format(hidden="", reason="low"))
    shutil.rmtree(root / "contracts_v1")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    subprocess.run([*git, "tag", "v1"], check=True)
    (root / "contracts" / "Pair.vy").write_text(PAIR.format(hidden="", reason="low").replace("self.x = v", "self.x = v * 2"))
    summary, (result,) = ran(root, mode="sources:v1:")
    assert summary.exit_code == 1 and result.failure.error_type == "BuildsDiverged"
    assert "build B (new (contracts/)) diverged from build A (old (git v1))" in result.failure.message
    assert (root / ".evmstate" / "differential").is_dir()
    with pytest.raises(ConfigError, match="'nope' is neither a folder .* nor a git revision"):
        ran(root, mode="sources:nope:")


@pytest.mark.parametrize("mode, said", [
    ("sorces:a:b", "is not a differential mode; use codegen"),
    ("compiler:0.4.3", "compiler takes two"),
    ("compiler:0.4.3,0.4.3", "the same release twice"),
    ("sources:x", "sources takes an old and a new folder"),
])
def test_a_bad_mode_is_refused_at_the_command_line(planted, monkeypatch, mode, said):
    monkeypatch.chdir(planted)
    code, output = invoke("run", "--differential", mode)
    assert code == 2, output
    assert said in output and "Traceback" not in output


def test_the_command_line_runs_a_differential_run(planted, monkeypatch):
    monkeypatch.chdir(planted)
    monkeypatch.setenv("NO_COLOR", "1")
    code, output = invoke("run", "--differential", "sources:contracts_v1:", "--backend", "pyevm", "--seed", "0", "--fresh")
    assert code == 1, output
    assert "differential: every call runs on build A (old (contracts_v1/)) and build B (new (contracts/)); the machines see A's results" in output
    assert "BuildsDiverged: Vault.previewRedeem(" in output
    assert "\n  A (old (contracts_v1/)): returned " in output and "\n  B (new (contracts/)): returned " in output
