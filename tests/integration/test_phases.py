"""Each phase of a machine or test timed into its statistics (`-v`, `--json`): the search, Hypothesis's
shrinking, evmstate's shrinking, the trace; as Hypothesis's own statistics time its phases."""

import re
import textwrap

from evmstate import config as config_mod
from evmstate.reports import to_json
from evmstate.runner import Overrides, RunOptions, run

MACHINES = """
from hypothesis import given, strategies as st


class Counter:
    def __init__(cls, chain):
        cls.chain = chain

    def setup(self):
        self.count = 0

    def rule_up(self):
        self.count += 1

    def invariant_below_three(self):
        assert self.count < 3, "three"


class Quiet:
    def rule_nothing(self):
        pass


@given(n=st.integers(0, 100))
def test_small(n):
    assert n < 50, "large"
"""


def test_every_phase_that_ran_is_timed_in_the_statistics(tmp_path):
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "phases.py").write_text(textwrap.dedent(MACHINES))
    (tmp_path / "evmstate.toml").write_text("")
    summary = run(config_mod.load(tmp_path), RunOptions((str(tmp_path / "machines" / "phases.py"),), overrides=Overrides(seed=0, max_examples=20)), lambda e: None)
    by_name = {r.name: r for r in summary.results}
    failed, passed, test = by_name["Counter"], by_name["Quiet"], by_name["test_small"]
    assert failed.status == "failed" and passed.status == "passed" and test.status == "failed"

    def phases(result):
        return {k: v for k, v in result.statistics.items() if k.endswith(" phase")}

    assert list(phases(failed)) == ["search phase", "shrink (Hypothesis) phase", "shrink (evmstate) phase", "trace phase"]
    assert list(phases(passed)) == ["search phase"]  # nothing failed: nothing to shrink or trace
    assert list(phases(test)) == ["search phase", "shrink (Hypothesis) phase", "trace phase"]
    for result in (failed, passed, test):
        assert all(re.fullmatch(r"\d+\.\d\ds", v) for v in phases(result).values()), result.statistics
    # the search is timed from its start to the first failure: within the machine's time
    assert float(phases(failed)["search phase"][:-1]) <= failed.elapsed
    # --json: the seconds, by phase
    shown = {r["name"]: r["phases"] for r in to_json(summary)["results"]}
    assert list(shown["Counter"]) == ["search", "shrink (Hypothesis)", "shrink (evmstate)", "trace"]
    assert shown["Counter"]["trace"] == round(failed.phases["trace"], 3) and f"{failed.phases['trace']:.2f}s" == failed.statistics["trace phase"]
