"""What evmstate saved before its modules moved into packages is still read the same way.

tests/projects/saved_before/state is the .evmstate folder of the bundled example project after
`evmstate run --seed 7`, made by the evmstate of the commit before the move: its failure records
and its example database (whose keys are a digest of the run loop's Hypothesis test function).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .helpers import invoke

SAVED = Path(__file__).resolve().parents[1] / "projects" / "saved_before" / "state"
DEPOSITER = "7158680340"  # machines/depositer.py::StateMachine, the 2-step Brownie bug


def test_a_saved_example_is_replayed_first_and_the_failure_keeps_its_id(example: Path):
    shutil.copytree(SAVED, example / ".evmstate", dirs_exist_ok=True)
    code, out = invoke("run", "machines/depositer.py", "--seed", "7", "-v")
    assert code == 1, out
    assert "replayed a saved example" in out
    assert "first failure at run: 1" in out
    assert f"evmstate replay {DEPOSITER}" in out
    assert sorted(p.stem for p in (example / ".evmstate" / "failures").glob("*.json")) == [DEPOSITER]


def test_a_failure_saved_before_replays(example: Path):
    shutil.copytree(SAVED, example / ".evmstate", dirs_exist_ok=True)
    code, out = invoke("replay", DEPOSITER)
    assert code == 1, out
    assert "still fails" in out
