"""A campaign never says "no failure" of a machine it did not search: a shard that could not run is an error, and so is a
machine no run of which started before the budget ended.

The workers here stand for the pool (a layer the campaign drives): they hand back what real workers would.
"""

from __future__ import annotations

from typing import Any

from evmstate import config as config_mod
from evmstate.engine.events import ExitCode, MachineFinished
from evmstate.engine.settings import Overrides
from evmstate.scale.campaign import CampaignOptions, fuzz
from evmstate.scale.shards import Outcome, ShardResult

from .workers import InlineWorkers  # running(), interrupt() and the rest, over self.queue


class Workers(InlineWorkers):
    """Workers that take one shard and end it with result; found: the shard told first that it found a failure (the
    machine then leaves the campaign); ready: False for workers still starting when the budget ends."""

    description = "stand-in workers"

    def __init__(self, result: Any = None, *, found: bool = False, ready: bool = True) -> None:
        self.result, self.found, self.ready = result, found, ready
        self.queue: list[Any] = []
        self.taken = 0
        self.failing: set[str] = set()

    def free(self) -> int:
        return 1 if self.ready and not self.taken else 0

    def submit(self, shard: Any) -> None:
        self.queue.append(shard)
        self.taken += 1

    def collect(self, timeout: float) -> list[Outcome]:
        if not self.queue:
            return []
        if self.found and not self.failing:
            self.failing.add(self.queue[0].key)  # the shard's FailureFound comes first, in a collect of its own
            return []
        shard = self.queue.pop()
        path, name = shard.key.split("::")
        result = MachineFinished(name=name, kind="machine", path=path, **self.result)
        return [Outcome("done", shard, ShardResult(shard=shard, result=result, record=None, cpu=0.0))]

    def lend(self) -> None:
        pass


OPTIONS = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=5, seed=1), budget=30.0, stop_on_failure=True)


def test_a_shard_that_could_not_run_after_its_machine_found_a_failure_is_an_error_never_no_failure(example):
    crashed = {"status": "error", "examples": 0, "steps": 0, "elapsed": 0.1, "internal": True, "error": "internal error in evmstate while running it:\nOSError: [Errno 28] No space left on device"}
    events: list[Any] = []
    summary = fuzz(config_mod.load(example), OPTIONS, events.append, Workers(crashed, found=True))
    assert summary.exit_code == ExitCode.INTERNAL_ERROR
    assert summary.items["machines/depositer.py::StateMachine"].status == "error"
    (error,) = summary.errors
    assert "No space left on device" in (error.error or "") and error in events


def test_a_machine_no_run_of_which_started_before_the_budget_ended_is_an_error(example):
    events: list[Any] = []
    options = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=5, seed=1), budget=0.3)
    summary = fuzz(config_mod.load(example), options, events.append, Workers(ready=False))  # no worker is ever ready
    assert summary.exit_code == ExitCode.USAGE_ERROR and summary.failures == []
    (error,) = summary.errors
    assert error.error == (
        "machines/depositer.py::StateMachine was not searched: the campaign's budget of 0.3s ended before any run of it started "
        "(worker processes start and load the project first, which takes seconds on a busy machine). Give a longer --time."
    )
    assert summary.items["machines/depositer.py::StateMachine"].status == "error" and error in events


def test_a_machine_searched_and_passed_is_no_error(example):
    passed = {"status": "passed", "examples": 5, "steps": 25, "elapsed": 0.1}
    options = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=5, seed=1), budget=0.5)
    summary = fuzz(config_mod.load(example), options, lambda e: None, Workers(passed))
    assert summary.exit_code == ExitCode.OK and summary.errors == []
    totals = summary.items["machines/depositer.py::StateMachine"]
    assert totals.status == "running" and totals.examples == 5
