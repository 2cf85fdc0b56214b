"""A moccasin project runs as it is: its contracts folder, its lib/ search path, no evmstate.toml."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .. import zygote
from ..forked_pytest import run_pytest
from .helpers import invoke

MOCCASIN_TOML = """\
[project]
src = "src"
out = "out"
dot_env = ".env"

[networks.pyevm]
is_zksync = false
"""

# installed by `mox install`: a PyPI package under lib/pypi, a GitHub repository under lib/github/<org>/<repo>
OWNED = """\
# pragma version ~=0.4.3
owner: public(address)

@deploy
def __init__():
    self.owner = msg.sender

@internal
def _check_owner():
    assert msg.sender == self.owner, "owned: not the owner"
"""

BOUNDED = """\
# pragma version ~=0.4.3
CAP: constant(uint256) = 1000

@internal
@pure
def clamp(x: uint256) -> uint256:
    return min(x, CAP)
"""

VAULT = """\
# pragma version ~=0.4.3
from mockmate.auth import owned
from acme.vylib.src.vylib import bounded

initializes: owned
exports: owned.owner

total: public(uint256)

@deploy
def __init__():
    owned.__init__()

@external
def add(x: uint256):
    self.total += bounded.clamp(x)

@external
def reset():
    owned._check_owner()
    self.total = 0
"""

MACHINE = """\
from evmstate import reverts, strategy


class VaultMachine:
    x = strategy("uint256", max_value=5000)
    who = strategy("address")

    def __init__(cls, accounts, Vault):
        cls.owner = accounts[0]
        cls.vault = Vault.deploy({"from": accounts[0]})

    def setup(self):
        self.total = 0

    def rule_add(self, x):
        self.vault.add(x)
        self.total += min(x, 1000)

    def rule_reset(self, who):
        if who == self.owner:
            self.vault.reset({"from": who})
            self.total = 0
        else:
            with reverts("owned: not the owner"):
                self.vault.reset({"from": who})

    def invariant_total(self):
        assert self.vault.total() == self.total
"""

# what `mox init` writes (its Counter pins ^0.4.1, which vyper 0.4.3 satisfies)
COUNTER = """\
# pragma version ^0.4.1

number: public(uint256)

@external
def set_number(new_number: uint256):
    self.number = new_number

@external
def increment():
    self.number += 1
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def moccasin_project(root: Path, src: str = "src") -> None:
    write(
        root,
        {
            f"{src}/Vault.vy": VAULT,
            "lib/pypi/mockmate/auth/owned.vy": OWNED,
            "lib/github/acme/vylib/src/vylib/bounded.vy": BOUNDED,
            "machines/vault.py": MACHINE,
        },
    )


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_moccasin_project_runs_with_no_evmstate_toml(here: Path):
    moccasin_project(here)
    (here / "moccasin.toml").write_text(MOCCASIN_TOML)
    code, out = invoke("run", "--max-examples", "5", "--steps", "5", "--seed", "1")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[:2] == ["settings: moccasin.toml (contracts in src/)", "seed: 1 — rerun with --seed 1"]
    assert "✓ [1/1] machines/vault.py::VaultMachine  examples 5/5" in out
    assert not (here / "evmstate.toml").exists()
    code, out = invoke("compile")
    assert code == 0, out
    assert out.splitlines()[0] == "settings: moccasin.toml (contracts in src/)"
    assert "module bounded       lib/github/acme/vylib/src/vylib/bounded.vy  imported by Vault" in out
    assert "module owned         lib/pypi/mockmate/auth/owned.vy  imported by Vault" in out


def test_src_defaults_to_src_and_the_root_comes_first_on_the_search_path(here: Path):
    moccasin_project(here)
    (here / "moccasin.toml").write_text("[networks.pyevm]\nis_zksync = false\n")  # no [project] src: moccasin's default
    # moccasin's search path is [root, src, lib/github, lib/pypi, lib], the first winning: a
    # module at the root shadows the one mox installed
    write(here, {"mockmate/auth/owned.vy": OWNED.replace("owned: not the owner", "root's owned")})
    code, out = invoke("run", "--max-examples", "3", "--steps", "3", "--seed", "1")
    assert code == 1, out
    assert out.splitlines()[0] == "settings: moccasin.toml (contracts in src/)"
    assert "root's owned" in out
    code, out = invoke("compile")
    assert "module owned         mockmate/auth/owned.vy  imported by Vault" in out


def test_a_moccasin_project_in_pyproject_toml_runs_too(here: Path):
    moccasin_project(here, src="vyper")
    (here / "pyproject.toml").write_text('[project]\nname = "vault"\nversion = "0.1.0"\n\n[tool.moccasin.project]\nsrc = "vyper"\n')
    code, out = invoke("run", "--max-examples", "5", "--steps", "5", "--seed", "1")
    assert code == 0, out
    assert out.splitlines()[0] == "settings: pyproject.toml [tool.moccasin] (contracts in vyper/)"
    assert "✓ [1/1] machines/vault.py::VaultMachine  examples 5/5" in out


def test_an_empty_contracts_folder_exits_2_naming_the_folders(here: Path):
    moccasin_project(here)
    (here / "moccasin.toml").write_text(MOCCASIN_TOML)
    (here / "src" / "Vault.vy").unlink()
    code, out = invoke("run", "--max-examples", "2")
    assert code == 2, out
    assert out.splitlines()[0] == "settings: moccasin.toml (contracts in src/)"
    assert "no contracts to test: src/, the contracts folder (settings: moccasin.toml), holds no .vy sources." in out
    assert 'Put the contracts in src/, or set src = "<folder>" under [project] in moccasin.toml' in out
    code, out = invoke("compile")
    assert code == 2 and "no contracts to test: src/" in out
    # no settings at all: the default contracts/ is empty, and the folder that holds sources is named
    (here / "moccasin.toml").unlink()
    (here / "contracts").mkdir()
    (here / "vyper").mkdir()
    (here / "vyper" / "Vault.vy").write_text(VAULT)
    code, out = invoke("run", "--max-examples", "2")
    assert code == 2, out
    assert out.splitlines()[0] == "settings: defaults, no evmstate.toml or moccasin.toml found (contracts in contracts/)"
    assert "no contracts to test: contracts/, the contracts folder (the default: no evmstate.toml, moccasin.toml or [tool.moccasin] in pyproject.toml in" in out
    assert ".vy sources were found in vyper/." in out
    assert 'set contracts = "vyper" under [project] in evmstate.toml' in out


def test_evmstate_toml_beside_moccasin_toml_keeps_moccasin_s_layout(here: Path):
    moccasin_project(here)
    (here / "moccasin.toml").write_text(MOCCASIN_TOML)
    (here / "evmstate.toml").write_text("[hypothesis]\nmax_examples = 4\n")
    code, out = invoke("run", "--steps", "3", "--seed", "1")
    assert code == 0, out
    assert out.splitlines()[0] == "settings: evmstate.toml over moccasin.toml (contracts in src/)"
    assert "examples 4/4" in out


@pytest.mark.processes
def test_init_in_a_moccasin_project_adds_machines_and_leaves_their_files_alone(here: Path):
    theirs = {
        "moccasin.toml": MOCCASIN_TOML,
        "pyproject.toml": '[project]\nname = "moccasin_project"\nversion = "0.1.0"\ndependencies = []\n',
        "src/Counter.vy": COUNTER,
        "script/deploy.py": "def moccasin_main():\n    pass\n",
        "tests/test_unit.py": "def test_unit():\n    assert 1 + 1 == 2\n",
        ".gitignore": "lib/\nout/\n",
        "README.md": "# Moccasin Project\n",
    }
    write(here, theirs)
    before = {p.relative_to(here).as_posix(): p.read_bytes() for p in here.rglob("*") if p.is_file()}
    code, out = invoke("init")
    assert code == 0, out
    written = sorted(p.relative_to(here).as_posix() for p in here.rglob("*") if p.is_file() and p.relative_to(here).as_posix() not in before)
    assert written == ["machines/counter.py", "machines/counter_properties.py"]
    assert {p.relative_to(here).as_posix(): p.read_bytes() for p in here.rglob("*") if p.is_file() and p.relative_to(here).as_posix() in before} == before
    assert "no evmstate.toml was written" in out and "add .evmstate/" in out
    code, out = invoke("run", "--max-examples", "5", "--steps", "5", "--seed", "1")
    assert code == 0, out
    assert out.splitlines()[0] == "settings: moccasin.toml (contracts in src/)"
    for name in ("CounterMachine", "test_set_number_stores_it", "test_increment_adds_one"):
        assert f"::{name}  examples 5/5" in out
    # `mox test` runs pytest from the root: it collects their tests, never the machines folder (a pytest
    # process of its own, forked from this one, the root first on its path as `python -m pytest` puts it)
    code, stdout, stderr = run_pytest(["--collect-only", "-q", "-p", "no:cacheprovider"])
    assert code == 0, stdout + stderr
    collected = [line for line in stdout.splitlines() if "::" in line]
    assert collected == ["tests/test_unit.py::test_unit"], stdout


def test_init_without_moccasin_s_counter_writes_a_template_to_fill_in(here: Path):
    moccasin_project(here)
    (here / "moccasin.toml").write_text(MOCCASIN_TOML)
    code, out = invoke("init")
    assert code == 0, out
    assert sorted(p.name for p in (here / "machines").iterdir()) == ["my_machine.py", "vault.py"]
    assert "class MyTokenMachine" in (here / "machines" / "my_machine.py").read_text()
    code, out = invoke("run", "machines/my_machine.py")
    assert code == 5 and "no state machines or property tests found in machines/my_machine.py" in out


@pytest.mark.processes
def test_the_installed_command_reads_a_moccasin_project(here: Path):
    moccasin_project(here)
    (here / "moccasin.toml").write_text(MOCCASIN_TOML)
    exe = os.path.join(os.path.dirname(sys.executable), "evmstate")
    # forked from the test zygote: a process of its own running the console script as a new one does (tests/zygote.py)
    proc = zygote.run([exe, "run", "--max-examples", "3", "--steps", "3", "--seed", "2"], cwd=here, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("settings: moccasin.toml (contracts in src/)\nseed: 2 — rerun with --seed 2\n")
