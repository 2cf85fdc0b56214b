"""A machine's own mistakes through the command line and under pytest: exit 2 with a summary (never a silent exit,
never exit 3 without a message), an ERROR under pytest, and nothing saved; falsified properties stay failures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .. import zygote
from ..conftest import evmstate_exe, warm_build
from ..forked_pytest import runpytest
from .helpers import invoke
from .machines import COUNTER

REPO = Path(__file__).resolve().parents[2]

EXITS = """
import sys
from evmstate import strategy


class ExitsInRule:
    x = strategy("uint8")

    def rule_a(self, x):
        if x > 3:
            sys.exit(0)


class ExitsInInit:
    x = strategy("uint8")

    def __init__(cls, accounts):
        sys.exit(3)

    def rule_a(self, x):
        pass


class InterruptsInInvariant:
    x = strategy("uint8")

    def rule_a(self, x):
        self.seen = x

    def invariant(self):
        if getattr(self, "seen", 0) > 3:
            raise KeyboardInterrupt
"""


def test_a_misused_api_is_exit_2_in_process_too(example):
    (example / "machines" / "calls.py").write_text(
        "from evmstate import strategy\n\nclass Calls:\n    x = strategy('uint8')\n\n    def __init__(cls, accounts, Token):\n"
        "        cls.token = Token.deploy('T', 'T', 18, 100, {'from': accounts[0]})\n\n    def rule_swap(self, x):\n        self.token.transfer('yes', x, 0)\n"
    )
    code, out = invoke("run", "machines/calls.py", "--max-examples", "3")
    assert code == 2, out
    assert "ERROR machines/calls.py::Calls\nCalls.rule_swap raised CallUsageError: Token.transfer takes 2 (_to: address, _value: uint256) arguments, got 3" in out
    assert "FAILED" not in out and "Falsifying" not in out and not (example / ".evmstate" / "failures").exists()


@pytest.mark.processes
def test_sys_exit_and_keyboard_interrupt_in_machine_code_end_the_installed_command_with_exit_2_and_a_summary(example, cli_env: dict[str, str]):
    (example / "machines" / "exits.py").write_text(EXITS)
    exe = evmstate_exe()
    env = cli_env
    # forked from the test zygote: a process of its own running the console script as a new one does (tests/zygote.py)
    proc = zygote.run([exe, "run", "machines/exits.py", "--seed", "1", "--max-examples", "20"], env=env, cwd=example, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = proc.stdout
    assert "ExitsInRule.rule_a raised SystemExit: 0" in out
    assert "ExitsInInit.__init__ raised SystemExit: 3" in out
    assert "InterruptsInInvariant.invariant raised KeyboardInterrupt" in out
    assert out.rstrip().endswith("0 passed, 0 failed, 3 errors"), out
    assert "Traceback (most recent call last)" not in proc.stdout + proc.stderr
    assert not (example / ".evmstate" / "failures").exists()


# beside the Counter of test_failures, which fails
BROKEN_MACHINES = COUNTER + """

class Broken:
    x = strategy("uint8")

    def rule_a(self, x):
        pass

    def invariant(self):
        assert self.totl == 0
"""

OUTSIDE = """
from depositer_machine import StateMachine
from evmstate import given, strategy
from hypothesis import settings


class BrokenMachine(StateMachine):
    def invariant(self):
        undefined_name


def test_broken_state_machine(Depositer, accounts, state_machine):
    state_machine(BrokenMachine, accounts, Depositer)


@settings(deadline=None)
@given(x=strategy("uint8"))
def test_name_error(accounts, x):
    if x > 3:
        undefined_name
"""


@pytest.mark.processes  # a pytest process of its own (forked: tests/forked_pytest.py)
def test_under_pytest_a_broken_machine_is_an_error_and_nothing_of_the_machines_mistakes_is_saved(pytester):
    root = Path(pytester.path)
    shutil.copytree(REPO / "contracts", root / "contracts")
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    shutil.copytree(warm_build(), root / ".evmstate" / "build")
    (root / "machines").mkdir()
    (root / "machines" / "machines.py").write_text(BROKEN_MACHINES)
    shutil.copy(REPO / "machines" / "depositer.py", root / "depositer_machine.py")
    (root / "tests").mkdir()
    (root / "tests" / "test_outside.py").write_text(OUTSIDE)
    result = runpytest(pytester, "-p", "no:cacheprovider", "-rA")
    out = result.stdout.str()
    # the machines folder as `evmstate run` sees it: Broken is an error, Counter a failure
    result.assert_outcomes(failed=3, errors=1)
    assert "ERROR machines/machines.py::Broken" in out and "Broken.invariant raised AttributeError: 'Broken' object has no attribute 'totl'" in out
    assert "FAILED machines/machines.py::Counter" in out
    # outside it, pytest fails the test, and evmstate saves nothing for the test's own mistakes
    assert "error in BrokenMachine (not a failure of the contract):" in out
    assert "not saved for replay: an error in the test itself" in out
    saved = [json.loads(p.read_text())["name"] for p in (root / ".evmstate" / "failures").glob("*.json")]
    assert saved == ["Counter"], saved
