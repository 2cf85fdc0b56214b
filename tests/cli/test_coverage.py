"""evmstate run --coverage: the table, the lines never reached, the report files."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from evmstate_cli.main import cli

from ..conftest import copy_project
from .helpers import invoke

KNOWN = Path(__file__).parent.parent / "projects" / "known"


@pytest.fixture()
def known(tmp_path: Path, monkeypatch) -> Path:
    copy_project(KNOWN, tmp_path / "known")
    monkeypatch.chdir(tmp_path / "known")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path / "known"


def test_table_unreached_lines_and_reports(known):
    code, out = invoke("run", "--seed", "0", "--coverage-report", "lcov", "out/cov.info", "--coverage-report", "html", "out/cov.html", "--coverage-report", "json", "out/cov.json")
    assert code == 0, out
    lines = out.splitlines()
    start = lines.index("coverage of the contracts' Vyper source (constructors included):")
    assert [line.rstrip() for line in lines[start + 1 : start + 5]] == [
        "contract  lines      %  branches      %",
        "Known       6/7  85.7%       1/2  50.0%",
        "lines never reached:",
        "  Known: contracts/Known.vy:10",
    ]
    assert "wrote out/cov.info" in out and "wrote out/cov.html" in out and "wrote out/cov.json" in out
    assert (known / "out" / "cov.info").read_text().startswith("TN:evmstate\nSF:")
    assert "<h1>evmstate coverage</h1>" in (known / "out" / "cov.html").read_text()
    assert '"Known"' in (known / "out" / "cov.json").read_text()


def test_without_coverage_no_table(known):
    code, out = invoke("run", "--seed", "0", "machines/known.py")
    assert code == 0, out
    assert "coverage of the contracts" not in out


def test_unknown_report_format_is_a_usage_error(known):
    result = CliRunner().invoke(cli, ["run", "--coverage-report", "xml", "cov.xml"])
    assert result.exit_code == 2 and "'xml' is not one of 'lcov', 'html', 'json'" in result.output
