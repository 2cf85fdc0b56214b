"""Every command's events end with one terminal event, whatever path the command took; the CLI prints the end from it."""

import pytest

from evmstate import config as config_mod
from evmstate.engine.events import ExitCode, ReplayFinished, ReplayStarted, RunFinished
from evmstate.mutate.report import MutateFinished
from evmstate.runner import CampaignOptions, MutateOptions, RunOptions, fuzz, mutate, replay, run
from evmstate.scale.events import CampaignFinished


def test_a_run_ends_with_run_finished_when_it_finds_nothing_and_when_it_runs(example):
    events: list = []
    summary = run(config_mod.load(example), RunOptions(keyword="NoSuchMachine"), events.append)
    assert summary.exit_code == ExitCode.NOTHING_FOUND
    assert isinstance(events[-1], RunFinished) and events[-1].summary is summary
    events.clear()
    summary = run(config_mod.load(example), RunOptions(("machines/depositer.py",), keyword="StateMachine"), events.append)
    assert summary.exit_code == ExitCode.FAILED
    assert [type(e) for e in events].count(RunFinished) == 1 and isinstance(events[-1], RunFinished)
    # the failure it saved replays, between its own start and end
    events.clear()
    result = replay(config_mod.load(example), None, events.append)
    assert isinstance(events[0], ReplayStarted) and isinstance(events[-1], ReplayFinished) and events[-1].result is result
    assert (result.verdict, result.exit_code) == ("still fails", ExitCode.FAILED)


def test_mutate_ends_with_mutate_finished_when_nothing_is_mutated(example):
    events: list = []
    report = mutate(config_mod.load(example), MutateOptions(keyword="NoSuchMachine", workers=1), events.append)
    assert report.nothing is not None and report.exit_code() == ExitCode.NOTHING_FOUND
    assert isinstance(events[-1], MutateFinished) and events[-1].exit_code == ExitCode.NOTHING_FOUND and events[-1].written == ()


@pytest.mark.processes
def test_a_campaign_ends_with_campaign_finished_when_it_finds_nothing(example):
    events: list = []
    summary = fuzz(config_mod.load(example), CampaignOptions(keyword="NoSuchMachine", budget=1.0), events.append)
    assert summary.exit_code == ExitCode.NOTHING_FOUND
    assert isinstance(events[-1], CampaignFinished) and events[-1].summary is summary
