"""Deadlines a month and a year away: the bundled vesting grant (a one-year cliff) and the same
grant with a 30-day cliff are found with the default settings on every seed tried, and shrunk to
the minimal program, its wait the cliff itself. No rule moves the clock: the waits drawn between
steps reach the cliff on a log scale, or jump to the time the contract compares
block.timestamp with."""

import json
import sys

import pytest

from .. import zygote
from ..conftest import copy_example
from .conftest import FASTEST

pytestmark = pytest.mark.quality

SEEDS = range(5)

MONTH_CLIFF = """
from vesting import VestingMachine


class MonthCliffMachine(VestingMachine):
    cliff = 30 * 86400
"""

# a fresh process, as evmstate run would (Hypothesis draws constants from the modules loaded); one for both machines,
# the month's last: it imports the year's, so each search sees the constants of the same modules as in a process of
# its own
SEARCH = """
import json, shutil, sys
from pathlib import Path
from evmstate import config
from evmstate.config import BackendConfig
from evmstate.runner import Overrides, RunOptions, run

root, paths, seeds, backend = Path(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
sys.path.insert(0, str(root / "machines"))
out = {}
for path in paths:
    for seed in seeds:
        shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
        summary = run(config.load(root).replace(backend=BackendConfig(name=backend)), RunOptions((str(root / path),), overrides=Overrides(seed=seed)), lambda e: None)
        (r,) = summary.results
        f = r.failure
        out.setdefault(path, []).append({"seed": seed, "status": r.status, "program": f and f.program, "message": f and f.message})
print(json.dumps(out))
"""
MACHINES = [("machines/vesting.py", "VestingMachine", 365 * 86400), ("machines/month_cliff.py", "MonthCliffMachine", 30 * 86400)]


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    """What each machine's search found on each seed: {path: [result per seed]}."""
    root = copy_example(tmp_path_factory.mktemp("deadlines"))
    (root / "machines" / "month_cliff.py").write_text(MONTH_CLIFF)
    paths = [path for path, _, _ in MACHINES]
    # on revm: whether the waits reach a deadline does not depend on the EVM, and its ten searches cost less there
    done = zygote.run([sys.executable, "-c", SEARCH, str(root), json.dumps(paths), json.dumps(list(SEEDS)), FASTEST], cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(("path", "machine", "cliff"), MACHINES)
def test_a_release_after_the_cliff_is_found_on_every_seed_with_the_exact_wait(found, path, machine, cliff):
    assert [r["seed"] for r in found[path]] == list(SEEDS)
    for r in found[path]:
        assert r["status"] == "failed", f"{machine} not found with seed {r['seed']}"
        assert r["program"] == [f"state = {machine}()", "state.rule_grant()", f"chain.sleep({cliff})", "state.rule_release()"], r
        assert r["message"] == "released more than has vested"
