"""evmstate mutate on a small vault: what each mutant comes to, what is kept for the next run, what stays untouched.

The project (tests/projects/mutate) is made for it: its machine checks the balances and the total
but not the events, the owner or the cap; a rule of its own withdraws part of a balance, all of it
or more (which must revert); nothing calls pause() or above(); an unused constant, a uint8 cap at
255 and a comparison against it make a mutant of each dropped kind. Its budget is large enough
that every verdict below follows from what the machine checks, whatever the seed.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.engine.discovery import discover
from evmstate.engine.item import RunRequest, run_item
from evmstate.engine.settings import Overrides
from evmstate.contracts.project import Project
from evmstate.failures import FailureRecord, FailureStore
from evmstate.mutate.report import BaselineFinished, MutantFinished, MutateFinished, MutateStarted
from evmstate.runner import MutateOptions, mutate

from ..conftest import mutants_compiled_once, warm_build

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "mutate"
# where the vault's compiled mutants are kept between test processes and runs (tests/conftest.py mutants_compiled_once)
VAULT_MUTANTS = "kept-mutants-vault"


def copy_project(dest: Path) -> Path:
    shutil.copytree(PROJECT, dest, dirs_exist_ok=True)
    shutil.copytree(warm_build(PROJECT), dest / ".evmstate" / "build")  # the real vault's build: only the mutants are compiled
    if importlib.util.find_spec("pyrevm") is not None:  # the verdicts do not depend on the EVM; revm's searches cost less
        with open(dest / "evmstate.toml", "a") as f:
            f.write('\n[backend]\nname = "revm"\n')
    return dest


def run(root: Path, **options):
    events: list = []
    report = mutate(config_mod.load(root), MutateOptions(workers=1, **options), events.append)
    return report, events


def outcome(report, line, after):
    found = [m for m in report.mutants if m.line == line and m.after == after]
    assert len(found) == 1, [(m.line, m.after) for m in report.mutants if m.line == line]
    return found[0]


# mutants judged by real searches: the quality tier (the operators' unit tests are quick)
pytestmark = pytest.mark.quality


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """The vault mutated once; the tests read the report and run again on the same copy.

    Its mutants compiled once for every test process and run (mutants_compiled_once, shared with
    test_machine_mistakes.py, which mutates the same vault): the module's tests split between two workers
    judge all of them twice, and compile them once. test_a_kept_verdict_needs_no_build_and_a_lost_build_is_compiled_again
    compiles two of them in every run, and a clean clone's first run compiles them all here.
    """
    root = copy_project(tmp_path_factory.mktemp("vault"))
    with mutants_compiled_once(root, VAULT_MUTANTS):
        report, events = run(root)
    return root, report, events


def test_a_mutant_the_invariants_see_is_killed_and_the_report_names_the_invariant(judged):
    _, report, _ = judged
    credited = outcome(report, 26, "pass")  # self.balances[msg.sender] += amount, gone
    assert credited.status == "killed"
    assert (credited.kill.by, credited.kill.kind, credited.kill.stage) == ("VaultMachine.invariant_balances", "invariant", "search")
    assert credited.kill.steps >= 1 and credited.kill.error.startswith("AssertionError")
    total = outcome(report, 27, "pass")  # self.total += amount, gone
    assert (total.status, total.kill.by) == ("killed", "VaultMachine.invariant_total")
    # a rule that expects a revert kills the mutant that takes the check away: the underflow reverts without the reason
    check = outcome(report, 33, "pass")
    assert (check.status, check.kill.by, check.kill.kind) == ("killed", "VaultMachine.rule_withdraw_too_much", "rule")
    assert check.kill.error.startswith("AssertionError") and "reverts('insufficient')" in check.kill.error
    # withdrawing the whole balance, which the model allows, now reverts
    whole = outcome(report, 33, 'assert self.balances[msg.sender] > amount, "insufficient"')
    assert (whole.status, whole.kill.by, whole.kill.kind) == ("killed", "VaultMachine.rule_withdraw_all", "rule")
    assert "revert" in whole.kill.error.lower()
    # a withdrawal that debits the account wrongly, or leaves the total wrong
    debits = [outcome(report, 34, a) for a in ("pass", "self.balances[msg.sender] += amount", "self.balances[msg.sender] = amount")]
    assert {(m.status, m.kill.by) for m in debits} == {("killed", "VaultMachine.invariant_balances")}
    totals = [outcome(report, 35, a) for a in ("pass", "self.total += amount", "self.total = amount")]
    assert {(m.status, m.kill.by) for m in totals} == {("killed", "VaultMachine.invariant_total")}


def test_what_no_invariant_checks_survives_and_what_no_rule_reaches_is_not_covered(judged):
    _, report, _ = judged
    assert outcome(report, 28, "pass").status == "survived"  # log Deposited: no one reads the events
    assert outcome(report, 24, "pass").status == "survived"  # assert not self.paused: nothing pauses
    assert outcome(report, 19, "pass").status == "survived"  # self.owner = msg.sender: no one asks the owner
    # every call comes straight from an account, where tx.origin is msg.sender
    swapped = [m for m in report.mutants if m.operator == "sender swapped" and m.function != "pause"]
    assert sorted(m.line for m in swapped) == [19, 26, 28, 33, 34] and all(m.status == "survived" for m in swapped)
    pause = [m for m in report.mutants if m.function == "pause"]
    assert pause and all(m.status == "not covered" for m in pause)
    assert outcome(report, 41, "pass").reason == "line 41 is never reached by VaultMachine"
    assert all(m.compile_seconds == 0 for m in pause), "a mutant no run reaches is not compiled"


def test_mutants_that_do_not_compile_or_compile_to_known_code_are_dropped_and_say_why(judged):
    _, report, _ = judged
    assert [m.reason for m in report.mutants if m.line == 8] == ["equivalent: compiles to the same code as the real contract"] * 2
    too_big = outcome(report, 9, "MAX_DEPOSIT: constant(uint8) = 256")
    assert too_big.status == "dropped" and too_big.reason.startswith("does not compile: TypeMismatch")
    smaller = outcome(report, 9, "MAX_DEPOSIT: constant(uint8) = 254")
    below = outcome(report, 25, 'assert amount < convert(MAX_DEPOSIT, uint256), "too much"')
    assert below.status == "dropped"
    assert below.reason == f"duplicate of {smaller.id} (line 9: MAX_DEPOSIT: constant(uint8) = 254): compiles to the same code"
    assert smaller.status == "survived", "no rule deposits 255: the cap's boundary is not checked"


def test_the_report_counts_per_contract_and_per_function_and_scores(judged):
    _, report, events = judged
    assert report.counts == {"killed": 14, "survived": 10, "not covered": 10, "dropped": 4, "error": 0}
    assert report.score == pytest.approx(14 / 34)
    rows = {(g, f): c for g, f, c in report.table()}
    assert rows[("Vault", "withdraw")] == {"killed": 8, "survived": 2, "not covered": 0, "dropped": 0, "error": 0}
    assert rows[("Vault", "pause")]["not covered"] == 5
    started = next(e for e in events if isinstance(e, MutateStarted))
    assert (started.sources, started.mutants, started.judges) == (("contracts/Vault.vy",), 38, ("machines/vault.py::VaultMachine",))
    assert [e.done for e in events if isinstance(e, MutantFinished)] == list(range(1, 39))
    baseline = next(e for e in events if isinstance(e, BaselineFinished))
    assert baseline.outcome.status == "passed"
    assert isinstance(events[-1], MutateFinished) and events[-1].report is report  # the terminal event
    assert sum(isinstance(e, MutateFinished) for e in events) == 1


def test_the_json_and_html_reports_hold_the_same(judged, tmp_path):
    _, report, _ = judged
    report.write_json(tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["counts"] == report.counts and data["score"] == report.score
    killed = next(m for m in data["mutants"] if m["line"] == 26 and m["after"] == "pass")
    assert killed["killed_by"]["by"] == "VaultMachine.invariant_balances" and killed["contract"] == "Vault" and killed["function"] == "deposit"
    assert {"contract": "Vault", "function": "pause", "killed": 0, "survived": 0, "not covered": 5, "dropped": 0, "error": 0, "score": 0.0} in data["table"]
    page = report.html(judged[0])
    assert "Survived: what the invariants do not check" in page
    assert "log Deposited(owner=msg.sender, amount=amount)" in page and "killed by VaultMachine.invariant_balances" in page


def test_a_second_run_with_nothing_changed_judges_and_compiles_nothing_again(judged):
    root, first, _ = judged
    again, events = run(root)
    assert again.workers == "none needed"
    assert [(m.id, m.status, m.reason, m.kill) for m in again.mutants] == [(m.id, m.status, m.reason, m.kill) for m in first.mutants]
    assert all(m.cached for m in again.mutants if m.status in ("killed", "survived"))
    assert {k: v for k, v in again.timing.items() if k != "parent_cpu"} == dict.fromkeys(("baseline", "baseline_cpu", "compile", "judge", "judge_cpu"), 0.0)
    assert next(e for e in events if isinstance(e, BaselineFinished)).outcome.cached


def test_an_edited_machine_judges_again_without_compiling_again(tmp_path, judged):
    root = tmp_path / "vault"
    shutil.copytree(judged[0], root)
    machine = root / "machines" / "vault.py"
    machine.write_text(machine.read_text() + "\n# edited\n")
    report, _ = run(root, functions=("withdraw",))
    assert report.timing["compile"] == 0.0 and report.timing["judge"] > 0
    assert not any(m.cached for m in report.mutants)
    assert [m.status for m in report.mutants] == [m.status for m in judged[1].mutants if m.function == "withdraw"]


def test_saved_failures_and_the_corpus_are_replayed_first_and_left_as_they_were(tmp_path, judged):
    root = copy_project(tmp_path)
    # the project's build and the mutants compiled by the first run (kept by content); not its baselines or verdicts
    for kept in ("build", "mutants/compiled", "mutants/build"):
        shutil.copytree(judged[0] / ".evmstate" / kept, root / ".evmstate" / kept, dirs_exist_ok=True)
    config = config_mod.load(root)
    # a failure saved once and fixed since: on the real code its program passes
    steps = [
        {"rule": "rule_deposit", "arguments": {"account": {"account": 1}, "amount": 5}, "results": []},
        {"rule": "rule_withdraw", "arguments": {"account": {"account": 1}, "amount": 2}, "results": []},
    ]
    record = FailureRecord("fixedbug01", "machine", "machines/vault.py", "VaultMachine", {"type": "AssertionError", "message": ""}, steps, ["state = VaultMachine()"])
    FailureStore.of(config).save(record)
    # a corpus, kept as a campaign keeps it
    (item,) = discover(config).items
    run_item(config, Project(config), item, RunRequest(overrides=Overrides(12, 6, 3), save_failures=False, corpus=True), lambda e: None)
    corpus = sorted(p.read_bytes() for p in (root / ".evmstate" / "corpus").rglob("*.run"))
    assert corpus
    report, _ = run(root, functions=("withdraw", "deposit"))
    assert report.timing["compile"] == 0.0 and not any(m.cached for m in report.mutants)
    stages = {m.kill.stage for m in report.mutants if m.kill is not None}
    assert "saved failure" in stages and "corpus" in stages
    debit = outcome(report, 34, "pass")  # self.balances[msg.sender] -= amount, gone: the saved program sees it at once
    assert (debit.kill.stage, debit.kill.by, debit.kill.steps) == ("saved failure", "VaultMachine.invariant_balances", 2)
    assert sorted(p.read_bytes() for p in (root / ".evmstate" / "corpus").rglob("*.run")) == corpus
    assert FailureStore.of(config).ids() == ["fixedbug01"]
    assert not (root / ".evmstate" / "examples").exists() or not any((root / ".evmstate" / "examples").rglob("*"))


def test_a_contract_or_function_that_is_not_there_is_a_usage_error_that_names_those_that_are(tmp_path):
    from evmstate.errors import UsageError

    root = copy_project(tmp_path)
    with pytest.raises(UsageError, match=r"--contract Valt: .*Did you mean 'Vault'\?"):
        run(root, contracts=("Valt",))
    with pytest.raises(UsageError, match=r"--function withdrew: .*Did you mean 'withdraw'\?"):
        run(root, functions=("withdrew",))


def test_a_kept_verdict_needs_no_build_and_a_lost_build_is_compiled_again(tmp_path, judged):
    root = tmp_path / "vault"
    shutil.copytree(judged[0], root)
    shutil.rmtree(root / ".evmstate" / "mutants" / "build")
    # two of withdraw's mutants (--mutants), one the first run killed and one that survived it: each compile is a
    # second of CPU, and what is kept or compiled again is the same for every mutant
    ids = {outcome(judged[1], 34, "pass").id, next(m.id for m in judged[1].mutants if m.function == "withdraw" and m.status == "survived")}
    chosen = [m for m in judged[1].mutants if m.id in ids]  # in the report's order
    listing = tmp_path / "mutants.txt"
    listing.write_text("".join(f"{m.source}:{m.line}: {m.diff}\n" for m in chosen), encoding="utf-8")
    kept, _ = run(root, functions=("withdraw",), mutants=listing)
    assert [m.id for m in kept.mutants] == [m.id for m in chosen]
    assert kept.timing["compile"] == 0.0 and all(m.cached for m in kept.mutants)
    assert [(m.status, m.kill) for m in kept.mutants] == [(m.status, m.kill) for m in chosen]
    machine = root / "machines" / "vault.py"
    machine.write_text(machine.read_text() + "\n# edited\n")
    again, _ = run(root, functions=("withdraw",), mutants=listing)
    assert again.timing["compile"] > 0 and not any(m.cached for m in again.mutants)
    assert [m.status for m in again.mutants] == [m.status for m in kept.mutants]
    assert sorted(m.status for m in again.mutants) == ["killed", "survived"]


FAILING_TEST = '''from evmstate import given, strategy


@given(amount=strategy("uint256", max_value=100))
def test_small(amount):
    assert amount < 5
'''


def test_a_run_asked_for_no_trace_reports_the_same_failure_without_one(tmp_path):
    """What mutate's judges ask for (RunRequest.trace=False): the verdict, program and message of a traced run, and no replay for a trace."""
    from ..conftest import copy_example

    root = copy_example(tmp_path)
    (root / "machines" / "test_small.py").write_text(FAILING_TEST)
    config = config_mod.load(root)
    items = {item.id: item for item in discover(config).items}
    for key in ("machines/fee_vault.py::FeeVaultMachine", "machines/test_small.py::test_small"):
        found = []
        for trace in (True, False):
            request = RunRequest(overrides=Overrides(seed=0), save_failures=False, examples=False, trace=trace)
            result = run_item(config, Project(config), items[key], request, lambda event: None)
            assert result.status == "failed", (key, result.error)
            found.append((result.failure.program, result.failure.message, result.failure.steps, result.failure.trace is None))
        assert found[0][:3] == found[1][:3], key
        assert (found[0][3], found[1][3]) == (False, True), key
