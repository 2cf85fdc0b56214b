"""Coverage by source and by deployment, on a project where one snekmate module (ownable) is compiled into
three contracts: the module is one file with a merged figure, every deployment is kept apart (two contracts
with the same code, one contract deployed under two labels), and a library module nobody asks for is not
compiled."""

from __future__ import annotations

from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.compiler.sources import compile_project
from evmstate.runner import Overrides, RunOptions, run
from evmstate.search.coverage import CodeMap

from ..conftest import copy_project

PROJECT = Path(__file__).parent.parent / "projects" / "shared_module"
OWNABLE = "snekmate/auth/ownable.vy"


@pytest.fixture()
def shared(tmp_path: Path) -> Path:
    return copy_project(PROJECT, tmp_path / "shared_module")  # with the builds of the original, compiled once


def covered(root: Path, *paths: str):
    options = RunOptions(tuple(str(root / p) for p in paths), overrides=Overrides(seed=0), coverage=True)
    summary = run(config_mod.load(root), options, lambda e: None)
    assert summary.exit_code == 0, summary.results
    return summary


def test_a_module_imported_by_three_contracts_is_one_file_with_the_merged_figure(shared: Path):
    report = covered(shared, "machines/owners.py").coverage
    (path,) = [p for p in report.files if report.shown(p) == OWNABLE]
    ownable = report.files[path]
    assert ownable.contracts == ["Counted", "OwnedA", "OwnedB"]
    # each line and branch of the module once, not once per contract compiled from it
    artifacts = compile_project(shared / "contracts", shared / ".evmstate" / "build", root=shared).artifacts
    per_contract = [{line for deploy in (False, True) for p, line in CodeMap.build(a, deploy).lines if p == path} for a in artifacts.values()]
    assert len(ownable.lines) == len(set().union(*per_contract)) < sum(len(lines) for lines in per_contract)
    assert len(ownable.branches) == 4  # two asserts (the owner check, the new owner not empty), each taken or not
    # the merged figure: the owner check failed only in Counted ("first"), passed in both; the new owner
    # was checked only in OwnedB; each contract alone reached 2 of the 4 outcomes, together 3
    rows = {c.shown_name: c for c in report.contracts}
    assert (rows["first (Counted)"].branches_hit, rows["OwnedB"].branches_hit, ownable.branches_hit) == (2, 2, 3)
    # the one outcome never reached: transfer_ownership's `assert new_owner != empty(address)` failing
    assert sorted((line, outcome) for (line, _, outcome), hit in ownable.branches.items() if not hit) == [(58, 0)]
    assert report.file_unreached_text(path) == f"{OWNABLE}:63-72"  # renounce_ownership, never called
    # the JSON report holds the module once, with its contracts
    data = report.to_dict()
    assert [p for p in data["files"] if p.endswith("ownable.vy")] == [OWNABLE]
    assert data["files"][OWNABLE]["contracts"] == ["Counted", "OwnedA", "OwnedB"]
    assert (data["files"][OWNABLE]["branches_hit"], data["files"][OWNABLE]["branches_total"]) == (3, 4)


def test_two_deployments_of_one_code_are_kept_apart(shared: Path):
    report = covered(shared, "machines/owners.py").coverage
    rows = {c.shown_name: c for c in report.contracts}
    assert list(rows) == ["first (Counted)", "second (Counted)", "OwnedA", "OwnedB"]
    # OwnedA has OwnedB's code, but only OwnedB was deployed: OwnedA is credited with nothing
    assert not rows["OwnedA"].ran and rows["OwnedA"].lines_hit == 0 and rows["OwnedA"].branches_hit == 0
    assert rows["OwnedB"].ran and rows["OwnedB"].lines_hit == 12
    owned_a = [p for p in report.files if p.endswith("OwnedA.vy")]
    assert [report.files[p].lines_hit for p in owned_a] == [0]
    # Counted deployed twice: only "first" was bumped; "second" ran its constructor alone
    first, second = rows["first (Counted)"], rows["second (Counted)"]
    assert (first.contract, second.contract) == ("Counted", "Counted") and first.ran and second.ran
    assert first.lines_hit > second.lines_hit and (first.branches_hit, second.branches_hit) == (2, 0)
    # bump() (lines 15-17) never ran in "second"; in "first" only total() (22-23) never did
    assert report.unreached_text(second).startswith("contracts/Counted.vy:15-23, ")
    assert report.unreached_text(first).startswith("contracts/Counted.vy:22-23, ")
    data = report.to_dict()["contracts"]
    assert data["second (Counted)"]["deployment"] == "second" and data["second (Counted)"]["contract"] == "Counted"


def test_a_library_module_is_compiled_only_for_a_machine_that_asks_for_it(tmp_path: Path):
    shared = copy_project(PROJECT, tmp_path / "shared_module", warm=False)  # what is compiled is the point
    build = compile_project(shared / "contracts", shared / ".evmstate" / "build", root=shared)
    assert sorted(build.artifacts) == ["Counted", "OwnedA", "OwnedB"] and sorted(build.compiled) == ["Counted", "OwnedA", "OwnedB"]
    (tally,) = [m for m in build.modules if m.name == "tally"]
    assert tally.on_demand and tally.importers == ("Counted",)
    covered(shared, "machines/owners.py")
    assert not list((shared / ".evmstate" / "build").glob("tally-*")), "nothing asked for tally: it was never compiled on its own"
    summary = covered(shared, "machines/tally_alone.py")
    assert [r.status for r in summary.results] == ["passed"]
    assert len(list((shared / ".evmstate" / "build").glob("tally-*"))) == 1
    # its lines count once in the file, whether reached through Counted or deployed on its own
    assert [p for p in summary.coverage.files if p.endswith("tally.vy")] == [str((shared / "contracts/lib/tally.vy").resolve())]
