"""What a passing machine, and a campaign, say of the properties never checked on interesting state."""

import io

from rich.console import Console

from evmstate.engine.events import Canary, MachineFinished, RuleStats
from evmstate.scale.events import CampaignFinished, CampaignSummary, ItemTotals
from evmstate_cli.render import Renderer
from evmstate_cli.render_campaign import CampaignRenderer

CANARIES = {"rule_transfer": Canary("a transfer of a non-zero amount", checked=7, interesting=0), "rule_approve": Canary("an approval", checked=3, interesting=2)}


def test_a_passing_machine_warns_of_each_property_never_exercised_after_its_rules():
    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=1_000_000, no_color=True))
    renderer(MachineFinished(name="M", kind="machine", path="m.py", status="passed", examples=3, steps=9, elapsed=0.1, rules={"rule_transfer": RuleStats(calls=7)}, canaries=CANARIES))
    assert out.getvalue().endswith("warning: M.rule_transfer was checked 7 times but never on a transfer of a non-zero amount: it passed without testing anything\n"), out.getvalue()
    assert "rule_approve was checked" not in out.getvalue()


def test_a_campaign_warns_under_each_machine_that_has_not_failed():
    out = io.StringIO()
    renderer = CampaignRenderer(Console(file=out, width=1_000_000, no_color=True))
    summary = CampaignSummary(elapsed=2.0, shards=2, examples=4, steps=40, items={"m.py::M": ItemTotals(shards=2, examples=4, steps=40, canaries=CANARIES), "m.py::F": ItemTotals(shards=1, status="failed", canaries=CANARIES)})
    renderer(CampaignFinished(summary))
    lines = out.getvalue().splitlines()
    at = lines.index("  m.py::M: no failure, 2 shards, 4 runs, 40 steps")
    assert lines[at + 1] == "    warning: rule_transfer was checked but never on a transfer of a non-zero amount: it passed without testing anything"
    assert sum("warning:" in line for line in lines) == 1  # not under the machine that failed


def test_a_campaigns_failing_shard_shows_its_rules_as_the_shards_and_no_warning_about_them():
    """A shard that found a failure in its first runs may have called a rule three times, all reverted: that says
    little of the rule across the campaign. Its table is said to be the shard's, and no rule is warned of; `run`'s
    report of the same counts warns."""
    from evmstate.engine.events import Failure
    from evmstate.engine.tracebacks import ErrorInfo

    failure = Failure(name="M", path="m.py", error=ErrorInfo.of(AssertionError("boom")), program=["state = M()"], steps=1)
    event = MachineFinished(name="M", kind="machine", path="m.py", status="failed", examples=2, steps=9, elapsed=0.1, rules={"rule_withdraw": RuleStats(calls=3, transactions=3, transactions_reverted=3)}, failure=failure)
    out = io.StringIO()
    CampaignRenderer(Console(file=out, width=1_000_000, no_color=True))(event)
    assert "the rules in this shard (2 runs):" in out.getvalue() and "warning:" not in out.getvalue(), out.getvalue()
    out = io.StringIO()
    Renderer(Console(file=out, width=1_000_000, no_color=True))(event)
    assert "warning: M.rule_withdraw ran 3 times and every transaction it sent reverted" in out.getvalue(), out.getvalue()
