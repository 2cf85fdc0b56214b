"""A passing run that was still reaching new code at its end says its budget was too small, and
gives the command that searches longer."""

import json
import re

from evmstate.engine.events import ExampleFinished
from evmstate.engine.lifecycle import Growth

from .helpers import invoke


def test_a_puzzle_still_being_solved_at_the_end_asks_for_a_longer_search(example):
    # 16 runs solve a level or two of the puzzle: a level the puzzle never stored is reached late
    code, out = invoke("run", "machines/puzzle.py", "--max-examples", "16", "--seed", "8", "--json", "report.json")
    assert code == 0
    assert re.search(r"^  still reaching new code: (\d+ branch(es)? and )?1 stage \(a variable stored a small value it never held\) first reached in the last quarter of its runs$", out, re.M), out
    assert out.endswith(
        "1 passed, 0 failed, 1 still reaching new code when the budget ran out: "
        "search longer with evmstate fuzz --time 5m machines/puzzle.py -k PuzzleMachine\n"
    )
    (result,) = json.loads((example / "report.json").read_text())["results"]
    assert result["late_stages"] == 1 and result["late_branches"] == int(re.search(r"(\d+) branch", out)[1] if " branch" in out else 0)


def test_a_search_that_stopped_finding_new_code_says_nothing_more(example):
    code, out = invoke("run", "machines/erc20.py", "--max-examples", "16", "--seed", "1", "--json", "report.json")
    assert code == 0 and out.endswith("\n1 passed, 0 failed\n") and "still reaching" not in out
    (result,) = json.loads((example / "report.json").read_text())["results"]
    assert result["late_branches"] == 0 and not result["late_stages"]


def finished(branches: int | None, shrinking: bool = False, stages: int | None = None) -> ExampleFinished:
    return ExampleFinished(name="M", examples=1, steps=1, elapsed=0.0, shrinking=shrinking, branches=branches, stages=stages)


def test_late_counts_the_branches_first_reached_in_the_last_quarter_of_the_runs():
    growth = Growth()
    for reached in [3, 5, 5, 6, 6, 6, 6, 6, 7, 7, 9, 9]:  # 12 runs: the last quarter is the last 3
        growth.watch(finished(reached))
    growth.watch(finished(20, shrinking=True))  # shrinking runs are not the search's
    assert growth.late() == 9 - 7
    short = Growth()
    for reached in [1, 2, 3]:
        short.watch(finished(reached))
    assert short.late() is None  # too few runs to tell a trend
    blind = Growth()
    for _ in range(20):
        blind.watch(finished(None))  # no coverage recorded (revm, guidance off)
    assert blind.late() is None


def test_late_stages_count_the_levels_stored_in_the_last_quarter_when_no_branch_is_new():
    growth = Growth()
    for stages in [0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 4]:  # a ladder climbed through one `if`
        growth.watch(finished(6, stages=stages))
    assert growth.late() == 0
    assert growth.late_stages() == 4 - 2
    unwatched = Growth()
    for _ in range(12):
        unwatched.watch(finished(6))  # stored values not watched (guidance off)
    assert unwatched.late_stages() is None
