"""Runs thrown away by assume(): no green verdict on a machine that tested almost nothing."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck

from evmstate import MachineDefinitionError
from evmstate.config import HypothesisConfig
from evmstate.engine.settings import Overrides, build_settings

from .helpers import invoke

MACHINES = '''
from hypothesis import assume, reject

from evmstate import given, strategy


class Picky:
    x = strategy("uint256", max_value=1000)

    def __init__(cls, accounts, Depositer):
        cls.depositer = Depositer.deploy({"from": accounts[0]})

    def rule_deposit(self, x):
        assume(x == 7)
        self.depositer.deposit_for(self.depositer.address, {"value": x})

    def rule_nothing(self):
        pass

    def invariant_never_negative(self):
        # always holds (a uint256): the machine exists to count rejected runs, not to fail
        assert self.depositer.deposited(self.depositer.address) >= 0


class Choosy(Picky):
    def rule_deposit(self, x):
        if x % 8 == 0:  # zero, and one draw in eight besides: some runs, never most
            reject()
        self.depositer.deposit_for(self.depositer.address, {"value": x})


class Loose:
    x = strategy("uint256", max_value=1000)

    def rule_add(self, x):
        assume(x < 30)


class LooseOff(Loose):
    settings = {"suppress_health_check": ["filter_too_much"]}


@given(x=strategy("uint256", max_value=1000))
def test_picky(x):
    assume(x == 7)
'''


def line_of(text: str, nth: int = 0) -> int:
    """The line number of the nth line of MACHINES that is text, stripped."""
    return [i for i, line in enumerate(MACHINES.splitlines(), 1) if line.strip() == text][nth]


@pytest.fixture()
def machines(example):
    (example / "machines" / "picky.py").write_text(MACHINES)
    return example


def test_an_assume_heavy_rule_fails_the_health_check_naming_the_rule_and_the_line(machines):
    code, out = invoke("run", "machines/picky.py::Picky", "--max-examples", "20", "--steps", "5", "--seed", "1")
    assert code == 2, out
    assert "✓" not in out and "ERROR machines/picky.py::Picky" in out
    assert re.search(r"Picky: Hypothesis's filter_too_much health check failed: \d+ runs were rejected and \d+ kept, so the machine checked almost nothing\.", out), out
    assert re.search(rf"  \d+ rejected in rule_deposit, machines/picky.py:{line_of('assume(x == 7)')}: assume\(x == 7\)", out), out
    assert 'settings = {"suppress_health_check": ["filter_too_much"]} in the machine' in out
    assert out.splitlines()[-1] == "0 passed, 0 failed, 1 error"


def test_a_property_test_that_rejects_most_examples_fails_too(machines):
    code, out = invoke("run", "machines/picky.py::test_picky", "--max-examples", "20", "--seed", "1")
    assert code == 2, out
    assert "test_picky: Hypothesis's filter_too_much health check failed" in out
    assert re.search(rf"\d+ rejected in test_picky, machines/picky.py:{line_of('assume(x == 7)', 1)}: assume\(x == 7\)", out), out


def test_a_machine_whose_assume_rejects_a_few_runs_passes_and_says_so(machines):
    code, out = invoke("run", "machines/picky.py::Choosy", "--max-examples", "20", "--steps", "5", "--seed", "1", "--json", "out.json")
    assert code == 0, out
    (line,) = [line for line in out.splitlines() if line.startswith("✓ ")]
    m = re.search(r"examples 20/20, (\d+) runs? rejected by assume\(\)/reject\(\)", line)
    assert m, line
    (result,) = json.loads((machines / "out.json").read_text())["results"]
    assert result["rejected"] == int(m.group(1)) > 0


@pytest.mark.parametrize("where", ["machine", "evmstate.toml"])
def test_with_the_check_suppressed_it_passes_and_the_summary_counts_the_rejected_runs(machines, where):
    args = ("--max-examples", "20", "--steps", "5", "--seed", "1")
    if where == "machine":  # unsuppressed, the health check fails it (the same run for both cases: checked once)
        code, out = invoke("run", "machines/picky.py::Loose", *args)
        assert code == 2 and "Loose: Hypothesis's filter_too_much health check failed" in out, out
    else:
        toml = (machines / "evmstate.toml").read_text().replace("[hypothesis]\n", '[hypothesis]\nsuppress_health_check = ["filter_too_much"]\n')
        (machines / "evmstate.toml").write_text(toml)
    code, out = invoke("run", f"machines/picky.py::{'LooseOff' if where == 'machine' else 'Loose'}", *args)
    assert code == 0, out
    (line,) = [line for line in out.splitlines() if line.startswith("✓ ")]
    m = re.search(r"examples (\d+)/20, (\d+) runs rejected by assume\(\)/reject\(\)", line)
    assert m, line
    assert int(m.group(2)) > 50, line


def test_suppress_health_check_takes_names_or_members_and_keeps_the_others_off():
    settings, _ = build_settings(HypothesisConfig(), {}, Overrides(), "M")
    assert HealthCheck.filter_too_much not in settings.suppress_health_check
    assert set(settings.suppress_health_check) == set(HealthCheck) - {HealthCheck.filter_too_much}
    for given in (["filter_too_much"], [HealthCheck.filter_too_much], HealthCheck.filter_too_much):
        settings, _ = build_settings(HypothesisConfig(), {"suppress_health_check": given}, Overrides(), "M")
        assert set(settings.suppress_health_check) == set(HealthCheck)
    settings, _ = build_settings(HypothesisConfig(suppress_health_check=("filter_too_much",)), {"suppress_health_check": []}, Overrides(), "M")
    assert set(settings.suppress_health_check) == set(HealthCheck)
    with pytest.raises(MachineDefinitionError, match="M.settings: suppress_health_check: 'filter_to_much' is not a health check. Did you mean 'filter_too_much'"):
        build_settings(HypothesisConfig(), {"suppress_health_check": ["filter_to_much"]}, Overrides(), "M")
