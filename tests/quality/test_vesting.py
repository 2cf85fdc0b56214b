"""A removable bundle prefix: a grant step draws six choices, more than Hypothesis's shrinker
deletes at once, so Hypothesis alone often leaves grants and revokes the failure does not need.
The step-deletion pass removes them: every seed reports the 3-step program."""

from pathlib import Path

import pytest

from ..conftest import copy_project
from .conftest import run_project

pytestmark = pytest.mark.quality
VESTING = Path(__file__).parent / "vesting"

MINIMAL = [
    "state = VestingMachine()",
    "active_0 = state.grant(beneficiary=accounts[0], amount=1, delay=0, cliff=0, duration=0)",
    "revoked_0 = state.revoke(grant=active_0)",
    "state.claim_revoked(grant=revoked_0)",
]


# four pinned seeds (ten before): each must report the 3-step program
@pytest.mark.parametrize("seed", range(4))
def test_the_pointless_prefix_is_removed_on_every_seed(tmp_path, seed):
    root = copy_project(VESTING, tmp_path / "vesting")  # compiled once for every seed
    summary, _ = run_project(root, "machines/vesting.py", seed=seed)
    (result,) = summary.results
    failure = result.failure
    assert failure.message == "Vesting.claim(0) succeeded where reverts('Revoked') expected a revert"
    assert failure.program == MINIMAL and failure.steps == 3
    shrink = failure.shrink
    assert shrink.steps == 3 and shrink.hypothesis_steps >= 3 and shrink.seconds > 0
    assert result.statistics["program steps"].endswith("3 reported")
