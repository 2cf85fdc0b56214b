"""A machine's own mistakes are errors in the machine (exit 2, nothing saved, the program that reached them shown),
never verdicts on the contract; a property that fails is a verdict however unusual its exception. The same line in
`run` (Hypothesis's loop), `fuzz` (evmstate's own loop), `replay` and `mutate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.engine.discovery import discover
from evmstate.engine.events import RunFinished
from evmstate.engine.item import RunRequest, run_item
from evmstate.errors import FailureRecordError
from evmstate.failures import FailureStore
from evmstate.runner import MutateOptions, Overrides, RunOptions, mutate, replay, run

from ..conftest import FASTEST, copy_example, copy_project, mutants_compiled_once


def run_source(root: Path, source: str, **overrides):
    """The machines in source, as machines/m.py of a copy of the bundled project (compiled once for the suite), run by `evmstate run`."""
    if not (root / "contracts").is_dir():
        copy_example(root)
    (root / "machines" / "m.py").write_text(source)
    events: list = []
    options = RunOptions(paths=(str(root / "machines" / "m.py"),), overrides=Overrides(seed=0, **overrides))
    return run(config_mod.load(root), options, events.append), events

# machines that deploy a token first
BASE = """
import sys
from evmstate import given, strategy


class Base:
    x = strategy("uint8")

    def __init__(cls, accounts, Token):
        cls.accounts = accounts
        cls.token = Token.deploy("T", "T", 18, 100, {"from": accounts[0]})
"""

MISTAKES = BASE + """

class Halt(BaseException):
    pass


class Leaving:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        sys.exit(2)


class WrongType(Base):
    def rule_transfer(self, x):
        self.token.transfer("yes", x)


class BadSender(Base):
    def rule_transfer(self, x):
        self.token.transfer(self.accounts[1], x, {"from": "bob"})


class TypoInInvariant(Base):
    def rule_a(self, x):
        pass

    def invariant(self):
        assert self.tokn.totalSupply() == 100


class ExitsInRule(Base):
    def rule_a(self, x):
        if x > 3:
            sys.exit(0)


class ExitsInInvariant(Base):
    def rule_a(self, x):
        self.seen = x

    def invariant(self):
        if getattr(self, "seen", 0) > 3:
            sys.exit(3)


class ExitsInInit:
    x = strategy("uint8")

    def __init__(cls, accounts):
        sys.exit(0)

    def rule_a(self, x):
        pass


class ExitsInSetup(Base):
    def setup(self):
        sys.exit(1)

    def rule_a(self, x):
        pass


class ExitsLeavingAContext(Base):
    def setup(self):
        self.enter(Leaving())

    def rule_a(self, x):
        pass


class InterruptsOnPurpose(Base):
    def rule_a(self, x):
        if x > 3:
            raise KeyboardInterrupt


class RaisesBaseException(Base):
    def rule_a(self, x):
        if x > 3:
            raise Halt("halt")


@given(x=strategy("uint8"))
def test_name_error(x):
    if x > 3:
        undefined_name


@given(x=strategy("uint8"))
def test_exits(x):
    if x > 3:
        sys.exit(0)
"""

ERRORS = {
    "WrongType": ("WrongType.rule_transfer raised ContractError: Token.transfer argument 1 (address): expected an account", 'self.token.transfer("yes", x)'),
    "BadSender": ("BadSender.rule_transfer raised ContractError: from: expected an account, a contract or a 0x-prefixed 40-digit hex address, got 'bob'", '{"from": "bob"}'),
    "TypoInInvariant": ("TypoInInvariant.invariant raised AttributeError: 'TypoInInvariant' object has no attribute 'tokn'", "assert self.tokn.totalSupply() == 100"),
    "ExitsInRule": ("ExitsInRule.rule_a raised SystemExit: 0", "sys.exit(0)"),
    "ExitsInInvariant": ("ExitsInInvariant.invariant raised SystemExit: 3", "sys.exit(3)"),
    "ExitsInInit": ("ExitsInInit.__init__ raised SystemExit: 0", "sys.exit(0)"),
    "ExitsInSetup": ("ExitsInSetup.setup raised SystemExit: 1", "sys.exit(1)"),
    "ExitsLeavingAContext": ("ExitsLeavingAContext raised SystemExit: 2", "sys.exit(2)"),
    "InterruptsOnPurpose": ("InterruptsOnPurpose.rule_a raised KeyboardInterrupt", "raise KeyboardInterrupt"),
    "RaisesBaseException": ("RaisesBaseException.rule_a raised Halt: halt", 'raise Halt("halt")'),
    "test_name_error": ("test_name_error raised NameError: name 'undefined_name' is not defined", "undefined_name"),
    "test_exits": ("test_exits raised SystemExit: 0", "sys.exit(0)"),
}


def test_the_machines_own_mistakes_are_errors_with_its_traceback_and_program_and_nothing_is_saved(tmp_path):
    summary, events = run_source(tmp_path, MISTAKES, max_examples=20, stateful_step_count=5)
    by_name = {r.name: r for r in summary.results}
    assert set(by_name) == set(ERRORS)
    for name, (head, line) in ERRORS.items():
        result = by_name[name]
        assert result.status == "error" and result.failure is None and not result.internal and result.broken, (name, result.status, result.error)
        assert result.error.startswith(head), (name, result.error)
        assert "Traceback (user code):" in result.error and line in result.error, (name, result.error)
    # in a rule or an invariant: the program that reached it, and why it is not a failure
    for name in ("WrongType", "BadSender", "TypoInInvariant", "ExitsInRule", "ExitsInInvariant", "InterruptsOnPurpose", "RaisesBaseException", "test_name_error"):
        assert "An error in the machine, not a failure of the contract: nothing is saved." in by_name[name].error, name
        assert "The program that reached it:\n" in by_name[name].error, name
    assert "The program that reached it:\n  state = WrongType()\n  state.rule_transfer(x=" in by_name["WrongType"].error
    assert "The program that reached it:\n  test_name_error(x=" in by_name["test_name_error"].error
    assert "sys.exit() (SystemExit) in a machine's code would end evmstate itself" in by_name["ExitsInInit"].error
    assert "KeyboardInterrupt is Ctrl-C's" in by_name["InterruptsOnPurpose"].error
    assert "Derive it from Exception to make it a failure" in by_name["RaisesBaseException"].error
    assert summary.exit_code == 2 and isinstance(events[-1], RunFinished), "a summary, exit 2: never a silent exit"
    assert not (tmp_path / ".evmstate" / "failures").exists()


VERDICTS = """
from evmstate import strategy


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text")

    def __repr__(self):
        raise RuntimeError("no repr")


class RaisesValueError:
    x = strategy("uint8")

    def rule_a(self, x):
        if x > 3:
            raise ValueError(f"invariant broken at {x}")


class RaisesGeneratorExit:
    x = strategy("uint8")

    def rule_a(self, x):
        if x > 3:
            raise GeneratorExit("stop")


class RaisesUnprintable:
    x = strategy("uint8")

    def rule_a(self, x):
        if x > 3:
            raise Unprintable()


class BrokenFromTheStart:
    x = strategy("uint8")

    def rule_a(self, x):
        pass

    def rule_swap(self, x):
        pass

    def invariant(self):
        assert False, "broken from the start"
"""


def test_exceptions_the_machine_raises_as_failures_are_verdicts_reported_and_saved_whatever_they_are(tmp_path, monkeypatch):
    summary, _ = run_source(tmp_path, VERDICTS, max_examples=20, stateful_step_count=5)
    by_name = {r.name: r for r in summary.results}
    assert {name: r.status for name, r in by_name.items()} == dict.fromkeys(by_name, "failed") and summary.exit_code == 1
    assert by_name["RaisesValueError"].failure.error.message == "invariant broken at 4"
    assert by_name["RaisesGeneratorExit"].failure.error.type == "GeneratorExit"
    unprintable = by_name["RaisesUnprintable"].failure
    assert (unprintable.error.type, unprintable.error.message) == ("Unprintable", "<unprintable Unprintable: its __str__ raised RuntimeError>")
    assert unprintable.program == ["state = RaisesUnprintable()", "state.rule_a(x=4)"]
    # a rule with no precondition and no bundle that never ran: the machine failed before any step
    assert by_name["BrokenFromTheStart"].run_warnings == [
        "BrokenFromTheStart.rule_a never ran: the machine failed before its first step",
        "BrokenFromTheStart.rule_swap never ran: the machine failed before its first step",
    ]
    store = FailureStore.of(config_mod.load(tmp_path))
    records = {store.load(rid).name: rid for rid in store.ids()}
    assert set(records) == set(by_name), "every failure is saved, the unprintable one too"
    monkeypatch.chdir(tmp_path)
    for name in ("RaisesGeneratorExit", "RaisesUnprintable"):
        result = replay(config_mod.load(tmp_path), records[name], lambda e: None)
        assert result.verdict == "still fails", (name, result)


FUZZED = BASE + """

class WrongTypeLater(Base):
    def rule_a(self, x):
        if x > 3:
            self.token.transfer(self.accounts[1], float(x))


class ExitsLater(Base):
    def rule_a(self, x):
        if x > 3:
            sys.exit(0)


class FailsLater(Base):
    def rule_a(self, x):
        if x > 3:
            raise GeneratorExit("stop")
"""


@pytest.mark.parametrize("native", [False, True], ids=["hypothesis's loop", "evmstate's own loop"])
def test_fuzz_draws_the_same_line_in_both_search_loops(tmp_path, native):
    copy_example(tmp_path)
    (tmp_path / "machines" / "m.py").write_text(FUZZED)
    config = config_mod.load(tmp_path)
    project = Project(config)
    project.activate()
    results = {}
    for item in discover(config, (str(tmp_path / "machines" / "m.py"),)).items:
        request = RunRequest(overrides=Overrides(max_examples=20, stateful_step_count=5, seed=1), seed=1, native=native, corpus=True, save_failures=False)
        results[item.name] = run_item(config, project, item, request, lambda e: None)
    if native:
        for name, result in results.items():
            loop = result.statistics["evmstate's own loop"]
            assert not loop.startswith("off"), (name, loop)
    assert results["WrongTypeLater"].status == "error" and results["WrongTypeLater"].broken
    assert "WrongTypeLater.rule_a raised ContractError: Token.transfer argument 2 (uint256): expected an integer for uint256, got float" in results["WrongTypeLater"].error
    assert results["ExitsLater"].status == "error" and results["ExitsLater"].error.startswith("ExitsLater.rule_a raised SystemExit: 0")
    assert results["FailsLater"].status == "failed" and results["FailsLater"].failure.error.type == "GeneratorExit"


def test_a_record_whose_replay_meets_a_mistake_of_the_machine_cannot_be_replayed_rather_than_fixed(tmp_path, monkeypatch):
    summary, _ = run_source(tmp_path, VERDICTS.split("class RaisesGeneratorExit")[0], max_examples=20, stateful_step_count=5)
    (result,) = summary.results
    assert result.status == "failed"
    machine = tmp_path / "machines" / "m.py"
    machine.write_text(machine.read_text().replace('raise ValueError(f"invariant broken at {x}")', "raise ValueError(f'invariant broken at {self.missing}')"))
    monkeypatch.chdir(tmp_path)
    config = config_mod.load(tmp_path)
    (rid,) = FailureStore.of(config).ids()
    with pytest.raises(FailureRecordError) as info:
        replay(config, rid, lambda e: None)
    message = str(info.value)
    assert message.startswith(f"failure {rid} cannot be replayed: RaisesValueError.rule_a raised AttributeError: 'RaisesValueError' object has no attribute 'missing'")
    assert "The program that reached it:\n  state = RaisesValueError()\n  state.rule_a(x=4)" in message


MUTATE_PROJECT = Path(__file__).resolve().parents[1] / "projects" / "mutate"

# checks the total, as the project's own machine does, but breaks (an AttributeError) when it is wrong
BREAKS_ON_MUTANTS = """
from evmstate import strategy


class VaultMachine:
    amount = strategy("uint256", max_value=100)

    def __init__(cls, accounts, Vault):
        cls.accounts = accounts
        cls.vault = Vault.deploy({"from": accounts[0]})

    def setup(self):
        self.total = 0

    def rule_deposit(self, amount):
        self.vault.deposit(amount, {"from": self.accounts[1]})
        self.total += amount

    def invariant_total(self):
        if self.vault.total() != self.total:
            self.report_the_difference()  # never written: an AttributeError, reached only where the total is wrong
"""


@pytest.mark.quality  # mutants compiled and judged by searches
def test_a_machine_that_breaks_on_a_mutant_does_not_kill_it(tmp_path):
    copy_project(MUTATE_PROJECT, tmp_path)  # with the vault's build: only the mutants are compiled
    (tmp_path / "machines" / "vault.py").write_text(BREAKS_ON_MUTANTS)
    # on revm where installed: a machine breaking on a mutant does not depend on the EVM, and revm's searches cost less
    with open(tmp_path / "evmstate.toml", "a") as f:
        f.write(f'\n[backend]\nname = "{FASTEST}"\n')
    # each mutant judged again, not compiled again: the vault's mutants, kept where test_mutate.py keeps them
    with mutants_compiled_once(tmp_path, "kept-mutants-vault"):
        report = mutate(config_mod.load(tmp_path), MutateOptions(workers=1, functions=("deposit",), max_examples=10, steps=4), lambda e: None)
    (judge,) = report.judges
    assert judge.status == "passed", judge.message
    broke = [m for m in report.mutants if m.status == "error"]
    assert broke and all(m.broken and m.kill is None for m in broke)
    assert all("a judge broke on it (an error in the machine, not a kill): machines/vault.py::VaultMachine: VaultMachine.invariant_total raised AttributeError" in m.reason for m in broke)
    assert not [m for m in report.mutants if m.kill is not None and "AttributeError" in m.kill.error]
    assert report.exit_code() == 2, "the machine is to fix, not evmstate (3)"
    assert json.loads(report.json())["mutants"][report.mutants.index(broke[0])]["broken_machine"] is True


# the mistake is in rule_burn alone (an amount as a float), past a draw above 9: the search reaches it after other steps
LATE_MISTAKE = BASE + """

class LateMistake(Base):
    def rule_transfer(self, x):
        self.token.transfer(self.accounts[1], x % 2, {"from": self.accounts[0]})

    def rule_approve(self, x):
        self.token.approve(self.accounts[2], x, {"from": self.accounts[0]})

    def rule_burn(self, x):
        if x > 9:
            self.token.transfer(self.accounts[1], float(x), {"from": self.accounts[0]})
"""


def test_the_program_shown_for_a_mistake_of_the_machine_is_made_shorter(tmp_path):
    """The program that reached an error of the machine is shown without the steps it does not need: here the one call
    of the rule that raises it (the steps before it left out one at a time while the replay still raises it)."""
    summary, _ = run_source(tmp_path, LATE_MISTAKE, max_examples=20, stateful_step_count=8)
    (result,) = summary.results
    assert result.status == "error" and result.broken and "LateMistake.rule_burn raised" in result.error, result.error
    program = result.error.split("The program that reached it:\n")[1].splitlines()
    assert program[0] == "  state = LateMistake()", program
    assert len(program) == 2 and program[1].startswith("  state.rule_burn(x="), program
    assert summary.exit_code == 2 and not (tmp_path / ".evmstate" / "failures").exists()


def test_a_mistakes_program_loses_the_steps_and_waits_it_does_not_need(tmp_path):
    """shorter_error on a recorded program: the step before the one that raises the mistake goes, and so does the wait
    before it; what is left raises the same error."""
    from evmstate.engine.loader import load_module
    from evmstate.engine.program import init_class, run_program
    from evmstate.engine.recorded import RecordedStep
    from evmstate.engine.shrink.trials import shorter_error
    from evmstate.spec import collect

    copy_example(tmp_path)
    (tmp_path / "machines" / "m.py").write_text(LATE_MISTAKE)
    project = Project(config_mod.load(tmp_path))
    spec = collect(load_module(tmp_path / "machines" / "m.py").LateMistake)
    init_class(spec, project)
    base = project.backend.snapshot()
    steps = [
        RecordedStep("rule_approve", {"x": 5}, delay=(86_400, 1)),
        RecordedStep("rule_burn", {"x": 12}, delay=(3_600, 1)),
    ]
    error = run_program(spec, project, steps, strict=True).error
    assert isinstance(error, Exception) and "float" in str(error)
    project.backend.revert(base)
    assert shorter_error(spec, project, base, steps, error) == ["state.rule_burn(x=12)"]
    # a program that raises it no shorter: None (the program is shown as it ran)
    project.backend.revert(base)
    assert shorter_error(spec, project, base, [RecordedStep("rule_burn", {"x": 12})], error) is None
