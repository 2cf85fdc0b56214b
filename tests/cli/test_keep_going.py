"""Keep-going: a machine that failed searches on; a run that fails as a known failure is counted under it, and each new
failure is shrunk and saved on its own (evmstate fuzz by default, evmstate run --keep-going)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.engine.discovery import discover
from evmstate.engine.item import KeptGoing, RunRequest
from evmstate.reports import campaign_json
from evmstate.runner import CampaignOptions, Overrides
from evmstate.scale.campaign import fuzz
from evmstate.scale.pool import ProjectSource

from .. import zygote
from ..conftest import FASTEST, HERE, copy_project, evmstate_exe
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
    # on revm where installed, at 40% of py-evm's CPU: the planted bugs are the contract's, whichever EVM runs it. What a
    # seed draws follows what the search records, and so the backend: on revm seed 4 finds the three (seed 2 two of
    # them); on py-evm seeds 2 and 3 do (seed 1 found two once every comparison was recorded)
    seed = {"revm": "4", "pyevm": "2"}[FASTEST]
    command = [evmstate_exe(), "run", "--keep-going", "--seed", seed, "--max-examples", "100", "--steps", "10", "--backend", FASTEST, "-q", "--json", "out.json"]
    done = zygote.run(command, cwd=root, env=cli_env, timeout=600)
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
    summary = fuzz(cfg, CampaignOptions(("machines/counter.py",), None, overrides, budget=3.0, **options), events.append, InlineWorkers(ProjectSource(cfg, (str(example / "machines/counter.py"),))))
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


SHALLOW = (HERE / "projects" / "three_bugs" / "more" / "shallow.py").read_text()

# a known invariant every run breaks at its first step, and a second failure only a program past it reaches
DEPENDENT = """
from evmstate import strategy

class Dependent:
    x = strategy("uint8")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def setup(self):
        self.n = 0

    def rule_add(self, x):
        self.n += 1

    def invariant_small(self):
        assert self.n < 1

    def invariant_deep(self):
        assert self.n < 3
"""


@pytest.fixture(scope="module")
def shallow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_project(HERE / "projects" / "three_bugs", tmp_path_factory.mktemp("three_bugs"))
    (root / "machines" / "ledger.py").unlink()
    (root / "machines" / "shallow.py").write_text(SHALLOW)
    (root / "machines" / "dependent.py").write_text(DEPENDENT)
    return root


def fresh(root: Path) -> None:
    shutil.rmtree(root / ".evmstate" / "failures", ignore_errors=True)
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)


@pytest.mark.parametrize("backend", ["pyevm", "revm"])
@pytest.mark.parametrize("loop", ["fuzz", "run"])
def test_a_run_goes_past_a_known_revert_to_a_deeper_failure_on_both_loops(shallow, monkeypatch, backend, loop):
    """evmstate's own loop (fuzz's shards') and Hypothesis's (run --keep-going): a step that fails as the known revert is
    counted and the run goes on, so the deeper failure behind it is found, and shrunk to a program without the
    revert."""
    monkeypatch.chdir(shallow)
    fresh(shallow)
    if loop == "run":
        code, out = invoke(
            "run", "machines/shallow.py", "--keep-going", "--backend", backend, "--seed", "1", "--max-examples", "20",
            "--steps", "10", "-q", "--json", "out.json",
        )
        assert code == 1, out
        results = json.loads((shallow / "out.json").read_text())["results"]
        found = {r["failure_id"]: (r["failure"]["program"][1:], r["hits"][r["failure_id"]]) for r in results}
    else:
        # a campaign's shards: evmstate's own loop, each search told the failures found before
        config = config_mod.load().replace(backend=config_mod.BackendConfig(name=backend, named=True))
        (item,) = discover(config, ("machines/shallow.py",)).items
        project = Project(config)
        project.activate()
        request = RunRequest(overrides=Overrides(max_examples=20, stateful_step_count=10, seed=1, fresh=True), seed=1, native=True)
        kept = KeptGoing()
        results = [kept.counted(r) for r in list(kept.searches(config, project, item, request, lambda e: None))]
        assert all("evmstate's own loop" in r.statistics and "off" not in r.statistics["evmstate's own loop"] for r in results)
        found = {r.failure_id: (r.failure.program[1:], r.hits[r.failure_id]) for r in results if r.failure is not None}
    saved = {r["id"]: r for r in records(shallow)}
    assert sorted(found) == sorted(saved)
    kinds = {(r["identity"]["kind"], r["identity"]["name"]): found[rid] for rid, r in saved.items()}
    assert kinds[("revert", "rule_send_all")][0] == ["state.rule_send_all(amount=0)"]
    assert kinds[("invariant", "invariant_locked")][0] == [
        "state.rule_mint(amount=1)", "state.rule_lock(amount=1)", "state.rule_lock(amount=0)",
    ]
    # the runs after it met the known revert and went on: more of them than the searches' first runs
    assert kinds[("revert", "rule_send_all")][1] > 3


# a rule that expects a revert where the ledger's call goes through (lock() replaces the amount locked before, which
# the machine takes for a refusal): the known failure changes the chain, and invariant_locked then fails as its
# consequence, in runs that go past it
LOOSE = """
from evmstate import reverts, strategy

class Loose:
    amount = strategy("uint8")

    def __init__(cls, accounts, Ledger):
        cls.accounts = accounts
        cls.ledger = Ledger.deploy({"from": accounts[0]})
        cls.ledger.mint(accounts[1], 1000, {"from": accounts[0]})

    def setup(self):
        self.locked = None

    def rule_lock(self, amount):
        if self.locked is not None:
            with reverts():
                self.ledger.lock(amount, {"from": self.accounts[1]})
            return
        self.ledger.lock(amount, {"from": self.accounts[1]})
        self.locked = amount

    def invariant_locked(self):
        assert self.ledger.locked(self.accounts[1]) == (self.locked or 0)
"""


def test_a_failure_past_a_known_one_that_changed_the_chain_is_counted_under_it(shallow, monkeypatch):
    """A second lock goes through where the machine expects a revert: that known failure changed the chain, and
    invariant_locked fails after it as its consequence. Without the known failure's step nothing fails, and with it a
    fresh run fails as the known one: so the consequence is that one's (one record, its hits), not a failure of its own
    saved unshrunk with a note that blames the backends."""
    (shallow / "machines" / "loose.py").write_text(LOOSE)
    config, project, item, request, kept = dependent_search(shallow, monkeypatch, "machines/loose.py", 30, 6)
    results = [kept.counted(r) for r in list(kept.searches(config, project, item, request, lambda e: None))]
    (record,) = records(shallow)
    assert record["identity"]["name"] == "rule_lock" and "succeeded where reverts() expected" in record["error"]["message"]
    (result,) = [r for r in results if r.failure is not None]
    assert result.failure_id == record["id"] and result.failure.steps == 2
    # runs went past it and met invariant_locked: counted under the known failure
    assert {i.name for i in kept.known} == {"rule_lock", "invariant_locked"}
    assert set(kept.known.values()) == {record["id"]}
    assert result.hits[record["id"]] > 1


def dependent_search(shallow, monkeypatch, machine="machines/dependent.py", examples=10, steps=4):
    """What a keep-going search of a machine (machines/dependent.py) needs, from a fresh store: config, project, item,
    request and its KeptGoing."""
    monkeypatch.chdir(shallow)
    fresh(shallow)
    config = config_mod.load()
    (item,) = discover(config, (machine,)).items
    project = Project(config)
    project.activate()
    request = RunRequest(overrides=Overrides(max_examples=examples, stateful_step_count=steps, seed=1, fresh=True), seed=1)
    return config, project, item, request, KeptGoing()


def test_a_failure_reached_only_past_a_known_invariant_is_counted_under_it(shallow, monkeypatch):
    """invariant_deep fails only once invariant_small is broken: a fresh run of its program fails as invariant_small
    first, so it is that failure (one record), and the runs that meet it are counted under it."""
    config, project, item, request, kept = dependent_search(shallow, monkeypatch)
    results = [kept.counted(r) for r in list(kept.searches(config, project, item, request, lambda e: None))]
    (result,) = results
    assert result.failure is not None and result.failure.invariant == "invariant_small" and result.failure.steps == 1
    (record,) = records(shallow)
    assert record["id"] == result.failure_id
    # invariant_small was not checked again in the runs after it, and invariant_deep failed past it: known from then
    # on, under invariant_small's record
    known = {i.name: rid for i, rid in kept.known.items()}
    assert known == {"invariant_small": record["id"], "invariant_deep": record["id"]}
    assert result.hits[record["id"]] > 10


def test_a_ctrl_c_while_a_failure_found_only_past_a_known_one_is_shrunk_keeps_no_record_of_it(shallow, monkeypatch):
    """invariant_deep, found past the known invariant_small, is the known one's consequence: a fresh run meets
    invariant_small first. A Ctrl-C as it is found (before that fresh run) leaves it unchecked: no record is saved for
    it, and the search ends interrupted, where it used to save the program as an interrupted failure of its own."""
    from evmstate.engine.events import FailureFound, Interrupted

    config, project, item, request, kept = dependent_search(shallow, monkeypatch)
    found = []

    def stop_at_the_second(event):
        if isinstance(event, FailureFound):
            found.append(event)
            if len(found) == 2:
                raise KeyboardInterrupt  # Ctrl-C as the failure past the known one is found

    results = []
    with pytest.raises(Interrupted) as stopped:  # as a Ctrl-C before anything failed ends a search
        for r in kept.searches(config, project, item, request, stop_at_the_second):
            results.append(kept.counted(r))
    assert len(found) == 2 and stopped.value.result.failure is None
    (first,) = results
    (record,) = records(shallow)
    assert record["id"] == first.failure_id and record["identity"]["name"] == "invariant_small"


# a property test with two failures of its own: x in (950, 1000], and x = 5 (mod 97)
TWO_ASSERTS = """
from hypothesis import given, strategies as st


@given(x=st.integers(0, 1000))
def test_two_bugs(x):
    if x > 900:
        assert x < 950, "high"
    assert x % 97 != 5, "five"
"""


def test_a_property_test_keeps_going_past_its_known_failures(example):
    (example / "machines" / "test_two.py").write_text(TWO_ASSERTS)
    cfg = config_mod.load()
    overrides = Overrides(max_examples=100, seed=1)
    workers = InlineWorkers(ProjectSource(cfg, (str(example / "machines/test_two.py"),)))
    options = CampaignOptions(("machines/test_two.py",), None, overrides, budget=3.0)  # both are found in well under a second on a quiet machine
    summary = fuzz(cfg, options, lambda e: None, workers)
    (totals,) = summary.items.values()
    lines = sorted(t.identity.where.splitlines()[-1].strip() for t in totals.failures.values())
    assert lines == ['assert x % 97 != 5, "five"', 'assert x < 950, "high"']
    assert len(records(example)) == 2 and len(summary.failures) == 2
    # the shards that knew a failure counted the examples that failed so, and passed them: a shard that found and shrank
    # it again would have added one hit, not dozens
    first = next(iter(totals.failures.values()))
    assert first.hits > totals.shards, (first.hits, totals.shards)
    # run --keep-going does the same for run's search
    code, out = invoke(
        "run", "machines/test_two.py", "--keep-going", "--seed", "1", "--max-examples", "300", "--fresh",
        "--json", "out.json",
    )
    assert code == 1, out
    results = json.loads((example / "out.json").read_text())["results"]
    assert len(results) == 2 and all(r["hits"][r["failure_id"]] >= 1 for r in results)
    assert out.count("hit by") == 2 and "0 steps" not in out, out


# each invariant check notes the exception being handled around it: none, in the search and in the shrink's replays
PROBE = """
import sys

from evmstate import strategy

HANDLED = []


class Probe:
    x = strategy("uint8")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def rule_poke(self, x):
        assert x < 200, "planted"

    def invariant_probe(self):
        HANDLED.append(repr(sys.exc_info()[1]))
"""


def test_a_failure_is_shrunk_outside_the_handler_of_the_search_that_found_it(example):
    """Else every error a shrink's replay raises has the search's failure as its __context__, and takes its revert's
    details: a candidate failing another way looked like the failure being shrunk (a revert in rule_mint of the
    three-bug token shrank to invariant_supply's program)."""
    (example / "machines" / "probe.py").write_text(PROBE)
    code, out = invoke("run", "machines/probe.py", "--seed", "1", "--max-examples", "50", "--steps", "4", "--fresh")
    assert code == 1, out
    # this test's probe: another test in this worker may have loaded a machines/probe.py of its own
    probe = (example / "machines" / "probe.py").resolve()
    (module,) = [
        m for name, m in sys.modules.items()
        if name.startswith("evmstate_machines.probe") and Path(getattr(m, "__file__", None) or "").resolve() == probe
    ]
    assert module.HANDLED and set(module.HANDLED) == {"None"}, sorted(set(module.HANDLED))
