"""A record is a bug: the same failure found by other programs, in other runs, keeps one record, the shortest program."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..conftest import without_shrinking
from .helpers import invoke

TWO_BUGS = """
from evmstate import strategy

class Counter:
    x = strategy("uint8")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def setup(self):
        self.big = self.middle = 0

    def rule_add(self, x):
        self.big += x > 200

    def rule_sub(self, x):
        self.middle += 100 <= x < 140

    def invariant_big(self):
        assert self.big < 2

    def invariant_middle(self):
        assert self.middle < 2
"""


def unshrunk(root: Path) -> None:
    """Each failure reported as found: neither Hypothesis nor evmstate shrinks it."""
    without_shrinking(root)
    toml = root / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nshrink_time = 0.000001\n")


def records(root: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / ".evmstate" / "failures").glob("*.json"))]


def test_many_programs_of_two_bugs_keep_two_records_each_the_shortest(example):
    # unshrunk, each seed reports a program of its own for whichever bug it met first
    unshrunk(example)
    (example / "machines" / "counter.py").write_text(TWO_BUGS)
    found: dict[str, list[int]] = {}
    for seed in range(1, 9):
        shutil.rmtree(example / ".evmstate" / "examples", ignore_errors=True)  # search from the seed alone
        code, out = invoke("run", "machines/counter.py", "--seed", str(seed), "--max-examples", "30", "--steps", "8", "--json", "out.json")
        assert code == 1, out
        (result,) = json.loads((example / "out.json").read_text())["results"]
        found.setdefault(result["failure"]["invariant"], []).append(result["failure"]["steps"])
        assert f"replay with: evmstate replay {result['failure_id']}" in out
    assert set(found) == {"invariant_big", "invariant_middle"} and sum(len(v) for v in found.values()) == 8, found
    assert len({n for v in found.values() for n in v}) > 2, f"the seeds found programs of other lengths: {found}"
    saved = records(example)
    assert sorted(r["identity"]["name"] for r in saved) == ["invariant_big", "invariant_middle"]
    for r in saved:
        assert len(r["steps"]) == min(found[r["identity"]["name"]]), (r["identity"], found)


def test_a_longer_program_for_a_saved_failure_says_which_record_replays(example):
    (example / "machines" / "counter.py").write_text(TWO_BUGS.replace("    def invariant_middle(self):\n        assert self.middle < 2\n", ""))
    code, out = invoke("run", "machines/counter.py", "--seed", "1", "--max-examples", "30", "--steps", "8")
    assert code == 1
    (first,) = records(example)
    unshrunk(example)
    for seed in range(2, 12):
        shutil.rmtree(example / ".evmstate" / "examples", ignore_errors=True)
        code, out = invoke("run", "machines/counter.py", "--seed", str(seed), "--max-examples", "30", "--steps", "8", "--json", "out.json")
        (result,) = json.loads((example / "out.json").read_text())["results"]
        if result["failure"]["steps"] > len(first["steps"]):
            break
    else:
        raise AssertionError("no seed found a longer program unshrunk")
    assert code == 1 and result["failure_id"] == first["id"]
    steps = "1 step" if len(first["steps"]) == 1 else f"{len(first['steps'])} steps"
    assert f"a shorter program for this failure ({steps}) was saved before: `evmstate replay {first['id']}` replays that one" in out
    assert records(example) == [first]
