"""The four search-power examples: each bug is found with the default settings on a pinned seed
and printed as its minimal program; the reported program replays without the dictionary."""

import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.failures import FailureStore
from evmstate.engine.replay import replay
from evmstate.reports import failure_text

from ..conftest import copy_example
from .conftest import FASTEST, run_project, search

pytestmark = pytest.mark.quality

# one seed, pinned, for each example: how many seeds find each (seeds 0 to 4 find each of them but the
# ladder, which seeds 0 and 2 to 7 find in its 300 runs, not 1) is benchmarks/search.py's figure, not
# this test's; on seed 2 the inbox is shrunk to 3 steps (its derived address cannot follow a change of
# the account that opened it)
SEEDS = (0,)

PROGRAMS = {
    "fee_vault": """\
Falsifying example (1 step):
state = FeeVaultMachine()
state.rule_set_fee(fee=84843314297726)""",
    "claims": """\
Falsifying example (3 steps):
state = ClaimsMachine()
state.rule_register()
state.rule_claim(code=98089824643083573293214571647689440406858891577231276115043090024928635288419)
state.rule_claim(code=98089824643083573293214571647689440406858891577231276115043090024928635288419)""",
    "inbox": """\
Falsifying example (2 steps):
state = InboxMachine()
state.rule_open_inbox(who=accounts[0])
state.rule_send(who=accounts[0], to='0xd13311AED2C5bF3621611c3C77C14B7DCf13B64F', amount=1)""",
    "ladder": """\
Falsifying example (4 steps):
state = LadderMachine()
state.rule_climb(x=86)
state.rule_climb(x=75)
state.rule_climb(x=22)
state.rule_climb(x=27)""",
}


@pytest.fixture(scope="module")
def example_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the bundled project for the module: compiled once."""
    return copy_example(tmp_path_factory.mktemp("search-power"))


@pytest.mark.parametrize("example", sorted(PROGRAMS))
def test_found_on_a_pinned_seed_and_shrunk_to_the_minimal_program(example_root, example):
    results = search(example_root, f"machines/{example}.py", SEEDS)
    expected = PROGRAMS[example].splitlines()[1:]
    for r in results:
        assert r["status"] == "failed", f"{example} not found with seed {r['seed']}"
        assert r["program"] == expected, f"{example}, seed {r['seed']}: " + "\n".join(r["program"])
    # the record holds concrete values: `evmstate replay` with the dictionary and guidance off fails alike
    last = results[-1]
    toml = example_root / "evmstate.toml"
    original = toml.read_text()
    try:
        toml.write_text(original + "\n[fuzz]\ndictionary_weight = 0\nguidance = false\n")
        cfg = config_mod.load(example_root)
        record = FailureStore(cfg.state_dir / "failures").load(last["id"])
        replayed = replay(cfg, record, lambda event: None)
    finally:
        toml.write_text(original)
    assert (replayed.verdict, replayed.error_type) == ("still fails", last["error_type"])
    # with guidance on, the example database still replays the saved failure first
    again, _ = run_project(example_root, f"machines/{example}.py", seed=1000)
    (second,) = again.results
    assert second.failure.shrink.replayed and second.failure.program == expected
    assert PROGRAMS[example] + "\n" in failure_text(second.failure)


def test_a_seed_reproduces_a_guided_run_exactly(example_root):
    runs = []
    for _ in range(2):
        shutil.rmtree(example_root / ".evmstate" / "examples", ignore_errors=True)
        # 20 runs: seed 1's guidance has by then extended a kept run a dozen times, each of which the second run must repeat
        # on revm, where the runs cost less: a guided run repeats its seed whatever the EVM
        summary, events = run_project(example_root, "machines/ladder.py", seed=1, max_examples=20, backend=FASTEST)
        (result,) = summary.results
        stats = {k: v for k, v in result.statistics.items() if "after" not in k and "time" not in k and not k.endswith(" phase")}
        runs.append((result.status, result.examples, result.steps, stats, [e.branches for e in events if type(e).__name__ == "ExampleFinished"]))
    assert runs[0] == runs[1]
    _, _, _, stats, branches = runs[0]
    assert int(stats["guided runs"].split()[0]) > 0, "runs extended a kept one"  # guidance did something
    assert branches[-1] == stats["branches reached"] > 0
