"""Why a rule never ran, as the warning under the rule table says it."""

from evmstate.engine.events import MachineFinished, RuleStats


def finished(**kwargs) -> MachineFinished:
    return MachineFinished(name="M", kind="machine", path="m.py", examples=1, elapsed=0.1, **kwargs)


def test_a_rule_without_precondition_or_bundle_that_never_ran_says_the_machine_ended_first():
    rules = {"rule_swap": RuleStats(), "rule_take": RuleStats(gated=True)}
    at_once = finished(status="failed", steps=0, rules=rules)
    assert at_once.run_warnings == ["M.rule_swap never ran: the machine failed before its first step", "M.rule_take never ran: the machine failed before its first step"]
    later = finished(status="failed", steps=3, rules=rules)
    assert later.run_warnings == [
        "M.rule_swap never ran: the machine failed after 3 steps, before any step drew it",
        "M.rule_take never ran: its precondition never held or its bundle stayed empty",
    ]
    passed = finished(status="passed", steps=40, rules=rules)
    assert passed.run_warnings[0].startswith("M.rule_swap never ran: no step drew it")
