"""evmstate's own search loop (engine/native.py, search/native/): its choices replay through Hypothesis to the
same values, its failures are replayed, saved and shrunk by Hypothesis, and one Hypothesis does not reproduce
is an internal error naming both programs."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evmstate import config as config_mod
from evmstate import strategy
from evmstate.contracts.project import Project
from evmstate.engine import delays
from evmstate.engine.discovery import discover
from evmstate.engine.item import RunRequest, run_item
from evmstate.engine.swarm import rule_order, swarm_strategy
from evmstate.spec import collect
from evmstate.runner import Overrides
from evmstate.search import dictionary as dictionary_mod
from evmstate.search.dictionary import Dictionary
from evmstate.search.guidance import Entry, Guide, register, unregister
from evmstate.search.native.choices import NativeData, Unsupported, check, size

from ..conftest import copy_example, without_shrinking


class Five:
    x = strategy("uint8")

    def rule_a(self, x):
        pass

    def rule_b(self):
        pass

    def rule_c(self):
        pass

    def rule_d(self):
        pass

    def rule_e(self):
        pass


def _delay(draw: Any) -> Any:
    return delays.draw_delay(draw, 365 * 86_400, 10_000, (1_700_000_000, 100), ([1_700_000_500, 1_800_000_000], [150]))


_DELAY = st.composite(_delay)()
_DELAY.evmstate_draw = _delay  # as engine/native.py gives the step's composite


def kinds() -> list[tuple[str, Any]]:
    """Every kind of strategy the native loop draws, as machines meet them."""
    return [
        ("an index", st.integers(min_value=0, max_value=3)),
        ("a wide integer", st.integers(min_value=-(2**255), max_value=2**255 - 1)),
        ("a boolean", st.booleans()),
        ("fixed bytes", st.binary(min_size=32, max_size=32)),
        ("bytes of a size within bounds", st.binary(min_size=2, max_size=5)),
        ("bytes", strategy("bytes")),
        ("bytes up to a length", strategy("bytes", max_length=3)),
        ("uint256", strategy("uint256")),
        ("uint256 with bounds", strategy("uint256", min_value=5, max_value="1 ether")),
        ("int8", strategy("int8")),
        ("bool", strategy("bool")),
        ("bytes4", strategy("bytes4")),
        ("bytes32", strategy("bytes32")),
        ("address", strategy("address")),
        ("the first accounts", strategy("address", length=3)),
        ("a swarm", swarm_strategy(rule_order(collect(Five).rules))),
        ("a wait", _DELAY),
        ("a tuple", strategy("(uint256,bool,address,bytes32)")),
    ]


KINDS = 18


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = copy_example(tmp_path_factory.mktemp("native"))
    project = Project(config_mod.load(root))
    project.activate()
    return project


def replayed(strategy_: Any, choices: list[Any]) -> tuple[Any, list[Any]]:
    """The value Hypothesis draws from strategy_ when the guided provider returns choices, and the choices it recorded."""
    guide = Guide(0)
    guide.queued.append(Entry(list(choices), 0, []))
    name = register(guide)
    seen: list[tuple[Any, list[Any]]] = []
    try:

        @settings(backend=name, max_examples=3, database=None, derandomize=True)
        @given(st.data())
        def run(data: Any) -> None:
            provider = guide.current
            mine = guide.replaying and provider is not None and not seen
            value = data.draw(strategy_)
            if mine:
                seen.append((value, list(provider.record)))

        run()
    finally:
        unregister(name)
    assert seen, "Hypothesis never drew the queued run"
    return seen[0]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.nested_given, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32), which=st.integers(min_value=0, max_value=KINDS - 1), known=st.booleans())
def test_native_choices_replay_through_hypothesis_to_the_same_values(project: Project, seed: int, which: int, known: bool) -> None:
    name, strategy_ = kinds()[which]
    d = Dictionary(0.5, [a.raw_address for a in project.accounts])
    if known:  # values the contracts know: the draws' dictionary gates and indexes too
        for v in (3, 7, 10**18, 2**160 + 5, 0xDEADBEEF << 224):
            d.literals.append(v)
        d.literals.sort()
        d.addresses.append(bytes.fromhex("11" * 20))
    with dictionary_mod.using(d if known else None):
        data = NativeData(random.Random(seed))
        value = data.draw(strategy_)
        again, recorded = replayed(strategy_, data.record)
    assert again == value, name
    assert recorded == data.record, name  # the same kinds, constraints and values, choice by choice


def test_every_kind_is_drawn_by_the_property_above() -> None:
    assert len(kinds()) == KINDS


def test_a_strategy_the_native_loop_cannot_draw_is_named() -> None:
    assert check([("rule_x's amounts", st.lists(st.integers()))], random.Random(0)) == "rule_x's amounts draws lists(integers())"
    with pytest.raises(Unsupported):
        NativeData(random.Random(0)).draw(strategy("uint8", exclude=3))


def run_one(root: Path, path: str, seed: int, **overrides: Any) -> Any:
    config = config_mod.load(root)
    (item,) = discover(config, (str(root / path),)).items
    project = Project(config)
    project.activate()
    request = RunRequest(overrides=Overrides(seed=seed, **overrides), seed=seed, native=True, corpus=True, save_failures=False)
    return run_item(config, project, item, request, lambda e: None)


def test_a_failure_of_the_native_loop_is_replayed_saved_and_shrunk_by_hypothesis(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    result = run_one(root, "machines/depositer.py", 1, max_examples=50)
    assert result.status == "failed"
    loop = result.statistics["evmstate's own loop"]
    assert loop.endswith("its failure replayed by Hypothesis"), loop
    assert result.failure.program == ["state = StateMachine()", "state.rule_deposit(address=accounts[0], value=1)", "state.rule_withdraw(address=accounts[0], value=0)"]
    assert result.failure.shrink.first_steps > 2  # found longer by the native loop, shrunk after Hypothesis replayed it
    saved = [p for p in (root / ".evmstate" / "examples").rglob("*") if p.is_file()]
    assert saved, "Hypothesis saved nothing to the example database"
    # the next run finds it in the example database (Hypothesis's reuse phase, before the native loop)
    again = run_one(root, "machines/depositer.py", 2, max_examples=50)
    assert again.failure.program == result.failure.program
    assert again.statistics["evmstate's own loop"].startswith("0 runs"), again.statistics


FLAKY = """
STEPS = [0]


class Flaky:
    settings = {"max_time_delay": 0, "max_block_delay": 0}

    def rule_tick(self):
        STEPS[0] += 1
        assert STEPS[0] != 3, "only the process's third step fails"
"""


def test_a_failure_hypothesis_does_not_reproduce_is_an_internal_error_naming_both_programs(tmp_path: Path) -> None:
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "flaky.py").write_text(textwrap.dedent(FLAKY))
    (tmp_path / "evmstate.toml").write_text("")
    result = run_one(tmp_path, "machines/flaky.py", 0, max_examples=20, stateful_step_count=5)
    assert result.status == "error" and result.internal, result
    assert "NotReproduced: Flaky: Hypothesis did not reproduce a failure of evmstate's own search loop" in result.error
    native, hypothesis = result.error.split("Hypothesis, given the same", 1)
    assert "raised AssertionError: only the process's third step fails" in native
    assert "state = Flaky()\nstate.rule_tick()\nstate.rule_tick()\nstate.rule_tick()" in native
    assert "ran (passed)" in hypothesis and "state = Flaky()\nstate.rule_tick()" in hypothesis


ALWAYS = """
class Always:
    settings = {"max_time_delay": 0, "max_block_delay": 0}

    def rule_fail(self):
        assert False, "every run fails"
"""


def test_a_failure_hypothesis_finds_before_it_replays_the_native_run_is_reported(tmp_path: Path) -> None:
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "always.py").write_text(textwrap.dedent(ALWAYS))
    (tmp_path / "evmstate.toml").write_text("")
    result = run_one(tmp_path, "machines/always.py", 0, max_examples=20, stateful_step_count=5)
    assert result.status == "failed", result.error
    assert result.statistics["evmstate's own loop"].endswith("its failure found again by Hypothesis's simplest run before the replay"), result.statistics
    assert result.failure.program == ["state = Always()", "state.rule_fail()"]


LISTS = """
from hypothesis import strategies as st


class Lists:
    xs = st.lists(st.integers(0, 9), max_size=3)

    def rule_push(self, xs):
        assert sum(xs) < 20
"""


def test_a_machine_with_a_strategy_the_loop_cannot_draw_runs_under_hypothesis_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "lists.py").write_text(textwrap.dedent(LISTS))
    (tmp_path / "evmstate.toml").write_text("[hypothesis]\n")
    without_shrinking(tmp_path)  # the point is who searched, not the program's length
    result = run_one(tmp_path, "machines/lists.py", 0, max_examples=200)
    assert result.statistics["evmstate's own loop"].startswith("off: rule_push's xs draws lists("), result.statistics
    assert result.status == "failed"


BIG = """
from evmstate import strategy


class Big:
    word = strategy("bytes32")
    yes = strategy("bool")

    def setup(self):
        self.ticks = 0

    def rule_big(self, word, w2="word", w3="word", w4="word", w5="word", w6="word", w7="word", w8="word"):
        pass

    def rule_bigger(self, word, w2="word", w3="word", w4="word", w5="word", w6="word", w7="word", w8="word"):
        pass

    def rule_tick(self, flag="yes"):
        self.ticks += flag  # a tick needs flag: Hypothesis's simplest run (flag False throughout) passes

    def invariant(self):
        assert self.ticks < 40
"""


def test_a_failing_run_over_hypothesis_buffer_is_cut_to_fit_before_hypothesis_replays_it(tmp_path: Path) -> None:
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "big.py").write_text(textwrap.dedent(BIG))
    (tmp_path / "evmstate.toml").write_text("")
    result = run_one(tmp_path, "machines/big.py", 0, max_examples=20, stateful_step_count=300)
    assert result.status == "failed", result.error
    loop = result.statistics["evmstate's own loop"]
    assert "its failure replayed by Hypothesis (steps removed first:" in loop, loop
    assert result.failure.message == "assert 40 < 40" and result.failure.steps >= 40


@settings(max_examples=200, derandomize=True)
@given(st.lists(st.one_of(st.booleans(), st.integers(-(2**300), 2**300), st.binary(max_size=300)), max_size=20))
def test_the_size_of_choices_is_what_hypothesis_counts_against_its_buffer(values: list[Any]) -> None:
    from hypothesis.database import choices_to_bytes  # Hypothesis's public serialization of choices

    kinds = {bool: "boolean", int: "integer", bytes: "bytes"}
    assert size([(kinds[type(v)], {}, v) for v in values]) == len(choices_to_bytes(values))
