"""Progress beyond new branches, and comparison operands: the two examples that need them.

machines/puzzle.py: five levels, each solved by about one nonce in 256, all through the same
`if`; solving one reaches no new branch. machines/sale.py: a quote must equal a price the
contract computes from a stored one and holds only on the stack. Each is found and shrunk to its
minimal program; with its signal off, the same search does not find it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from eth_utils import keccak

from evmstate.search.feedback import ENVIRONMENT

from ..conftest import copy_example

pytestmark = pytest.mark.quality

# in a fresh process per search, as `evmstate run` runs (Hypothesis draws some values from the
# constants of every module the process loaded)
SEARCH = """
import json, shutil, sys
from pathlib import Path
from evmstate import config
from evmstate.runner import Overrides, RunOptions, run

root, example, seed, max_examples = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)  # search; do not replay a saved failure
summary = run(config.load(root), RunOptions((str(root / "machines" / f"{example}.py"),), overrides=Overrides(seed=seed, max_examples=max_examples), save_failures=False), lambda e: None)
(r,) = summary.results
print(json.dumps({"status": r.status, "examples": r.examples, "program": r.failure.program if r.failure else None, "progress": r.statistics.get("progress")}))
"""


def search(root: Path, example: str, seed: int, max_examples: int | None = None, signals: str | None = None) -> dict:
    env = None if signals is None else {**os.environ, ENVIRONMENT: signals}
    done = subprocess.run([sys.executable, "-c", SEARCH, str(root), example, str(seed), json.dumps(max_examples)], capture_output=True, text=True, cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def example_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_example(tmp_path_factory.mktemp("feedback"))


def test_a_price_computed_on_the_stack_is_drawn_from_the_comparison(example_root):
    found = search(example_root, "sale", seed=0)
    assert found["status"] == "failed", found
    assert found["program"] == ["state = SaleMachine()", "state.rule_set_price(price=1000000)", "state.rule_buy(quote=1003000)"]
    # the same search without comparison operands: the price is nowhere else to be drawn
    blind = search(example_root, "sale", seed=0, signals="counts,storage")
    assert blind["status"] == "passed" and blind["examples"] == 50, blind
    assert blind["progress"].endswith(" 0 comparison operands")


def solves(level: int, nonce: int) -> bool:
    """What Puzzle.solve checks: the hash of the level and the nonce below 2**248."""
    return int.from_bytes(keccak(level.to_bytes(32, "big") + nonce.to_bytes(32, "big")), "big") < 2**248


def test_levels_passed_through_one_branch_are_climbed(example_root):
    # a campaign's budget (evmstate fuzz runs shards of many runs); the machine keeps the defaults
    found = search(example_root, "puzzle", seed=1, max_examples=300)
    assert found["status"] == "failed", found
    head, *steps = found["program"]
    assert head == "state = PuzzleMachine()" and len(steps) == 5, found["program"]
    # the minimal program: one solving nonce per level, the five levels in order (the nonces are
    # where Hypothesis's shrinker stops: any nonce that solves its level is as short)
    nonces = [int(step.removeprefix("state.rule_solve(nonce=").removesuffix(")")) for step in steps]
    assert all(solves(level, nonce) for level, nonce in enumerate(nonces)), nonces
    assert "0 new stored values" not in found["progress"]
