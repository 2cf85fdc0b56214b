"""`evmstate run` on revm with EVMSTATE_NATIVE=run draws a machine's runs through evmstate's own loop (engine/native.py),
as `evmstate fuzz` does: the same --seed gives the same programs run after run, the failure is saved, shrunk and
replayed as before; without it, and on py-evm, run keeps Hypothesis's loop. Mostly rejected runs and a deadline go to
Hypothesis's loop (fuzz's too)."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.engine.native import own_loop

from .helpers import invoke

pytest.importorskip("pyrevm", reason="pyrevm has no wheel for this Python (wheels exist for CPython 3.10 to 3.12)")

DEPOSITER_MINIMAL = """\
Falsifying example (2 steps):
state = StateMachine()
state.rule_deposit(address=accounts[0], value=1)
state.rule_withdraw(address=accounts[0], value=0)
"""


def loop_line(out: str) -> str:
    """The -v statistics line that says how the machine's runs were drawn."""
    found = re.search(r"^\s*evmstate's own loop: (.*)$", out, re.MULTILINE)
    assert found, out
    return found.group(1)


def program(out: str) -> str:
    return out[out.index("Falsifying example"):out.index("\n\n", out.index("Falsifying example"))]


@pytest.fixture()
def opted_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVMSTATE_NATIVE", "run")


def test_the_own_loop_is_chosen_on_revm_alone_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "evmstate.toml").write_text("")
    revm = BackendConfig(name="revm")
    assert not own_loop(config_mod.load(tmp_path).replace(backend=revm))  # run's default: Hypothesis's loop
    monkeypatch.setenv("EVMSTATE_NATIVE", "run")
    config = config_mod.load(tmp_path)
    assert config.environment.native and own_loop(config.replace(backend=revm))
    assert not own_loop(config)  # py-evm, run's default
    assert not own_loop(config.replace(backend=BackendConfig(name="pyevm", check=True)))
    assert not own_loop(config.replace(backend=BackendConfig(name="revm", check=True)))  # both in lockstep


def test_run_on_revm_draws_through_the_own_loop_and_the_same_seed_gives_the_same_program(example: Path, opted_in: None) -> None:
    args = ("run", "machines/depositer.py", "--backend", "revm", "--seed", "1", "-v")
    code, first = invoke(*args)
    assert code == 1, first
    assert loop_line(first).endswith("its failure replayed by Hypothesis"), first
    assert DEPOSITER_MINIMAL in first, first
    # found again from its seed alone (the example database and the saved record out of the way; the build kept: the
    # contracts compile the same)
    for kept in (example / ".evmstate").iterdir():
        if kept.is_dir() and kept.name != "build":
            shutil.rmtree(kept)
        elif kept.is_file():
            kept.unlink()
    code, again = invoke(*args)
    assert code == 1, again
    assert loop_line(again) == loop_line(first)
    assert program(again) == program(first)
    found = re.search(r"first failure at run: (\d+)", first)
    assert found is not None and f"first failure at run: {found.group(1)}" in again
    # its record replays, on the backend it was found on
    rid = re.search(r"replay with: evmstate replay (\w+)", again)
    assert rid is not None, again
    code, replayed = invoke("replay", rid.group(1))
    assert code == 1, replayed
    assert "state.rule_withdraw(address=accounts[0], value=0)" in replayed


def test_run_on_py_evm_keeps_hypothesis_loop(example: Path, opted_in: None) -> None:
    code, out = invoke("run", "machines/depositer.py", "--seed", "1", "-v")
    assert code == 1, out
    assert "evmstate's own loop" not in out
    assert DEPOSITER_MINIMAL in out, out


PICKY = '''
from hypothesis import assume

from evmstate import strategy


class Picky:
    x = strategy("uint256", max_value=1000)

    def rule_pick(self, x):
        assume(x == 7)


class Timed:
    settings = {"deadline": 10_000}
    x = strategy("uint8")

    def rule_tick(self, x):
        pass
'''


def test_a_machine_whose_runs_are_mostly_rejected_is_judged_by_hypothesis_health_check_on_revm(example: Path, opted_in: None) -> None:
    (example / "machines" / "picky.py").write_text(PICKY)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out = invoke(
            "run", "machines/picky.py::Picky", "--backend", "revm", "--max-examples", "20", "--steps", "5", "--seed", "1"
        )
    # the own loop's runs are not Hypothesis tests: assume() there says nothing of it to the user
    assert not [w for w in caught if "outside a property-based test" in str(w.message)], [str(w.message) for w in caught]
    assert code == 2, out
    assert "Picky: Hypothesis's filter_too_much health check failed" in out, out
    assert "in rule_pick, machines/picky.py:11: assume(x == 7)" in out, out


def test_a_machine_with_a_deadline_runs_under_hypothesis_on_revm_and_says_why(example: Path, opted_in: None) -> None:
    (example / "machines" / "picky.py").write_text(PICKY)
    code, out = invoke(
        "run", "machines/picky.py::Timed", "--backend", "revm", "--max-examples", "5", "--steps", "5", "-v"
    )
    assert code == 0, out
    assert loop_line(out).startswith("off: a [hypothesis] deadline is set"), out


def test_property_tests_run_on_revm_as_before(example: Path, opted_in: None) -> None:
    code, out = invoke("run", "machines/test_properties.py", "--backend", "revm", "--seed", "1", "-v")
    assert code == 0, out
    assert "2 passed" in out and "evmstate's own loop" not in out, out
