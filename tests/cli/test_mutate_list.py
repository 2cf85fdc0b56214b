"""evmstate mutate --mutants FILE: only the mutants a file lists, as the report writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import copy_project
from .helpers import invoke

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "mutate"
LISTED = """# two mutants of withdraw, as the report writes them
contracts/Vault.vy:35: self.total -= amount  →  pass
contracts/Vault.vy:34: self.balances[msg.sender] -= amount  →  self.balances[tx.origin] -= amount
"""


@pytest.fixture()
def vault(tmp_path: Path, monkeypatch) -> Path:
    copy_project(PROJECT, tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def test_a_listed_line_that_names_no_mutant_is_a_usage_error_showing_the_mutants_of_that_line(vault):
    (vault / "listed.txt").write_text("contracts/Vault.vy:35: self.total -= amount  →  self.total //= amount\n")
    code, out = invoke("mutate", "--mutants", "listed.txt", "-n", "1")
    assert code == 2
    assert "--mutants listed.txt: 1 line(s) name no mutant, the first: 'contracts/Vault.vy:35: self.total -= amount  →  self.total //= amount'" in out
    assert "the mutants made on that line: contracts/Vault.vy:35: self.total -= amount  →  pass" in out
    code, out = invoke("mutate", "--mutants", "missing.txt", "-n", "1")
    assert code == 2 and "--mutants missing.txt: cannot read it" in out


@pytest.mark.quality  # mutants judged by a search
def test_only_the_listed_mutants_are_judged(vault):
    (vault / "listed.txt").write_text(LISTED)
    code, out = invoke("mutate", "--mutants", "listed.txt", "-n", "1", "-q", "--json", "m.json")
    assert code == 0, out
    assert "mutating contracts/Vault.vy: 2 mutants, judged by machines/vault.py::VaultMachine" in out
    report = json.loads((vault / "m.json").read_text())
    assert sorted((m["line"], m["status"]) for m in report["mutants"]) == [(34, "survived"), (35, "killed")]
