"""ERC-4626 bug classes found in real vaults, each planted in a copy of a small correct vault and found by the
property pack alone at `evmstate run`'s defaults; and a scaffolded machine for every bundled contract and every
snekmate mock, run as written.

The vault is tests/projects/vault_bugs/contracts/Vault.vy; each bug is one line of it changed. The
machine of each copy is the pack and its adapter, nothing else. Shrinking is off: the point is
the search, and which property reports the bug.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, init, run

from evmstate.compiler.sources import compile_project

from ..conftest import BUILDS, REPO, SEARCH_ONLY, copy_example, copy_project, interprocess_lock, warm_build

pytestmark = pytest.mark.quality

VAULTS = REPO / "tests" / "projects" / "vault_bugs"
SNEKMATE = REPO / "tests" / "projects" / "snekmate"

# name: (the line as it is, as the bug has it, the properties that may report it)
BUGS = {
    "VaultMintsMore": (
        "    self._pull(assets)\n    self._mint(receiver, shares)\n    log Deposit(sender=msg.sender, owner=receiver, assets=assets, shares=shares)\n    return assets\n",
        "    self._pull(assets)\n    self._mint(receiver, self._to_shares(assets, True))\n    log Deposit(sender=msg.sender, owner=receiver, assets=assets, shares=shares)\n    return assets\n",
        {"rule_erc4626_mint_credits_exact_shares", "rule_erc4626_mint_then_withdraw_does_not_profit"},
    ),
    "VaultWithdrawPaysOther": (
        "    self._burn(owner, shares)\n    assert extcall IERC20(self.asset).transfer(receiver, assets, default_return_value=True)\n    log Withdraw(sender=msg.sender, receiver=receiver, owner=owner, assets=assets, shares=shares)\n    return shares\n",
        "    self._burn(owner, shares)\n    assert extcall IERC20(self.asset).transfer(receiver, self._to_assets(shares, False), default_return_value=True)\n    log Withdraw(sender=msg.sender, receiver=receiver, owner=owner, assets=assets, shares=shares)\n    return shares\n",
        {"rule_erc4626_withdraw_pays_exact_assets", "rule_erc4626_withdraw_within_max_succeeds", "rule_erc4626_withdraw_with_allowance_spends_it", "rule_erc4626_withdraw_then_mint_does_not_profit", "rule_erc4626_mint_then_withdraw_does_not_profit"},
    ),
    "VaultMaxWrongAccount": (
        "    assert assets <= self._max_withdraw(owner), ",
        "    assert assets <= self._max_withdraw(receiver), ",
        {"rule_erc4626_withdraw_within_max_succeeds", "rule_erc4626_withdraw_with_allowance_spends_it", "rule_erc4626_mint_then_withdraw_does_not_profit"},
    ),
    "VaultMaxIgnoresCap": (
        "    return self.cap - total\n",
        "    return max_value(uint256)\n",
        {"rule_erc4626_deposit_within_max_succeeds", "rule_erc4626_mint_within_max_succeeds"},
    ),
    "VaultInflatable": (
        "VIRTUAL: constant(uint256) = 1",
        "VIRTUAL: constant(uint256) = 0",
        {"initialize_erc4626_first_depositor_cannot_profit_from_a_donation", "rule_erc4626_deposit_then_redeem_does_not_profit", "rule_erc4626_redeem_then_deposit_does_not_profit"},
    ),
}
# maxDeposit still above zero once the owner shuts deposits: found by a scaffolded machine, whose rule calls shutdown()
SHUT = ("    if self.shut or total >= self.cap:\n", "    if total >= self.cap:\n")

MACHINE = """
class {name}Machine(ERC4626Properties):
    def __init__(cls, accounts, Asset, {name}):
        asset = Asset.deploy({{"from": accounts[0]}})
        cls.erc4626 = ERC4626Adapter({name}.deploy(asset, 2 * 10**24, {{"from": accounts[0]}}), accounts, asset=asset)
"""


def vaults(root: Path, bugs: dict[str, tuple[str, str]]) -> Path:
    """A copy of the vault project with a copy of the vault per bug, each bug one line changed, and the build of them all.

    The copies are compiled once into the tests' shared build folder (as conftest.warm_build does
    for the repository's projects): the build cache is keyed on content and root-relative paths.
    """
    source = (VAULTS / "contracts" / "Vault.vy").read_text()
    variants = {name: source.replace(line, bug) for name, (line, bug) in {**{n: (a, b) for n, (a, b, _) in BUGS.items()}, "VaultShutKeepsMax": SHUT}.items()}
    assert all(text != source for text in variants.values())
    shared = BUILDS / "vault-bugs"
    with interprocess_lock(BUILDS / "vault-bugs.lock"):
        copy_project(VAULTS, shared, warm=False)
        for name, text in variants.items():
            (shared / "contracts" / f"{name}.vy").write_text(text)
        (contracts, _), settings = config_mod.load(shared).compile_inputs()
        compile_project(contracts, shared / ".evmstate" / "build", **settings)
    copy_project(VAULTS, root, warm=False)
    shutil.copytree(shared / ".evmstate" / "build", root / ".evmstate" / "build")
    for name in bugs:
        (root / "contracts" / f"{name}.vy").write_text(variants[name])
    return root


def test_each_erc4626_bug_class_is_found_by_the_pack_alone_at_run_defaults(tmp_path):
    root = vaults(tmp_path / "vaults", {name: (line, bug) for name, (line, bug, _) in BUGS.items()})
    machines = ["from evmstate.properties import ERC4626Adapter, ERC4626Properties\n"] + [MACHINE.format(name=name) for name in BUGS]
    (root / "machines" / "bugs.py").write_text("".join(machines))
    summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "bugs.py"),), overrides=Overrides(seed=1, phases=SEARCH_ONLY)), lambda event: None)
    found = {r.name.removesuffix("Machine"): r for r in summary.results}
    assert set(found) == set(BUGS)
    for name, (_, _, properties) in BUGS.items():
        result = found[name]
        assert result.status == "failed", f"{name}: {result.status} after {result.examples} runs"
        reported = result.failure.program[-1].split("(")[0].removeprefix("state.")
        assert reported in properties, f"{name}: found by {reported}: {result.failure.message}"
        assert 'EIP-4626, ' in result.failure.message


def test_the_scaffold_and_its_pack_find_max_deposit_above_zero_after_a_shutdown(tmp_path):
    root = vaults(tmp_path / "vaults", {"VaultShutKeepsMax": SHUT})
    written, _ = init(root, machine="VaultShutKeepsMax")
    text = written[0].read_text()
    assert "class VaultShutKeepsMaxMachine(ERC4626Properties):" in text and "def rule_shutdown(self, sender=" in text
    assert "if not (sender == self.vault_shut_keeps_max.owner()):" in text  # from the source: only the owner shuts it
    config = config_mod.load(root)
    config = config.replace(backend=config_mod.BackendConfig(name="revm", check=False, named=True))
    summary = run(config, RunOptions((str(written[0]),), overrides=Overrides(seed=1, phases=SEARCH_ONLY)), lambda event: None)
    (result,) = summary.results
    assert result.status == "failed"
    assert "state.rule_shutdown(sender=accounts[0])" in result.failure.program, result.failure.program
    assert "reverted though" in result.failure.message and "'shut'" in result.failure.message


def scaffold_all(root: Path, names: list[str]) -> list[Path]:
    shutil.rmtree(root / "machines")
    return [init(root, machine=name)[0][0] for name in names]


def test_a_scaffolded_machine_runs_unedited_on_every_bundled_contract(tmp_path: Path):
    root = copy_example(tmp_path / "example")
    names = sorted(p.stem for p in (REPO / "contracts").glob("*.vy"))
    written = scaffold_all(root, names)
    summary = run(config_mod.load(root), RunOptions(tuple(map(str, written)), overrides=Overrides(seed=1, max_examples=3, stateful_step_count=8, phases=SEARCH_ONLY)), lambda event: None)
    assert len(summary.results) == len(names)
    # the bundled contracts hide bugs on purpose: a machine may find one, none may be an error
    assert not summary.load_errors and all(r.status in ("passed", "failed") for r in summary.results), [(r.name, r.error) for r in summary.results if r.status == "error"]
    assert {r.name for r in summary.results if r.status == "passed"} >= {"TokenMachine", "ClaimsMachine"}


def test_a_scaffolded_machine_passes_on_every_snekmate_mock(tmp_path: Path):
    root = copy_project(SNEKMATE, tmp_path / "snekmate", warm=False)
    shutil.copytree(warm_build(SNEKMATE), root / ".evmstate" / "build")
    names = ["ERC20Mock", "ERC721Mock", "ERC4626Mock", "ERC1155Mock", "Ownable2StepMock", "AccessControlMock"]
    written = scaffold_all(root, names)
    summary = run(config_mod.load(root), RunOptions(tuple(map(str, written)), overrides=Overrides(seed=1, max_examples=2, stateful_step_count=8)), lambda event: None)
    assert [(r.name, r.status) for r in summary.results] == [(f"{n}Machine", "passed") for n in names], [(r.name, r.failure and r.failure.message, r.error) for r in summary.results]
