"""A campaign's JSON report gives each failure's first sighting: the seconds from the campaign's start, and the runs before it."""

from __future__ import annotations

import json

from evmstate import config as config_mod
from evmstate.reports import campaign_json
from evmstate.runner import CampaignOptions, Overrides
from evmstate.scale.campaign import fuzz
from evmstate.scale.pool import ProjectSource

from .workers import InlineWorkers

# two steps above 250 fail it: several shards of two runs pass before one finds it
RARE = """
from evmstate import strategy

class Rare:
    x = strategy("uint8")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def setup(self):
        self.big = 0

    def rule_add(self, x):
        self.big += x > 250

    def invariant_big(self):
        assert self.big < 2
"""


def test_a_failure_found_after_several_shards_says_when_and_after_how_many_runs(example):
    (example / "machines" / "rare.py").write_text(RARE)
    cfg = config_mod.load()
    options = CampaignOptions(("machines/rare.py",), None, Overrides(max_examples=2, stateful_step_count=10, seed=1), budget=60.0, stop_on_failure=True)
    summary = fuzz(cfg, options, lambda e: None, InlineWorkers(ProjectSource(cfg, (str(example / "machines/rare.py"),))))
    assert summary.exit_code == 1
    (totals,) = summary.items.values()
    assert totals.status == "failed" and totals.shards > 2, "the seed finds it after a few shards"
    # shards run one after another here: every run of the machine but the failing one came before it
    assert totals.runs_before == totals.examples - 1
    assert 0 < totals.found_after <= summary.elapsed
    (failure,) = campaign_json(summary)["failures"]
    assert failure["found_after"] == round(totals.found_after, 3) and failure["runs_before"] == totals.runs_before
    # the shard that found it spent a fraction of that searching
    assert failure["found_after"] > failure["phases"]["search"]
    report = json.loads(json.dumps(campaign_json(summary)))
    assert report["items"]["machines/rare.py::Rare"]["runs_before"] == totals.runs_before
