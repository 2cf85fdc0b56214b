"""Real code nobody here wrote: contracts built from snekmate's modules, imported from the installed
package (a test dependency), each with a machine that models what the module promises."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest

from evmstate import Project
from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import copy_project

PROJECT = Path(__file__).parent.parent / "projects" / "snekmate"
MOCKS = {
    "ERC20Mock": "snekmate/tokens/erc20.vy",
    "ERC721Mock": "snekmate/tokens/erc721.vy",
    "ERC1155Mock": "snekmate/tokens/erc1155.vy",
    "ERC4626Mock": "snekmate/extensions/erc4626.vy",
    "Ownable2StepMock": "snekmate/auth/ownable_2step.vy",
    "AccessControlMock": "snekmate/auth/access_control.vy",
    "TimelockControllerMock": "snekmate/governance/timelock_controller.vy",
}
MACHINES = [
    "erc20.py::ERC20Machine",
    "erc721.py::ERC721Machine",
    "erc1155.py::ERC1155Machine",
    "erc4626.py::ERC4626Machine",
    "auth.py::Ownable2StepMachine",
    "auth.py::AccessControlMachine",
    "timelock.py::TimelockMachine",
]


# machines calling views that are not read from storage: the cache answers them
CACHED = {"erc721.py::ERC721Machine", "erc1155.py::ERC1155Machine", "erc4626.py::ERC4626Machine", "timelock.py::TimelockMachine"}


@pytest.fixture(scope="module")
def snek(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project, compiled once for the module (the build cache is per folder)."""
    root = copy_project(PROJECT, tmp_path_factory.mktemp("snekmate-project"))
    # every answer of the call cache is checked against the call run again
    with open(root / "evmstate.toml", "a") as f:
        f.write('\n[fuzz]\ncall_cache = "check"\n')
    return root


def test_every_mock_compiles_from_the_installed_modules_and_deploys(snek):
    project = Project(config_mod.load(snek))
    assert not project.build.errors
    assert set(MOCKS) | {"Counter"} == set(project.build.artifacts)
    for name, module in MOCKS.items():
        inputs = project.build.artifacts[name].inputs
        assert any(path.replace("\\", "/").endswith(module) and "site-packages" in path for path in inputs), (name, sorted(inputs))
    a = project.accounts
    token = project.ERC20Mock.deploy("Token", "TKN", 1000, "Token", "1", {"from": a[0]})
    vault = project.ERC4626Mock.deploy("Vault", "VLT", token, 0, "Vault", "1", {"from": a[0]})
    assert vault.asset() == token and vault.decimals() == 18
    timelock = project.TimelockControllerMock.deploy(60, [a[1], a[2]], [a[3]], "0x" + "00" * 20, {"from": a[0]})
    assert timelock.hasRole(timelock.PROPOSER_ROLE(), a[2]) and not timelock.hasRole(timelock.DEFAULT_ADMIN_ROLE(), a[0])
    multi = project.ERC1155Mock.deploy("https://x.test/", {"from": a[0]})
    multi.safe_mint_batch(a[1], [0, 7, 14], [5, 6, 7], b"", {"from": a[0]})
    assert multi.balanceOfBatch([a[1], a[1], a[1], a[2]], [0, 7, 14, 7]) == [5, 6, 7, 0]


def search(snek: Path, machine: str, backend: str, max_examples: int | None = None):
    """The result of one search of the machine on the backend, seed 2 (max_examples: the project's budget when None)."""
    cfg = dataclasses.replace(config_mod.load(snek), backend=BackendConfig(name=backend))
    options = RunOptions((str(snek / "machines" / machine),), overrides=Overrides(seed=2, max_examples=max_examples))
    (result,) = run(cfg, options, lambda event: None).results
    assert result.status == "passed", result.failure and result.failure.message
    return result


# whether a search reaches every rule does not depend on the EVM: revm's searches cost a sixth of py-evm's
SEARCH_BACKEND = "revm" if importlib.util.find_spec("pyrevm") is not None else "pyevm"


@pytest.mark.quality  # a search of 40 runs per machine: whether it reaches every rule
@pytest.mark.parametrize("machine", MACHINES)
def test_machine_passes_and_every_rule_runs(snek, machine):
    # 40 runs of 15 steps: each run leaves a random subset of the rules out (swarm testing),
    # and in 10 or 20 a rule of nine may sit out every run that drew it (which runs a seed draws
    # also depends on the modules this process loaded: Hypothesis draws constants from them)
    result = search(snek, machine, SEARCH_BACKEND, max_examples=40)
    assert result.examples >= 40
    assert not result.never_run, f"rules that never ran: {result.never_run}"
    # the machine checks the module's behaviour, not only that calls revert
    assert any(s.calls > s.reverts for s in result.rules.values())


@pytest.mark.quality  # a search of 4 runs per machine, on py-evm with every answer checked
@pytest.mark.parametrize("machine", sorted(CACHED))
def test_the_cache_answers_views_that_are_not_getters_and_each_answer_is_checked(snek, machine):
    # py-evm's cache knows what a call read, so it keeps calls into code that can call other code
    # (each of these mocks can); revm's never keeps those. A wrong answer stops the run (internal error).
    # Four runs of the project's length: a few hundred calls, every one the cache answers checked (the
    # project's budget of ten cost erc1155 about 19 s of CPU)
    result = search(snek, machine, "pyevm", max_examples=4)
    assert result.examples >= 4
    assert result.statistics["call cache"].split()[0] != "0", result.statistics
