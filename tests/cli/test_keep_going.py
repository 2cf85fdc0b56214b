"""Keep-going: a machine that failed searches on; a run that fails as a known failure is counted under it, and each new
failure is shrunk and saved on its own (evmstate fuzz by default, evmstate run --keep-going)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.reports import campaign_json
from evmstate.runner import CampaignOptions, Overrides
from evmstate.scale.campaign import fuzz
from evmstate.scale.pool import ProjectSource

from ..conftest import HERE, copy_project, evmstate_exe
from .helpers import invoke
from .test_one_record_per_bug import TWO_BUGS  # two independent bugs of plain Python, each found within a few runs
from .workers import InlineWorkers

# every run fails at its first step, the same way
ALWAYS = """
from evmstate import strategy

class Always:
    x = strategy("uint256")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def rule_poke(self, x):
        assert x < 0, "planted"
"""

def records(root: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / ".evmstate" / "failures").glob("*.json"))]


def test_a_failure_hit_by_every_run_is_reported_once_with_its_hits(example):
    (example / "machines" / "always.py").write_text(ALWAYS)
    code, out = invoke("run", "machines/always.py", "--keep-going", "--seed", "1", "--max-examples", "150", "--steps", "1", "--json", "out.json")
    assert code == 1, out
    (record,) = records(example)
    (result,) = json.loads((example / "out.json").read_text())["results"]
    assert result["status"] == "failed" and result["failure_id"] == record["id"]
    # the search that knew it went past it 150 times (each run failed so), and reported nothing more
    assert result["hits"][record["id"]] > 150, result["hits"]
    assert out.count("FAILED machines/always.py::Always") == 1 and out.count("replay with:") == 1, out
    assert f"  {record['id']}  machines/always.py::Always: AssertionError, 1 step, hit by {result['hits'][record['id']]} runs" in out
    assert "0 passed, 1 failed" in out


@pytest.mark.quality
@pytest.mark.processes
def test_run_keep_going_reports_three_planted_bugs_each_minimal_one_record_each(tmp_path, cli_env):
    # in a process of its own: what a seed's search finds in this process follows what earlier tests ran in it
    root = copy_project(HERE / "projects" / "three_bugs", tmp_path / "three_bugs")
    command = [evmstate_exe(), "run", "--keep-going", "--seed", "1", "--max-examples", "100", "--steps", "10", "-q", "--json", "out.json"]
    done = subprocess.run(command, cwd=root, env=cli_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    results = json.loads((root / "out.json").read_text())["results"]
    assert [r["status"] for r in results] == ["failed"] * 3
    programs = {r["failure_id"]: r["failure"]["program"][1:] for r in results}
    assert sorted(programs.values()) == [
        ["state.rule_mint(receiver=accounts[0], amount=1)", "state.rule_burn(sender=accounts[0], amount=1)"],
        ["state.rule_mint(receiver=accounts[0], amount=1)", "state.rule_lock(sender=accounts[0], amount=1)", "state.rule_lock(sender=accounts[0], amount=0)"],
        ["state.rule_mint(receiver=accounts[0], amount=1)", "state.rule_transfer(sender=accounts[0], receiver=accounts[0], amount=1)"],
    ]
    saved = records(root)
    assert sorted(r["id"] for r in saved) == sorted(programs)
    assert sorted((r["identity"]["kind"], r["identity"]["name"]) for r in saved) == [
        ("invariant", "invariant_locked"), ("invariant", "invariant_supply"), ("revert", "rule_transfer"),
    ]
    assert all(r["hits"][r["failure_id"]] >= 1 for r in results)


def test_run_keep_going_wants_one_process(example):
    code, out = invoke("run", "machines/depositer.py", "--keep-going", "-n", "2")
    assert code == 2 and "--keep-going searches each machine in this process" in out, out


def campaign(example: Path, **options) -> tuple:
    (example / "machines" / "counter.py").write_text(TWO_BUGS)
    cfg = config_mod.load()
    overrides = Overrides(max_examples=20, stateful_step_count=8, seed=2)
    events: list = []
    summary = fuzz(cfg, CampaignOptions(("machines/counter.py",), None, overrides, budget=1.5, **options), events.append, InlineWorkers(ProjectSource(cfg, (str(example / "machines/counter.py"),))))
    return summary, events


def test_a_campaign_keeps_going_after_a_failure_and_counts_each_under_its_own(example):
    summary, events = campaign(example)
    assert summary.exit_code == 1
    (totals,) = summary.items.values()
    assert totals.status == "failed" and totals.shards > 2, "shards go on after the machine failed"
    tallies = list(totals.failures.values())
    assert sorted(t.identity.name for t in tallies) == ["invariant_big", "invariant_middle"]
    assert len(summary.failures) == 2 and sorted(r["id"] for r in records(example)) == sorted(t.id for t in tallies)
    # the shards after each failure knew it: their runs that failed so were counted, not reported
    assert totals.hits > 2 and all(t.hits >= 1 for t in tallies)
    reported = [e for e in events if getattr(e, "failure", None) is not None]
    assert len(reported) == 2
    # each failure's first sighting, in order, and the runs before it
    first, second = tallies
    assert first.found_after <= second.found_after <= summary.elapsed and first.runs_before < second.runs_before
    report = json.loads(json.dumps(campaign_json(summary)))
    listed = report["items"]["machines/counter.py::Counter"]["failures"]
    assert [(f["id"], f["hits"], f["found_after"], f["runs_before"]) for f in listed] == [(t.id, t.hits, round(t.found_after, 3), t.runs_before) for t in tallies]
    assert {f["failure_id"]: (f["hits"], f["identity"]["name"]) for f in report["failures"]} == {t.id: (t.hits, t.identity.name) for t in tallies}


def test_stop_on_failure_fuzzes_a_failed_machine_no_further(example):
    summary, _ = campaign(example, stop_on_failure=True)
    (totals,) = summary.items.values()
    assert summary.exit_code == 1 and len(summary.failures) == 1 and len(totals.failures) == 1
    # the shard that failed was the last: every run of the machine came before the failing one, or was it
    assert totals.examples == totals.runs_before + 1


# every run fails at its first step, at the planted revert of Ledger.transfer (the whole unlocked balance)
WHOLE = """
from evmstate import strategy

class Whole:
    amount = strategy("uint256")

    def __init__(cls, accounts, Ledger):
        cls.accounts = accounts
        cls.ledger = Ledger.deploy({"from": accounts[0]})

    def rule_send_all(self, amount):
        amount = amount % 2**128 + 1
        self.ledger.mint(self.accounts[1], amount, {"from": self.accounts[0]})
        self.ledger.transfer(self.accounts[2], amount, {"from": self.accounts[1]})
"""


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_project(HERE / "projects" / "three_bugs", tmp_path_factory.mktemp("three_bugs"))
    (root / "machines" / "whole.py").write_text(WHOLE)
    return root


@pytest.mark.parametrize("backend", ["pyevm", "revm"])
@pytest.mark.parametrize("loop", ["fuzz", "run"])
def test_a_known_revert_ends_its_run_not_the_search_on_both_loops_and_backends(whole, monkeypatch, cli_env, backend, loop):
    """evmstate's own loop (fuzz's shards) and Hypothesis's (run --keep-going): each run failing as the known revert is
    counted under it, and the search goes on to its end."""
    monkeypatch.chdir(whole)
    shutil.rmtree(whole / ".evmstate" / "failures", ignore_errors=True)
    shutil.rmtree(whole / ".evmstate" / "examples", ignore_errors=True)
    if loop == "run":
        code, out = invoke("run", "machines/whole.py", "--keep-going", "--backend", backend, "--seed", "1", "--max-examples", "20", "--steps", "1", "-q", "--json", "out.json")
        assert code == 1, out
        (result,) = json.loads((whole / "out.json").read_text())["results"]
        (rid, hits), = result["hits"].items()
        assert rid == result["failure_id"] and hits > 20
    else:
        cfg = config_mod.load()
        cfg = cfg.replace(backend=config_mod.BackendConfig(name=backend, named=True))
        overrides = Overrides(max_examples=10, stateful_step_count=1, seed=1)
        summary = fuzz(cfg, CampaignOptions(("machines/whole.py",), None, overrides, budget=1.0), lambda e: None, InlineWorkers(ProjectSource(cfg, (str(whole / "machines/whole.py"),))))
        (totals,) = summary.items.values()
        (tally,) = totals.failures.values()
        assert totals.shards > 1 and tally.hits == totals.examples, "every run after the first shard failed so"
        rid = tally.id
    (record,) = records(whole)
    assert record["id"] == rid and record["identity"]["kind"] == "revert" and record["identity"]["name"] == "rule_send_all"
    assert "_amount < unlocked" in record["identity"]["where"]
