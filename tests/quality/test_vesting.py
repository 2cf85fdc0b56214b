"""A removable bundle prefix: a grant step draws six choices, more than Hypothesis's shrinker
deletes at once, so Hypothesis alone often leaves grants and revokes the failure does not need.
The step-deletion pass removes them: every seed reports the 3-step program."""

import shutil
from pathlib import Path

import pytest

from evmstate import Project
from evmstate import config as config_mod

from .conftest import run_project

pytestmark = pytest.mark.quality
VESTING = Path(__file__).parent / "vesting"

MINIMAL = [
    "state = VestingMachine()",
    "active_0 = state.grant(beneficiary=accounts[0], amount=1, delay=0, cliff=0, duration=0)",
    "revoked_0 = state.revoke(grant=active_0)",
    "state.claim_revoked(grant=revoked_0)",
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The vesting project, compiled once for every seed."""
    root = tmp_path_factory.mktemp("vesting")
    shutil.copytree(VESTING, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".evmstate"))
    Project(config_mod.load(root))
    return root


@pytest.mark.parametrize("seed", range(10))
def test_the_pointless_prefix_is_removed_on_every_seed(compiled, tmp_path, seed):
    root = tmp_path / "vesting"
    shutil.copytree(compiled, root, ignore=shutil.ignore_patterns("examples", "failures"))
    summary, _ = run_project(root, "machines/vesting.py", seed=seed)
    (result,) = summary.results
    failure = result.failure
    assert failure.message == "Vesting.claim(0) succeeded where reverts('Revoked') expected a revert"
    assert failure.program == MINIMAL and failure.steps == 3
    shrink = failure.shrink
    assert shrink.steps == 3 and shrink.hypothesis_steps >= 3 and shrink.seconds > 0
    assert result.statistics["program steps"].endswith("3 reported")
