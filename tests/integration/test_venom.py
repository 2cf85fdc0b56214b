"""Venom builds ([compiler] experimental_codegen, the source's pragma, [compiler.contracts]): what the
build cache keys on, and what a Venom build's failures, getters and coverage say where its source map
cannot place a line (vyper issue #5141): never a wrong line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evmstate import Project, TransactionReverted
from evmstate.compiler.codegen import chosen
from evmstate.compiler.sources import compile_project
from evmstate import config as config_mod
from evmstate.config import CompilerConfig, Config
from evmstate.errors import ConfigError
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import copy_project

HERE = Path(__file__).parent
KNOWN = HERE.parent / "projects" / "known"

CHECKS = """
x: public(uint256)
big: public(uint256)
arr: public(uint256[3])
owner: public(address)

@deploy
def __init__():
    self.big = max_value(uint256)
    self.owner = msg.sender

@external
def add(a: uint256):
    self.x = self.big + a

@external
def sub(a: uint256):
    self.x -= a

@external
def div(a: uint256):
    self.x = 100 // a

@external
def bounds(a: uint256):
    self.x = self.arr[a]

@external
def check(a: uint256):
    assert a > 10  # dev: too small

@external
def reason(a: uint256):
    assert a > 10, "too small"
"""
# (function, argument that fails it)
FAILING = [("add", 1), ("sub", 1), ("div", 0), ("bounds", 7), ("check", 1), ("reason", 1)]


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, Project]:
    """The same source built by both code generators (optimize none: Venom keeps the most of its source map there)."""
    root = tmp_path_factory.mktemp("venom-checks")
    (root / "contracts").mkdir()
    (root / "contracts" / "Checks.vy").write_text(CHECKS)
    legacy = Project(Config(root=root, compiler=CompilerConfig(optimize="none")), activate=False)
    venom = Project(Config(root=root, compiler=CompilerConfig(optimize="none", experimental_codegen=True)), activate=False)
    return legacy, venom


def test_the_build_says_which_code_generator_made_it_and_the_cache_keys_on_it(tmp_path):
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "A.vy").write_text(CHECKS)
    (tmp_path / "contracts" / "B.vy").write_text("# pragma experimental-codegen\n" + CHECKS)
    folders = (tmp_path / "contracts", tmp_path / ".evmstate" / "build")

    def build(**settings):
        found = compile_project(*folders, **settings)
        assert not found.errors, found.errors
        return {n: a.codegen for n, a in found.artifacts.items()}, sorted(found.compiled)

    # B's pragma asks for Venom; the project's setting does for A; an entry of B's own overrides its pragma
    assert build() == ({"A": "legacy", "B": "venom"}, ["A", "B"])
    assert build(experimental_codegen=True) == ({"A": "venom", "B": "venom"}, ["A"])
    assert build(codegen=(("B", False),)) == ({"A": "legacy", "B": "legacy"}, ["B"])
    # each build is kept under its own key: switching back compiles nothing
    assert build() == ({"A": "legacy", "B": "venom"}, [])
    assert build(experimental_codegen=True, codegen=(("B", False),)) == ({"A": "venom", "B": "legacy"}, [])


def test_a_forced_legacy_build_of_a_pragma_source_keeps_its_lines(tmp_path):
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Checks.vy").write_text("# pragma experimental-codegen\n" + CHECKS)
    project = Project(Config(root=tmp_path, compiler=CompilerConfig(contracts=(("Checks", False),))), activate=False)
    assert project.artifacts["Checks"].codegen == "legacy"
    with pytest.raises(TransactionReverted) as caught:
        project.Checks.deploy().check(1)
    line = ("# pragma experimental-codegen\n" + CHECKS).splitlines().index("    assert a > 10  # dev: too small") + 1
    assert caught.value.source_line.endswith(f"Checks.vy:{line}: assert a > 10  # dev: too small"), caught.value.source_line
    assert caught.value.dev_revert_msg == "dev: too small"


@pytest.mark.parametrize("name, argument", FAILING)
def test_a_venom_failure_names_no_line_says_why_and_its_check_is_never_wrong(checks, name, argument):
    legacy, venom = checks
    errors = []
    for project in (legacy, venom):
        project.activate()
        with pytest.raises(TransactionReverted) as caught:
            getattr(project.Checks.deploy(), name)(argument)
        errors.append(caught.value)
    old, new = errors
    assert old.source_line is not None and new.source_line is None
    assert new.reason == old.reason
    # the check is named only where the jump taken provably leads to the failing REVERT: then it is the legacy build's
    assert new.kind in (None, old.kind)
    assert re.search(r"Checks\.vy: no line: built with Venom \(experimental codegen\).*vyper issue #5141", str(new)), str(new)
    assert str(old.source_line) not in str(new)


def test_venom_names_the_checks_it_can_place(checks):
    _, venom = checks
    venom.activate()
    contract = venom.Checks.deploy()
    kinds = {}
    for name, argument in FAILING[:4]:
        with pytest.raises(TransactionReverted) as caught:
            getattr(contract, name)(argument)
        kinds[name] = caught.value.kind
    # measured with vyper 0.4.3 at optimize "none": every arithmetic and bounds check is placed
    assert kinds == {"add": "overflow (safeadd)", "sub": "underflow (safesub)", "div": "division by zero", "bounds": "index out of bounds (uint256[3] bounds check)"}


def test_getters_of_a_venom_build_are_read_from_storage_and_agree_with_the_calls(checks):
    _, venom = checks
    venom.activate()
    contract = venom.Checks.deploy()
    fast = contract.big
    assert fast._getter is not None
    venom.fast_getters = False
    try:
        slow = venom.Checks.at(contract.address)
    finally:
        venom.fast_getters = True
    assert slow.big._getter is None
    assert (contract.big(), contract.owner(), contract.arr(2)) == (slow.big(), slow.owner(), slow.arr(2)) == (2**256 - 1, venom.accounts[0].address, 0)


def test_coverage_of_a_venom_build_says_it_has_no_lines(tmp_path):
    root = copy_project(KNOWN, tmp_path / "known")
    (root / "evmstate.toml").write_text((root / "evmstate.toml").read_text().replace("[compiler]\n", "[compiler]\nexperimental_codegen = true\n") if "[compiler]\n" in (root / "evmstate.toml").read_text() else (root / "evmstate.toml").read_text() + "\n[compiler]\nexperimental_codegen = true\n")
    events: list = []
    summary = run(config_mod.load(root), RunOptions((), overrides=Overrides(seed=0, max_examples=5), coverage=True), events.append)
    report = summary.coverage
    assert report.unplaced == ["Known"]
    assert not report.files and all(c.lines_total == 0 and c.branches_total == 0 for c in report.contracts)
    assert report.unplaced_text().startswith("no lines or branches for Known: built with Venom (experimental codegen)")
    assert report.to_dict()["contracts"]["Known"]["no_lines"].endswith("(vyper issue #5141)")


def test_a_source_pinned_before_0_4_has_no_venom_build():
    venom, error = chosen("Pool", "Pool", Path("contracts/Pool.vy"), False, "0.3.10", (True, ()))
    assert venom and error is not None
    assert "releases before 0.4.0 have no Venom code generator" in str(error) and "Pool = { experimental_codegen = false }" in str(error)
    assert chosen("Pool", "Pool", Path("contracts/Pool.vy"), False, "0.3.10", (True, (("Pool", False),))) == (False, None)


def test_a_bad_contracts_entry_says_what_to_write(tmp_path):
    (tmp_path / "evmstate.toml").write_text("[compiler.contracts]\nVault = { experimental_codgen = true }\n")
    with pytest.raises(ConfigError, match=r"\[compiler\] contracts: Vault: unknown key 'experimental_codgen'\. Did you mean 'experimental_codegen'\?"):
        config_mod.load(tmp_path)
    (tmp_path / "evmstate.toml").write_text("[compiler.contracts]\nVault = true\n")
    with pytest.raises(ConfigError, match="Each contract takes experimental_codegen = true or false"):
        config_mod.load(tmp_path)
