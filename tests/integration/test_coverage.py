"""Coverage: lines and branches of a contract with known reached and unreached lines, the
reports (lcov, json, html), and coverage accumulated over the machines and tests of a run."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.engine.events import ExampleFinished
from evmstate.runner import Overrides, RunOptions, run

from ..conftest import copy_project

HERE = Path(__file__).parent
KNOWN = HERE.parent / "projects" / "known"
SOURCE = "contracts/Known.vy"


@pytest.fixture()
def known(tmp_path: Path) -> Path:
    return copy_project(KNOWN, tmp_path / "known")


def covered(root: Path, *paths: str, toml: str = ""):
    if toml:
        (root / "evmstate.toml").write_text((root / "evmstate.toml").read_text() + toml)
    events: list = []
    options = RunOptions(tuple(str(root / p) for p in paths), overrides=Overrides(seed=0), coverage=True)
    summary = run(config_mod.load(root), options, events.append)
    assert summary.exit_code == 0, summary.results
    return summary.coverage, events


def lines_of(report, root: Path) -> dict[int, bool]:
    (f,) = [f for path, f in report.files.items() if Path(path) == (root / SOURCE).resolve()]
    return f.lines


def test_the_machine_reaches_bump_and_its_else_branch_only(known):
    # bump() with x <= 100: line 9's `if` goes one way only, line 10 never runs, nor does
    # never_called() (17-18); the invariant reads the counter getter (4); comments and blank
    # lines are not lines of code
    report, events = covered(known, "machines/known.py")
    assert lines_of(report, known) == {4: True, 8: True, 9: True, 10: False, 12: True, 17: False, 18: False}
    (c,) = report.contracts
    assert (c.name, c.lines_hit, c.lines_total, c.branches_hit, c.branches_total) == ("Known", 4, 7, 1, 2)
    assert report.unreached_text(c) == f"{SOURCE}:10, 17-18"
    (f,) = report.files.values()
    assert sorted((line, outcome, hit) for (line, _, outcome), hit in f.branches.items()) == [(9, 0, True), (9, 1, False)]
    # the live line's figure: branch outcomes reached so far
    assert [e.branches for e in events if isinstance(e, ExampleFinished)][-1] == 1


def test_coverage_accumulates_over_machines_and_tests_even_with_guidance_off(known):
    report, _ = covered(known, "machines/known.py", "machines/known_properties.py", toml="\n[fuzz]\nguidance = false\n")
    assert lines_of(report, known) == {4: True, 8: True, 9: True, 10: False, 12: True, 17: True, 18: True}
    (c,) = report.contracts
    assert report.unreached_text(c) == f"{SOURCE}:10"


def parse_lcov(text: str) -> list[dict]:
    """The records of an lcov tracefile, checking its grammar as it goes."""
    records: list[dict] = []
    current: dict | None = None
    lines = text.splitlines()
    assert lines[0].startswith("TN:")
    for line in lines[1:]:
        key, _, value = line.partition(":")
        if key == "SF":
            assert current is None
            current = {"SF": value, "DA": {}, "BRDA": []}
        elif key == "end_of_record":
            assert current is not None
            records.append(current)
            current = None
        else:
            assert current is not None, line
            if key == "DA":
                n, hits = value.split(",")
                current["DA"][int(n)] = int(hits)
            elif key == "BRDA":
                n, block, branch, taken = value.split(",")
                current["BRDA"].append((int(n), int(block), int(branch), None if taken == "-" else int(taken)))
            elif key in ("LF", "LH", "BRF", "BRH"):
                current[key] = int(value)
            else:
                raise AssertionError(f"unexpected lcov line {line!r}")
    assert current is None, "the last record is not closed"
    return records


def test_lcov_tracefile(known):
    report, _ = covered(known, "machines/known.py")
    (record,) = parse_lcov(report.lcov())
    assert Path(record["SF"]) == (known / SOURCE).resolve() and Path(record["SF"]).is_absolute()
    assert record["DA"] == {4: 1, 8: 1, 9: 1, 10: 0, 12: 1, 17: 0, 18: 0}
    assert (record["LF"], record["LH"]) == (7, 4)
    assert [(n, branch, taken) for n, _, branch, taken in record["BRDA"]] == [(9, 0, 1), (9, 1, None)]
    assert (record["BRF"], record["BRH"]) == (2, 1)


@pytest.mark.skipif(shutil.which("genhtml") is None, reason="genhtml (Debian's lcov package) is not installed")
def test_genhtml_accepts_the_tracefile(known, tmp_path):
    report, _ = covered(known, "machines/known.py")
    info = tmp_path / "cov.info"
    report.write("lcov", info)
    done = subprocess.run(["genhtml", "--branch-coverage", "-o", str(tmp_path / "html"), str(info)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "lines......: 57.1% (4 of 7 lines)" in done.stdout
    assert (tmp_path / "html" / "index.html").is_file()


def test_json_and_html_reports(known, tmp_path):
    report, _ = covered(known, "machines/known.py")
    report.write("json", tmp_path / "cov.json")
    data = json.loads((tmp_path / "cov.json").read_text())
    assert data["contracts"]["Known"]["lines"] == {"hit": 4, "total": 7}
    assert data["contracts"]["Known"]["unreached"] == [
        {"path": SOURCE, "first": 10, "last": 10},
        {"path": SOURCE, "first": 17, "last": 18},
    ]
    assert data["files"][SOURCE]["lines"]["10"] is False
    report.write("html", tmp_path / "cov.html")
    page = (tmp_path / "cov.html").read_text()
    assert '<tr class="miss"><td class="n">10</td><td><pre>        self.counter += 2</pre></td></tr>' in page
    assert '<tr class="part"><td class="n">9</td>' in page  # reached, one way only


@pytest.mark.processes  # worker processes
def test_coverage_from_worker_processes_is_merged_in_the_parent(known):
    options = RunOptions((str(known / "machines/known.py"), str(known / "machines/known_properties.py")), overrides=Overrides(seed=0), coverage=True, workers=2)
    summary = run(config_mod.load(known), options, lambda e: None)
    assert summary.exit_code == 0, summary.results
    assert lines_of(summary.coverage, known) == {4: True, 8: True, 9: True, 10: False, 12: True, 17: True, 18: True}


def test_modules_of_installed_packages_are_shown_as_imports_name_them(tmp_path):
    import snekmate

    from evmstate.search.coverage import CoverageReport

    report = CoverageReport([], {}, tmp_path)
    installed = Path(list(snekmate.__path__)[0]) / "tokens" / "erc20.vy"
    assert report.shown(str(installed)) == "snekmate/tokens/erc20.vy"
    (tmp_path / "contracts").mkdir()
    assert report.shown(str(tmp_path / "contracts" / "A.vy")) == "contracts/A.vy"
