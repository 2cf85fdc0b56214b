"""A campaign never says "no failure" of a machine it did not search: a shard that could not run is an error, and so is a
machine no run of which started before the budget ended.

The workers here stand for the pool (a layer the campaign drives): they hand back what real workers would.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from evmstate import config as config_mod
from evmstate.engine.events import ExitCode, MachineFinished
from evmstate.engine.settings import Overrides
from evmstate.scale import interrupts
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


class Starting(Workers):
    """Stand-in workers none of which is ready before delay seconds after the campaign first asks (imports on a busy
    machine); the shards they were handed are kept."""

    def __init__(self, result: Any, delay: float) -> None:
        super().__init__(result)
        self.delay = delay
        self.ready_at: float | None = None
        self.ready_wall: float | None = None  # the same moment on the wall clock (the summary's started_at)
        self.handed: list[Any] = []

    def free(self) -> int:
        if self.ready_at is None:
            self.ready_at = time.monotonic() + self.delay
            self.ready_wall = time.time() + self.delay
        return super().free() if time.monotonic() >= self.ready_at else 0

    def submit(self, shard: Any) -> None:
        self.handed.append(shard)
        super().submit(shard)


def test_the_budget_counts_from_when_a_worker_is_first_ready(example):
    # workers ready 0.6 s into a 1 s budget: the first shard still gets the whole budget (it got 0.4 s when the clock
    # started before the workers were ready)
    passed = {"status": "passed", "examples": 5, "steps": 25, "elapsed": 0.1}
    options = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=5, seed=1), budget=1.0)
    workers = Starting(passed, delay=0.6)
    summary = fuzz(config_mod.load(example), options, lambda e: None, workers)
    assert summary.exit_code == ExitCode.OK and summary.errors == []
    assert summary.items["machines/depositer.py::StateMachine"].examples == 5
    first = workers.handed[0]
    assert first.budget is not None and first.budget > 0.9, first.budget
    # the campaign's time is counted from then, not from before the wait (a bound that holds under any load)
    assert workers.ready_wall is not None and summary.started_at >= workers.ready_wall - 0.05
    assert summary.elapsed >= 1.0 and workers.ready_at is not None and time.monotonic() - workers.ready_at >= 1.0


def test_workers_never_ready_start_the_clock_after_as_long_again_as_the_budget(example):
    options = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=5, seed=1), budget=0.3)
    began = time.monotonic()
    summary = fuzz(config_mod.load(example), options, lambda e: None, Workers(ready=False))
    waited = time.monotonic() - began
    assert summary.exit_code == ExitCode.USAGE_ERROR and "was not searched" in (summary.errors[0].error or "")
    assert 0.6 <= waited, waited  # 0.3 s for a worker, then the budget's 0.3 s


class Stuck(Workers):
    """Workers whose one shard never ends, not even when asked to stop (a machine that swallows Ctrl-C): a Ctrl-C
    comes a moment after the shard was handed over."""

    def submit(self, shard: Any) -> None:
        super().submit(shard)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()

    def collect(self, timeout: float) -> list[Outcome]:
        time.sleep(min(timeout, 0.05))
        return []

    def interrupt(self) -> None:
        pass  # nothing stops


def test_a_campaign_whose_shard_does_not_stop_after_ctrl_c_gives_up_and_still_reports_what_it_ran(example, monkeypatch):
    monkeypatch.setattr(interrupts, "GRACE", 0.5)
    options = CampaignOptions(("machines/depositer.py",), None, Overrides(max_examples=5, seed=1))  # until Ctrl-C
    started = time.monotonic()
    summary = fuzz(config_mod.load(example), options, lambda e: None, Stuck())
    assert time.monotonic() - started < 30
    assert summary.interrupted and summary.exit_code == ExitCode.INTERRUPTED
    assert summary.shards == 1 and summary.items["machines/depositer.py::StateMachine"].shards == 1
    assert 0.5 < summary.elapsed < 30, summary.elapsed
