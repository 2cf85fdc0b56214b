"""deployments.py's functions are pytest fixtures, deployed on each test's own chain, as `evmstate run` injects them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ..conftest import warm_build
from ..forked_pytest import runpytest

pytestmark = pytest.mark.processes  # each run is a pytest process of its own, forked from this one (tests/forked_pytest.py)

REPO = Path(__file__).resolve().parents[2]

DEPLOYMENTS = """\
def token(accounts, Token):
    return Token.deploy("T", "T", 18, 1000, {"from": accounts[0]})


def pool(accounts, Depositer, token):
    token.transfer(accounts[1], 10, {"from": accounts[0]})
    return Depositer.deploy({"from": accounts[0]})


def broken(accounts):
    raise ValueError("no pool today")
"""

TESTS = """\
from hypothesis import HealthCheck, settings
from evmstate import given, strategy


def test_a_deployment_and_what_it_asks_for_are_fixtures(pool, token, accounts):
    assert token.balanceOf(accounts[1]) == 10  # pool asked for token: one token, deployed once
    pool.deposit_for(accounts[1], {"from": accounts[0], "value": 5})
    assert pool.deposited(accounts[1]) == 5


def test_each_test_deploys_its_own_on_a_fresh_chain(pool, accounts):
    assert pool.deposited(accounts[1]) == 0


def test_nothing_is_left_behind(accounts):
    assert accounts[0].nonce == 0


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=10)
@given(value=strategy("uint256", max_value=100))
def test_every_example_starts_from_the_deployment(pool, accounts, value):
    assert pool.deposited(accounts[2]) == 0
    pool.deposit_for(accounts[2], {"from": accounts[0], "value": value})


def test_a_deployment_that_raises(broken):
    pass
"""


def test_deployments_are_fixtures_each_test_deploying_its_own(pytester: pytest.Pytester):
    root = Path(pytester.path)
    shutil.copytree(REPO / "contracts", root / "contracts")
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    shutil.copytree(warm_build(), root / ".evmstate" / "build")
    (root / "deployments.py").write_text(DEPLOYMENTS)
    pytester.makepyfile(test_pool=TESTS)
    result = runpytest(pytester, "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=4, errors=1)  # a fixture that fails is an error of the test's setup, as pytest has it
    out = result.stdout.str()
    assert "fixture 'pool' not found" not in out
    assert "the deployment deployments.py::broken raised ValueError: no pool today" in out and "During handling" not in out
