"""evmstate fuzz: time-budgeted campaigns over local processes or a Dask cluster; failures saved as they come."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from evmstate import config as config_mod
from evmstate.scale.campaign import CampaignOptions, CampaignProgress, fuzz, parse_duration
from evmstate_cli.render_campaign import progress_text
from evmstate.scale.shards import Outcome, run_shard
from evmstate.errors import UsageError
from evmstate.scale.pool import ProjectSource
from evmstate.runner import Overrides

from ..conftest import copy_example
from .helpers import Forked, invoke, local_cluster, wait_for_markers
from .machines import WAITING
from .workers import InlineWorkers

BUG = ["state = StateMachine()", "state.rule_deposit(address=accounts[0], value=1)", "state.rule_withdraw(address=accounts[0], value=0)"]


def _saved(project: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((project / ".evmstate" / "failures").glob("*.json"))]


def test_durations():
    assert [parse_duration(t) for t in ("30s", "10m", "1h", "1h30m", "90", "1.5h", " 2m 5s ")] == [30, 600, 3600, 5400, 90, 5400, 125]
    for bad in ("", "0s", "10x", "m", "1h-2m", "5 minutes"):
        with pytest.raises(UsageError, match="give a duration such as 30s, 10m, 1h"):
            parse_duration(bad)


def test_a_bad_duration_exits_2(example):
    code, out = invoke("fuzz", "--time", "ten minutes")
    assert code == 2 and "--time 'ten minutes': give a duration such as 30s, 10m, 1h or 1h30m" in out


def test_nothing_to_fuzz_exits_5(example):
    code, out = invoke("fuzz", "--time", "5s", "-k", "no_such_machine")
    assert code == 5 and "no state machines or property tests found" in out


@pytest.mark.processes
def test_a_campaign_shows_its_compile_progress_as_a_run_does(example):
    # the same prologue as `evmstate run` (engine.item.prepare): discovery, then the contracts compiled, shown
    code, out = invoke("fuzz", "machines/depositer.py", "--time", "1s", "-n", "1", "--steps", "2", "--max-examples", "2")
    # a budget that ended before the worker was up is said so (exit 2): either way, the prologue came first
    assert code in (0, 1) or (code == 2 and "was not searched" in out), out
    assert re.search(r"^compiled \d+ contracts? in [\d.]+s", out, re.M), out
    assert out.index("compiled") < out.index("fuzzing machines/depositer.py::StateMachine")


@pytest.mark.processes
def test_a_campaign_on_local_workers_finds_the_planted_bug_saves_it_and_it_replays(example):
    code, out = invoke("fuzz", "machines/depositer.py", "--time", "2m", "-n", "2", "--steps", "5", "--seed", "4", "--json", "campaign.json", "--stop-on-failure")
    assert code == 1, out
    assert "fuzzing machines/depositer.py::StateMachine for 2m00s on 2 local workers" in out
    (record,) = _saved(example)
    assert record["program"] == BUG and record["error"]["location"].startswith("machines/depositer.py:")
    assert out.count(f"replay with: evmstate replay {record['id']}") == 1 and "1 failure found" in out
    # the JSON report: the campaign's totals, and the failure as `evmstate run --json` has it, shrinking's passes too
    assert "wrote campaign.json" in out
    report = json.loads((example / "campaign.json").read_text())
    assert report["exit_code"] == 1 and report["seed"] == 4 and report["steps"] > 0
    assert report["items"]["machines/depositer.py::StateMachine"]["status"] == "failed"
    (failed,) = report["failures"]
    assert failed["failure_id"] == record["id"] and failed["failure"]["program"] == record["program"]
    assert failed["failure"]["shrink"]["passes"] and failed["failure"]["shrink"]["minimality"]
    # --stop-on-failure: a machine that failed is fuzzed no further, so the campaign ends long before its budget
    code, out = invoke("replay", record["id"])
    assert code == 1 and "still fails" in out


@pytest.mark.processes
def test_a_campaign_on_a_dask_local_cluster_with_two_workers_finds_the_bug_and_it_replays(example):
    with local_cluster(2) as cluster:
        code, out = invoke("fuzz", "machines/depositer.py", "--time", "2m", "--cluster", cluster.scheduler_address, "--steps", "5", "--seed", "4", "--stop-on-failure")
    assert code == 1, out
    assert f"on Dask cluster at {cluster.scheduler_address}" in out
    (record,) = _saved(example)  # saved by the client, in its own project
    assert record["program"] == BUG
    # named as where the campaign started, not as the workers' copy of the project
    assert record["error"]["location"].startswith("machines/depositer.py:43 in invariant")
    code, out = invoke("replay", record["id"])
    assert code == 1 and "still fails" in out


def test_progress_adds_up_shards_and_the_branches_they_hit(example):
    cfg = config_mod.load()
    events: list[Any] = []
    options = CampaignOptions(("machines/erc20.py",), None, Overrides(max_examples=2, stateful_step_count=3, seed=1), budget=1.0)
    workers = InlineWorkers(ProjectSource(cfg, (str(example / "machines/erc20.py"),)))
    summary = fuzz(cfg, options, events.append, workers)
    assert summary.exit_code == 0 and summary.failures == []
    # every run has three steps; a shard started as the budget ran out may run fewer than two
    assert summary.shards >= 1 and 2 <= summary.examples <= 2 * summary.shards and summary.steps == 3 * summary.examples
    progress = [e for e in events if isinstance(e, CampaignProgress)]
    assert progress[-1].shards == summary.shards and progress[-1].steps == summary.steps
    expected = {1: 2, 2: 3}.get(summary.shards, 5)
    assert progress[-1].branches == expected == len(summary.branches)


@pytest.mark.processes
def test_a_budget_ends_a_campaign_that_finds_nothing(example):
    import re

    # 2 s: the budget counts from when the worker is ready (its start, seconds on a loaded machine, is not spent from it),
    # and shards of five runs of five steps take a fraction of a second each
    code, out = invoke("fuzz", "machines/erc20.py", "--time", "2s", "-n", "1", "--steps", "5", "--max-examples", "5", "-v", "--json", "campaign.json")
    assert code == 0, out
    assert "0 failures found" in out and "machines/erc20.py::ERC20Machine: no failure" in out
    # -v and the JSON report say whether the machine ran on evmstate's own loop, though nothing failed
    assert re.search(r"^    evmstate's own loop \(the last shard\): [1-5] runs?\b", out, re.M), out
    item = json.loads((example / "campaign.json").read_text())["items"]["machines/erc20.py::ERC20Machine"]
    assert re.match(r"[1-5] runs?\b", item["own loop"]), item
    # shards of five short runs go on until the budget is spent, and stop starting runs then (a run
    # started before may finish, and closing the worker takes a moment); the summary says how long
    seconds, shards = map(int, re.search(r"^(\d+)s: (\d+) shards", out, re.M).groups())
    assert 2 <= seconds <= 2 + 3 and shards > 1, out


@pytest.mark.processes
def test_the_next_campaign_starts_from_the_corpus_the_last_one_kept(example):
    import re

    loaded = []
    for _ in range(2):
        # 2 s: the budget counts from when the worker is ready (its start, which at load 10 once took longer than a
        # 2 s budget that counted from the campaign's start, is not spent from it); a shard takes a fraction of a second
        code, out = invoke("fuzz", "machines/erc20.py", "--time", "2s", "-n", "1", "--max-examples", "3", "--steps", "5")
        assert code == 0, out
        found = re.search(r"ERC20Machine: no failure, .*; the last shard's corpus: (\d+) kept runs loaded, (\d+) added", out)
        assert found is not None, out
        loaded.append((int(found.group(1)), int(found.group(2))))
    (folder,) = (example / ".evmstate" / "corpus").iterdir()
    saved = len(list(folder.glob("*.run")))
    # one worker: shards run one after another, each from what those before it kept; the
    # second campaign's started from what the first kept
    (first_loaded, first_added), (second_loaded, second_added) = loaded
    assert first_loaded + first_added > 0
    assert second_loaded >= first_loaded + first_added
    assert saved == second_loaded + second_added


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_ends_a_campaign_with_its_summary_and_exit_130(tmp_path, cli_env: dict[str, str]):
    project = copy_example(tmp_path / "p")
    (project / "machines" / "waiting.py").write_text(WAITING)
    proc = Forked(["fuzz", "machines/waiting.py", "-n", "1"], cwd=project, env=cli_env, merged=False)
    try:
        wait_for_markers(project, proc, 1)  # the worker is searching
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, out + err
    assert "fuzzing machines/waiting.py::Waiting until Ctrl-C on 1 local worker" in out
    assert "(stopped by Ctrl-C)" in out and "0 failures found" in out and "Traceback" not in err


SLOW_RUNS = """
import time

from evmstate import strategy


class SlowMachine:
    x = strategy("uint256")

    def rule_wait(self, x):
        time.sleep(0.004)  # a run of 50 steps takes a fifth of a second
"""


@pytest.mark.processes
def test_the_status_line_counts_running_shards_and_the_budget_is_kept(example):
    (example / "machines" / "slow.py").write_text(SLOW_RUNS)
    events: list[Any] = []
    budget = 8.0
    started = time.monotonic()
    # one shard would take 1000 runs: it is still running when the budget ends
    options = CampaignOptions(("machines/slow.py",), None, Overrides(max_examples=1000, seed=1), budget=budget, workers=1)
    summary = fuzz(config_mod.load(example), options, events.append)
    took = time.monotonic() - started
    # the budget runs from when the campaign starts its workers; a run started before it ends may
    # finish (half a second here), and closing the workers takes a moment
    assert summary.elapsed < budget + 3, f"a {budget}s campaign ran {summary.elapsed:.1f}s"
    assert took < budget + 30, f"discovery, compiling and the campaign took {took:.1f}s"
    assert summary.steps > 0 and summary.exit_code == 0
    progress = [e for e in events if isinstance(e, CampaignProgress)]
    # while the shard runs (however long its worker took to start on this machine), its steps show
    late = [e for e in progress if e.running and e.elapsed <= budget and e.steps > 0]
    assert late, "the running shard's steps show before it ends"
    # the shard tells the runs it finished: the counts only grow, and never pass the campaign's totals
    assert all(a.steps <= b.steps and a.examples <= b.examples for a, b in zip(progress, progress[1:]))
    assert progress[-1].steps <= summary.steps and progress[-1].examples <= summary.examples
    # the rate the status line shows is the campaign's own steps over its own elapsed time (how fast
    # the steps came depends on the machine's load, which is no part of this test)
    for e in late:
        shown = re.search(r"running\), (\d+) runs, (\d+) steps, (\d+) steps/s", progress_text(e))
        assert shown and (int(shown[1]), int(shown[2]), int(shown[3])) == (e.examples, e.steps, round(e.steps / e.elapsed)), progress_text(e)


class TwoShardsWorkers(InlineWorkers):
    """Two shards of one machine come back at once with the same failure: first a longer program, then the shortest."""

    def collect(self, timeout: float) -> list[Outcome]:
        import dataclasses

        if not self.queue:
            return []
        shard = self.queue.pop()
        self.queue.clear()
        found = run_shard(self.state, shard)
        assert found.result.failure is not None and found.record is not None
        failure = found.result.failure
        longer_failure = dataclasses.replace(failure, steps=failure.steps + 2, program=[*failure.program, "state.rule_deposit(address=accounts[1], value=5)"])
        longer = dataclasses.replace(
            found, result=dataclasses.replace(found.result, failure=longer_failure), record=dataclasses.replace(found.record, id="0000longer")
        )
        return [Outcome("done", shard, longer), Outcome("done", dataclasses.replace(shard, index=1), found)]


def test_the_same_failure_from_two_shards_is_reported_once_and_the_shortest_is_kept(example):
    from evmstate.engine.events import MachineFinished
    from evmstate.scale.campaign import FailureReplaced

    cfg = config_mod.load()
    events: list[Any] = []
    options = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=20, stateful_step_count=5, seed=2), budget=30.0, stop_on_failure=True)
    summary = fuzz(cfg, options, events.append, TwoShardsWorkers(ProjectSource(cfg, (str(example / "machines/depositer.py"),))))
    assert summary.exit_code == 1 and len(summary.failures) == 1
    (kept,) = summary.failures
    assert kept.failure is not None and kept.failure.program == BUG
    reports = [e for e in events if isinstance(e, MachineFinished) and e.status == "failed"]
    assert len(reports) == 1 and reports[0].failure_id == "0000longer", "the first to come back is reported"
    (replaced,) = [e for e in events if isinstance(e, FailureReplaced)]
    assert replaced.old_id == "0000longer" and replaced.new_id == kept.failure_id and replaced.steps == 2
    assert [r["id"] for r in _saved(example)] == [kept.failure_id], "only the shortest program stays saved"
