"""Optimization: optimize methods read after every step, the best value kept with the shortest program reaching it,
saved as a record that replays to the same value; errors in an optimize method are errors of the machine."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.engine.events import ExitCode, ReplayResult
from evmstate.errors import MachineDefinitionError, UsageError
from evmstate.failures import FailureStore
from evmstate.reports import to_json
from evmstate.runner import Overrides, RunOptions, replay, run, shrink
from evmstate.spec import collect

# no contracts: a sum that steps add to, capped; its known maximum 1000 needs four adds of a uint8 or more
CLIMB = """
from evmstate import strategy

class Climb:
    x = strategy("uint8")

    def setup(self):
        self.total = 0

    def rule_add(self, x):
        self.total += x

    def rule_reset(self):
        self.total = 0

    def optimize_total(self):
        return min(self.total, 1000)
"""


def _run(root: Path, source: str, *, save: bool = False, **overrides):
    (root / "machines").mkdir(exist_ok=True)
    (root / "machines" / "m.py").write_text(textwrap.dedent(source))
    (root / "evmstate.toml").write_text("")
    options = RunOptions(overrides=Overrides(seed=overrides.pop("seed", 1), fresh=True, **overrides), save_failures=save)
    summary = run(config_mod.load(root), options, lambda e: None)
    (result,) = summary.results
    return summary, result


@pytest.fixture(scope="module")
def climbed(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("climb")
    summary, result = _run(root, CLIMB, save=True, max_examples=40, stateful_step_count=20)
    return root, summary, result


def test_the_best_value_is_the_known_maximum_reached_by_the_shortest_program(climbed):
    _, summary, result = climbed
    assert result.status == "passed" and summary.exit_code == ExitCode.OK  # an optimization is not a failure
    (best,) = result.optima
    assert best.name == "optimize_total" and best.value == 1000
    # four adds of at most 255 each are the fewest that reach 1000; no reset, nothing else
    assert [s.rule for s in best.recorded] == ["rule_add"] * 4
    assert sum(s.arguments["x"] for s in best.recorded) >= 1000
    assert best.program[0] == "state = Climb()" and len(best.program) == 5


def test_the_best_value_is_saved_and_replays_to_the_same_value(climbed):
    root, _, result = climbed
    (best,) = result.optima
    config = config_mod.load(root)
    record = FailureStore.of(config).load(best.record_id)
    assert record.optimum == ("optimize_total", 1000) and len(record.steps) == 4
    steps: list = []
    replayed = replay(config, best.record_id, steps.append)
    assert replayed == ReplayResult("reaches", changed=[], value=1000, saved=1000) and replayed.exit_code == ExitCode.OK
    with pytest.raises(UsageError, match="not a failure"):
        shrink(config, best.record_id, lambda e: None)


def test_the_json_report_has_each_best_value(climbed):
    _, summary, result = climbed
    (reported,) = json.loads(json.dumps(to_json(summary)))["results"][0]["optima"]
    assert reported["name"] == "optimize_total" and reported["value"] == 1000 and reported["steps"] == 4
    assert reported["record_id"] == result.optima[0].record_id and reported["program"] == list(result.optima[0].program)


def test_a_higher_value_replaces_the_saved_record_and_a_lower_one_does_not(climbed, tmp_path):
    root, _, result = climbed
    store = FailureStore.of(config_mod.load(root))
    record = store.load(result.optima[0].record_id)
    other = FailureStore(tmp_path)
    lower = type(record).from_dict({**record.to_dict(), "error": {**record.error, "value": 999}, "steps": record.steps[:1]}, where="-")
    assert other.keep(record).optimum == ("optimize_total", 1000)
    assert other.keep(lower).optimum == ("optimize_total", 1000)  # shorter, but lower: the higher one stays
    higher = type(record).from_dict({**record.to_dict(), "error": {**record.error, "value": 1001}}, where="-")
    assert other.keep(higher).optimum == ("optimize_total", 1001) and other.ids() == [record.id]


def test_a_revert_gives_no_value_and_other_errors_stop_the_machine(tmp_path):
    reverting = CLIMB.replace("return min(self.total, 1000)", "from evmstate import TransactionReverted\n        if self.total % 2:\n            raise TransactionReverted('odd')\n        return min(self.total, 1000)")
    _, result = _run(tmp_path, reverting, max_examples=5, stateful_step_count=5)
    assert result.status == "passed" and result.optima and all(b.value % 2 == 0 for b in result.optima)
    summary, result = _run(tmp_path, CLIMB.replace("return min(self.total, 1000)", "return str(self.total)"), max_examples=3, stateful_step_count=3)
    assert result.status == "error" and result.broken and summary.exit_code == ExitCode.USAGE_ERROR
    assert "Climb.optimize_total returned '" in result.error and "as an int" in result.error
    summary, result = _run(tmp_path, CLIMB.replace("return min(self.total, 1000)", "raise ValueError('no price')"), max_examples=3, stateful_step_count=3)
    assert result.status == "error" and summary.exit_code == ExitCode.USAGE_ERROR
    assert "Climb.optimize_total raised ValueError: no price" in result.error and "nothing is saved" in result.error


def test_optimize_methods_are_found_by_name_and_by_decorator():
    from evmstate import StateMachine, optimize, rule, strategy

    class Named:
        def rule_a(self):
            pass

        def optimize_x(self):
            return 1

        def optimise_y(self):
            return 2

    class Decorated(StateMachine):
        @rule(x=strategy("uint8"))
        def a(self, x):
            pass

        @optimize
        def biggest(self):
            return 1

    named = collect(Named)
    assert [m.name for m in named.optimizers] == ["optimize_x"] and not named.invariants
    assert any("optimise_y looks like 'optimize_' misspelt" in w for w in named.warnings)
    assert [m.name for m in collect(Decorated).optimizers] == ["biggest"]
    with pytest.raises(MachineDefinitionError, match="an optimize method takes only self"):
        collect(type("Bad", (), {"rule_a": lambda self: None, "optimize_x": lambda self, y: y}))


def test_a_step_that_raised_the_best_queues_runs_that_change_it_and_replace_those_of_a_lower_best():
    from evmstate.search.guidance import CLIMBS, Guide

    rule, wide = {"min_value": 0, "max_value": 3}, {"min_value": 0, "max_value": 2**256 - 1}
    # three steps of (a rule's index, its number); the first and the third raised the best
    record = [("integer", rule, 2), ("integer", wide, 7), ("integer", rule, 1), ("integer", wide, 9),
              ("integer", rule, 2), ("integer", wide, 40)]

    class Provider:
        replayed = 0

        def __init__(self, record):
            self.record = record

    def run(guide, record, raising):
        guide.begin(Provider(record), [])  # type: ignore[arg-type]
        for start in range(0, len(record), 2):
            guide.current.record = record[: start]  # type: ignore[union-attr]
            guide.step_started()
            guide.current.record = record[: start + 2]  # type: ignore[union-attr]
            if start // 2 in raising:
                guide.raised()
        guide.run_finished()

    guide = Guide(seed=1)
    run(guide, record, {0, 2})
    climbs = list(guide.climbs)
    assert guide.corpus and 0 < len(climbs) <= CLIMBS and not guide.pending
    # the raising step's number at its bounds, 1, larger and smaller; the rules' indexes never change
    last = {c[5][2] for c in climbs if len(c) == 6 and c[:5] == record[:5]}
    assert {2**256 - 1, 0, 1} <= last and any(40 < v < 2**256 - 1 for v in last) and any(1 < v < 40 for v in last)
    assert all(choice[1] == rule for c in climbs for choice in c[0::2])
    assert record[:2] + record[4:] in climbs  # only the steps that raised; the raising step right after the first
    assert any(len(c) == 8 and c[:4] == record[:4] and c[6:] == record[4:] for c in climbs)  # an earlier step copied
    assert any(len(c) == 6 and c[:3] == record[:3] and c[3][2] != 9 and c[4:] == record[4:] for c in climbs)
    # the runs queue first; a higher best's run replaces what is left of them
    assert guide.plan() == (climbs[0], []) and guide.stats.climbed == 1
    higher = record[:5] + [("integer", wide, 2**200)]
    run(guide, higher, {2})
    assert 2**201 in {c[5][2] for c in guide.climbs if len(c) == 6 and c[:5] == higher[:5]}
    assert not any(c[5][2] in (40, 80) for c in guide.climbs if len(c) == 6)  # nothing of the lower best's left


@pytest.mark.processes
def test_a_campaign_keeps_the_best_value_over_its_shards_and_saves_it(tmp_path, cli_env):
    from .. import zygote
    from ..conftest import evmstate_exe

    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "m.py").write_text(textwrap.dedent(CLIMB))
    (tmp_path / "evmstate.toml").write_text("")
    done = zygote.run(
        [evmstate_exe(), "fuzz", "machines/m.py", "--time", "10s", "-n", "1", "--seed", "1", "--json", "f.json"],
        cwd=tmp_path, env=cli_env, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # an optimization is not a failure
    (best,) = json.loads((tmp_path / "f.json").read_text())["optima"]["machines/m.py::Climb"]
    assert best["value"] == 1000 and best["steps"] == 4 and best["found_after"] >= 0 and best["runs_before"] >= 0
    assert "optimize_total: best 1000" in done.stdout and f"replay with: evmstate replay {best['record_id']}" in done.stdout
    saved = FailureStore.of(config_mod.load(tmp_path)).load(best["record_id"])
    assert saved.optimum == ("optimize_total", 1000)


def test_an_optimum_is_not_exported_as_a_failing_test(climbed):
    from evmstate.runner import export

    root, _, result = climbed
    with pytest.raises(UsageError, match="not a failure: there is no failure to export"):
        export(config_mod.load(root), result.optima[0].record_id, "pytest")
