"""evmstate run --coverage: the table, the lines never reached, the report files."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from evmstate_cli.main import cli

from ..conftest import copy_project
from .helpers import invoke

KNOWN = Path(__file__).parent.parent / "projects" / "known"


@pytest.fixture()
def known(tmp_path: Path, monkeypatch, cli_env: dict[str, str]) -> Path:
    copy_project(KNOWN, tmp_path / "known")
    monkeypatch.chdir(tmp_path / "known")
    return tmp_path / "known"


def test_table_unreached_lines_and_reports(known):
    code, out = invoke("run", "--seed", "0", "--coverage-report", "lcov", "out/cov.info", "--coverage-report", "html", "out/cov.html", "--coverage-report", "json", "out/cov.json")
    assert code == 0, out
    lines = out.splitlines()
    start = lines.index("coverage by source file (a module once, over every contract compiled from it; constructors included):")
    assert [line.rstrip() for line in lines[start + 1 : start + 8]] == [
        "file                lines      %  branches      %",
        "contracts/Known.vy    6/7  85.7%       1/2  50.0%",
        "coverage by deployed contract (its source and the modules compiled into it):",
        "contract  lines      %  branches      %",
        "Known       6/7  85.7%       1/2  50.0%",
        "lines never reached:",
        "  contracts/Known.vy:10",
    ]
    assert "wrote out/cov.info" in out and "wrote out/cov.html" in out and "wrote out/cov.json" in out
    assert (known / "out" / "cov.info").read_text().startswith("TN:evmstate\nSF:")
    assert "<h1>evmstate coverage</h1>" in (known / "out" / "cov.html").read_text()
    assert '"Known"' in (known / "out" / "cov.json").read_text()


def test_without_coverage_no_table(known):
    code, out = invoke("run", "--seed", "0", "machines/known.py")
    assert code == 0, out
    assert "coverage by" not in out


def test_unknown_report_format_is_a_usage_error(known):
    result = CliRunner().invoke(cli, ["run", "--coverage-report", "xml", "cov.xml"])
    assert result.exit_code == 2 and "'xml' is not one of 'lcov', 'html', 'json'" in result.output


SHARED = Path(__file__).parent.parent / "projects" / "shared_module"


def test_a_module_shows_once_beside_each_deployment(tmp_path: Path, monkeypatch, cli_env: dict[str, str]):
    shutil.copytree(SHARED, tmp_path / "shared")
    monkeypatch.chdir(tmp_path / "shared")
    code, out = invoke("run", "--seed", "0", "--coverage", "--json", "out/run.json", "machines/owners.py")
    assert code == 0, out
    lines = [line.rstrip() for line in out.splitlines()]
    # the compile line counts the contracts: the library module tally, which nothing asks for, is not compiled
    assert "compiled 3 contracts in" in out
    start = lines.index("coverage by source file (a module once, over every contract compiled from it; constructors included):")
    assert lines[start + 1 :] == [
        "file                      lines       %  branches       %",
        "contracts/Counted.vy        6/8   75.0%       0/0  100.0%",
        "contracts/OwnedA.vy         0/2    0.0%       0/0  100.0%",
        "contracts/OwnedB.vy         2/2  100.0%       0/0  100.0%",
        "contracts/lib/tally.vy      1/1  100.0%       0/0  100.0%",
        "snekmate/auth/ownable.vy  10/13   76.9%       3/4   75.0%",
        "coverage by deployed contract (its source and the modules compiled into it):",
        "contract          lines      %  branches      %",
        "first (Counted)   12/19  63.2%       2/4  50.0%",
        "second (Counted)   7/19  36.8%       0/4   0.0%",
        "OwnedB            12/15  80.0%       2/4  50.0%",
        "contracts whose code never ran: OwnedA",
        "lines never reached:",
        "  contracts/Counted.vy:22-23",
        "  contracts/OwnedA.vy:9-10",
        "  snekmate/auth/ownable.vy:63-72",
        "wrote out/run.json",
        "1 passed, 0 failed",
    ]
    # --json carries the same report
    coverage = json.loads((tmp_path / "shared" / "out" / "run.json").read_text())["coverage"]
    assert coverage["files"]["snekmate/auth/ownable.vy"]["contracts"] == ["Counted", "OwnedA", "OwnedB"]
    assert coverage["contracts"]["first (Counted)"]["lines"] == {"hit": 12, "total": 19}
    assert coverage["contracts"]["OwnedA"]["ran"] is False
