"""The scaffold on real contracts: a machine for every bundled contract and every snekmate mock, run as
written, and a scaffolded machine with its pack finding maxDeposit above zero after a shutdown, a bug
planted in a copy of a small correct vault.

The vault is tests/projects/vault_bugs/contracts/Vault.vy, its bug classes in bugs.py beside it,
each one line of it changed. Whether the ERC-4626 pack alone finds each class at `evmstate run`'s
defaults is benchmarks/packs.py --bugs's to measure (a search's power, over seeds). Shrinking is
off here: the point is the search, and which property reports the bug.
"""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, init, run

from evmstate.compiler.sources import compile_project

from ..conftest import BUILDS, FASTEST, REPO, SEARCH_ONLY, copy_example, copy_project, interprocess_lock, warm_build

pytestmark = pytest.mark.quality

VAULTS = REPO / "tests" / "projects" / "vault_bugs"
SNEKMATE = REPO / "tests" / "projects" / "snekmate"

BUGS = runpy.run_path(str(VAULTS / "bugs.py"))  # the bug classes, each one line of the vault changed


def vaults(root: Path, bugs: list[str]) -> Path:
    """A copy of the vault project with a copy of the vault per bug, each bug one line changed, and the build of them.

    The copies are compiled once into the tests' shared build folder (as conftest.warm_build does
    for the repository's projects): the build cache is keyed on content and root-relative paths.
    Only the bugs asked for are compiled (each variant is a whole vault to compile).
    """
    variants = BUGS["variants"]((VAULTS / "contracts" / "Vault.vy").read_text())
    shared = BUILDS / "vault-bugs"
    with interprocess_lock(BUILDS / "vault-bugs.lock"):
        shutil.rmtree(shared / "contracts", ignore_errors=True)  # the variants an earlier call asked for
        copy_project(VAULTS, shared, warm=False)
        for name in bugs:
            (shared / "contracts" / f"{name}.vy").write_text(variants[name])
        (contracts, _), settings = config_mod.load(shared).compile_inputs()
        compile_project(contracts, shared / ".evmstate" / "build", **settings)
    copy_project(VAULTS, root, warm=False)
    shutil.copytree(shared / ".evmstate" / "build", root / ".evmstate" / "build")
    for name in bugs:
        (root / "contracts" / f"{name}.vy").write_text(variants[name])
    return root


def test_the_scaffold_and_its_pack_find_max_deposit_above_zero_after_a_shutdown(tmp_path):
    root = vaults(tmp_path / "vaults", ["VaultShutKeepsMax"])
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
    # on revm, where the runs cost less: whether a scaffold runs unedited does not depend on the EVM
    config = config_mod.load(root).replace(backend=config_mod.BackendConfig(name=FASTEST))
    summary = run(config, RunOptions(tuple(map(str, written)), overrides=Overrides(seed=1, max_examples=3, stateful_step_count=8, phases=SEARCH_ONLY)), lambda event: None)
    assert len(summary.results) == len(names)
    # the bundled contracts hide bugs on purpose: a machine may find one, none may be an error
    assert not summary.load_errors and all(r.status in ("passed", "failed") for r in summary.results), [(r.name, r.error) for r in summary.results if r.status == "error"]
    assert {r.name for r in summary.results if r.status == "passed"} >= {"TokenMachine", "ClaimsMachine"}


def test_a_scaffolded_machine_passes_on_every_snekmate_mock(tmp_path: Path):
    root = copy_project(SNEKMATE, tmp_path / "snekmate", warm=False)
    shutil.copytree(warm_build(SNEKMATE), root / ".evmstate" / "build")
    names = ["ERC20Mock", "ERC721Mock", "ERC4626Mock", "ERC1155Mock", "Ownable2StepMock", "AccessControlMock", "TimelockControllerMock"]
    written = scaffold_all(root, names)
    config = config_mod.load(root).replace(backend=config_mod.BackendConfig(name=FASTEST))  # as above
    summary = run(config, RunOptions(tuple(map(str, written)), overrides=Overrides(seed=1, max_examples=2, stateful_step_count=8)), lambda event: None)
    assert [(r.name, r.status) for r in summary.results] == [(f"{n}Machine", "passed") for n in names], [(r.name, r.failure and r.failure.message, r.error) for r in summary.results]
