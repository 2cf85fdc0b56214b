"""Runs discarded when only 1 bundle value in 20 matches a filter: evmstate vs plain Hypothesis.

Run: python benchmarks/filtered_bundles.py
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import settings, strategies as st
from hypothesis.errors import StopTest
from hypothesis.stateful import Bundle as HBundle, RuleBasedStateMachine, rule as hrule, run_state_machine_as_test

from evmstate import Bundle, Project, StateMachine, rule
from evmstate.config import Config
from evmstate.spec import collect
from evmstate.engine.machine_run import run_machine
from evmstate.engine.settings import build_settings
from evmstate.runner import Overrides

EXAMPLES, STEPS = 200, 20


@dataclass
class Item:
    key: int


def plain_hypothesis() -> tuple[int, int, int]:
    counts = {"runs": 0, "discarded": 0, "used": 0}

    class Plain(RuleBasedStateMachine):
        items = HBundle("items")

        @hrule(target=items, key=st.integers(0, 19))
        def make(self, key):
            return Item(key)

        @hrule(item=items.filter(lambda i: i.key == 0))
        def use(self, item):
            counts["used"] += 1

        def teardown(self):
            counts["runs"] += 1
            # an unsatisfied Bundle.filter marks the example invalid, which aborts it with StopTest
            if sys.exc_info()[0] is StopTest:
                counts["discarded"] += 1

    run_state_machine_as_test(Plain, settings=settings(max_examples=EXAMPLES, stateful_step_count=STEPS, database=None, derandomize=True, deadline=None))
    return counts["runs"], counts["discarded"], counts["used"]


class Filtered(StateMachine):
    items = Bundle("items")

    @rule(target=items, key=st.integers(0, 19))
    def make(self, key):
        return Item(key)

    @rule(item=items.filter(lambda i: i.key == 0))
    def use(self, item):
        pass


def with_evmstate() -> tuple[int, int, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        project = Project(Config(root=Path(tmp)))
        spec = collect(Filtered)
        s, seed = build_settings(project.config.hypothesis, {"max_examples": EXAMPLES, "stateful_step_count": STEPS, "derandomize": True}, Overrides(), "Filtered")
        result = run_machine(spec, project, s, seed, lambda e: None)
        stats = result.statistics
        return result.runs, stats["rejected runs"], stats["aborted runs"], result.rules["use"].calls


def main() -> int:
    print(f"1 value in 20 matches the filter; {EXAMPLES} valid examples of {STEPS} steps wanted")
    runs, discarded, used = plain_hypothesis()
    print(f"plain Hypothesis Bundle.filter: {runs} runs, {discarded} discarded (aborted as invalid), filtered rule ran {used} times")
    runs, rejected, aborted, used = with_evmstate()
    print(
        f"evmstate bundle.filter:         {runs} runs, {rejected} discarded for an empty match, "
        f"{aborted} aborted by Hypothesis's own mutation replays (out of data, not filtering), filtered rule ran {used} times"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
