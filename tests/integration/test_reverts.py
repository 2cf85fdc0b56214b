"""Reverts explained: the source line, kind and dev comment of the failing check, on real vyper + py-evm."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from evmstate import ContractError, Project, TransactionReverted, reverts
from evmstate import config as config_mod
from evmstate.compiler.sources import Artifact
from evmstate.config import Config
from evmstate.failures import FailureStore
from evmstate.engine.replay import replay
from evmstate.reports import failure_text, to_json
from evmstate.contracts.revert import decode_revert
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import kept_build, used_entry

CHECKS = Path(__file__).parent / "checks"


@pytest.fixture(scope="module")
def checks_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project holding the check contracts, compiled once for the module through the cache."""
    root = tmp_path_factory.mktemp("checks")
    shutil.copytree(CHECKS / "contracts", root / "contracts")
    kept_build(root, "kept-checks", lambda: Project(Config(root=root)))
    return root


@pytest.fixture()
def checks(checks_root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(checks_root)  # source lines are shown relative to the current folder
    project = Project(Config(root=checks_root))
    return project, project.Checks.deploy()


def reverted(call, *args) -> TransactionReverted:
    with pytest.raises(TransactionReverted) as info:
        call(*args)
    return info.value


def test_a_bare_assert_an_underflow_and_a_dev_comment_name_their_source_line(checks):
    _, c = checks
    bare = reverted(c.bare, 11)
    assert str(bare) == "Checks.bare reverted: assert failed\n  contracts/Checks.vy:18: assert _x < 10"
    assert (bare.reason, bare.check, bare.kind, bare.dev_revert_msg) == (None, "user assert", "assert failed", None)

    under = reverted(c.underflow, 6)
    assert str(under) == "Checks.underflow reverted: underflow (safesub)\n  contracts/Checks.vy:28: return 5 - _x"
    assert under.reason is None and under.check == "safesub"

    dev = reverted(c.with_dev, 11)
    assert str(dev) == "Checks.with_dev reverted: 'dev: too big' (assert failed)\n  contracts/Checks.vy:23: assert _x < 10  # dev: too big"
    assert dev.reason is None and dev.dev_revert_msg == "dev: too big" and dev.revert_msg == "dev: too big"


@pytest.mark.parametrize(
    "function, args, shown, line",
    [
        ("overflow", (3,), "overflow (safeadd)", "contracts/Checks.vy:33: return max_value(uint256) - 2 + _x"),
        ("divide", (0,), "division by zero", "contracts/Checks.vy:38: return 100 // _x"),
        ("item", (0,), "index out of bounds (DynArray[uint256, 3] bounds check)", "contracts/Checks.vy:43: return self.items[_i]"),
        ("reenter", (), "reentrancy: the nonreentrant lock is held", "contracts/Checks.vy:48: def locked() -> uint256:"),
    ],
)
def test_each_kind_of_check_is_named(checks, function, args, shown, line):
    _, c = checks
    err = reverted(getattr(c, function), *args)
    assert str(err).startswith(f"Checks.{function} reverted: {shown}\n  {line}")
    assert err.kind == shown and err.source_line == line


def test_a_failure_passed_up_by_a_call_is_shown_where_it_happened_and_where_it_was_called(checks):
    _, c = checks
    err = reverted(c.relay, 12)
    assert err.source_line == "contracts/Checks.vy:23: assert _x < 10  # dev: too big"
    assert err.via == ("contracts/Checks.vy:60: extcall Checks(self).with_dev(_x)",)
    assert str(err).endswith("\n  called from contracts/Checks.vy:60: extcall Checks(self).with_dev(_x)")
    lock = reverted(c.reenter)
    assert lock.via == ("contracts/Checks.vy:55: return extcall Checks(self).locked()",)


def test_a_check_in_an_imported_module_is_shown_at_the_module_line(checks):
    _, c = checks
    err = reverted(c.take, 1)
    assert err.source_line == "contracts/ledger.vy:9: self.held -= _x  # dev: not enough in the ledger"
    assert err.dev_revert_msg == "dev: not enough in the ledger" and err.kind == "underflow (safesub)"


def test_custom_errors_are_decoded_by_name_and_arguments_from_the_sources(checks):
    project, c = checks
    err = reverted(c.deny, 4)
    sender = project.accounts[0].address
    assert err.reason == f"Denied(4, {sender!r})"
    assert str(err).startswith(f"Checks.deny reverted: Denied(4, {sender!r})\n  contracts/Checks.vy:65: raw_revert(")
    assert project.artifacts["Checks"].error_signatures == ("Denied(uint256,address)",)
    with reverts(f"Denied(4, {sender!r})"):
        c.deny(4)
    data = err.revert_data
    assert decode_revert(data, (), ["Other(uint256)", "Denied(uint256,address)"]) == err.reason
    assert decode_revert(data) == f"0x{data.hex()}", "without the signature it stays hex"


def test_constructor_reverts_are_explained_from_the_deploy_source_map(checks):
    project, _ = checks
    err = reverted(project.Guarded.deploy, 0)
    assert str(err) == "Guarded.deploy reverted: 'dev: zero limit' (assert failed)\n  contracts/Guarded.vy:8: assert _limit > 0  # dev: zero limit"
    with reverts(dev_revert_msg="dev: zero limit"):
        project.Guarded.deploy(0)
    assert project.Guarded.deploy(4).limit() == 25


def test_reverts_matches_dev_comments_as_brownie_did(checks):
    _, c = checks
    with reverts(dev_revert_msg="dev: too big"):
        c.with_dev(11)
    with reverts("dev: too big"):  # no reason string: revert_msg falls back to the dev comment
        c.with_dev(11)
    with reverts(dev_revert_pattern="dev: too .*"):
        c.with_dev(11)
    with reverts(revert_pattern="dev: t.o big"):
        c.with_dev(11)
    with reverts("safesub"):  # vyper's own name for the check
        c.underflow(6)
    with pytest.raises(AssertionError) as info:
        with reverts(dev_revert_msg="dev: other"):
            c.with_dev(11)
    assert str(info.value) == (
        "Checks.with_dev(11) reverted with 'dev: too big' (assert failed), but reverts(dev_revert_msg='dev: other') "
        "expected 'dev: other'\n  contracts/Checks.vy:23: assert _x < 10  # dev: too big"
    )
    with pytest.raises(AssertionError, match=r"Checks.bare\(11\) reverted with no reason \(assert failed\), but reverts\(dev_revert_msg='dev: too big'\)"):
        with reverts(dev_revert_msg="dev: too big"):
            c.bare(11)
    with pytest.raises(AssertionError, match=r"reverted with no reason \(underflow \(safesub\)\), but reverts\('x'\) expected 'x'\n  contracts/Checks.vy:28"):
        with reverts("x"):
            c.underflow(7)
    with pytest.raises(ContractError, match="not both"):
        reverts("a", revert_pattern="b")
    with pytest.raises(ContractError, match="not a regular expression"):
        reverts(dev_revert_pattern="(")


def test_artifacts_keep_the_new_fields_through_the_cache(checks_root):
    artifacts = {}
    for name in ("Checks", "Guarded"):
        cached = used_entry(checks_root / ".evmstate" / "build", name)
        data = json.loads(cached.read_text())["artifact"]
        artifacts[name] = Artifact.from_dict(data)
        assert artifacts[name].to_dict() == data
    checks, guarded = artifacts["Checks"], artifacts["Guarded"]
    assert "user assert" in guarded.deploy_error_map.values() and {8, 9} <= {pos[0] for pos in guarded.deploy_pc_pos.values()}
    assert max(guarded.deploy_pc_pos) < len(guarded.bytecode) - len(guarded.bytecode_runtime), "the runtime part of the deploy map is dropped"
    assert any(path.endswith("ledger.vy") for path in checks.sources.values()) and checks.pc_source
    assert checks.error_signatures == ("Denied(uint256,address)",)


MACHINES = """
from evmstate import reverts


class Underflow:
    def __init__(cls, Checks):
        cls.c = Checks.deploy()

    def rule_underflow(self):
        self.c.underflow(6)


class BareAssert:
    def __init__(cls, Checks):
        cls.c = Checks.deploy()

    def rule_bare(self):
        self.c.bare(11)


class DevAssert:
    def __init__(cls, Checks):
        cls.c = Checks.deploy()

    def rule_with_dev(self):
        self.c.with_dev(11)


class ExpectsTheDevReason:
    def __init__(cls, Checks):
        cls.c = Checks.deploy()

    def rule_with_dev(self):
        with reverts(dev_revert_msg="dev: too big"):
            self.c.with_dev(11)
"""


def test_failure_reports_records_and_replay_carry_the_explanation(checks_root, monkeypatch):
    monkeypatch.chdir(checks_root)
    (checks_root / "machines").mkdir(exist_ok=True)
    (checks_root / "machines" / "m.py").write_text(textwrap.dedent(MACHINES))
    cfg = config_mod.load(checks_root)
    summary = run(cfg, RunOptions(overrides=Overrides(seed=0, max_examples=5, stateful_step_count=3)), lambda e: None)
    results = {r.name: r for r in summary.results}
    assert results["ExpectsTheDevReason"].status == "passed"
    assert results["ExpectsTheDevReason"].rules["rule_with_dev"].reverts > 0

    expected = {
        "Underflow": "TransactionReverted: Checks.underflow reverted: underflow (safesub)\n  contracts/Checks.vy:28: return 5 - _x\n",
        "BareAssert": "TransactionReverted: Checks.bare reverted: assert failed\n  contracts/Checks.vy:18: assert _x < 10\n",
        "DevAssert": "TransactionReverted: Checks.with_dev reverted: 'dev: too big' (assert failed)\n  contracts/Checks.vy:23: assert _x < 10  # dev: too big\n",
    }
    for name, head in expected.items():
        result = results[name]
        assert result.status == "failed"
        assert failure_text(result.failure).startswith(head), failure_text(result.failure)

    dev = results["DevAssert"].failure.call_failure
    assert dev["dev_revert_msg"] == "dev: too big" and dev["source_line"] == "contracts/Checks.vy:23: assert _x < 10  # dev: too big"
    assert dev["check"] == "user assert" and dev["kind"] == "assert failed" and dev["reason"] is None
    reported = {r["name"]: r for r in to_json(summary)["results"]}
    assert reported["Underflow"]["failure"]["call_failure"]["kind"] == "underflow (safesub)"

    store = FailureStore(cfg.state_dir / "failures")
    record = store.load(results["DevAssert"].failure_id)
    assert record.error["call_failure"]["dev_revert_msg"] == "dev: too big"
    steps: list = []
    outcome = replay(cfg, record, steps.append)
    assert outcome.verdict == "still fails"
    assert steps[-1].error == (
        "TransactionReverted: Checks.with_dev reverted: 'dev: too big' (assert failed)\n  contracts/Checks.vy:23: assert _x < 10  # dev: too big"
    )


def test_explanations_hold_before_cancun_and_without_optimization(tmp_path, monkeypatch):
    """London: no transient storage, the lock lives in storage; optimize = "none": a longer lock check."""
    shutil.copytree(CHECKS / "contracts", tmp_path / "contracts")
    monkeypatch.chdir(tmp_path)
    project = Project(Config(root=tmp_path, compiler=config_mod.CompilerConfig(evm_version="london", optimize="none")))
    c = project.Checks.deploy()
    assert reverted(c.reenter).kind == "reentrancy: the nonreentrant lock is held"
    assert reverted(c.with_dev, 11).source_line == "contracts/Checks.vy:23: assert _x < 10  # dev: too big"
    assert reverted(project.Guarded.deploy, 0).dev_revert_msg == "dev: zero limit"
