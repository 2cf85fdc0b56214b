"""Sources pinned to another vyper release compile with that release, installed from the package index.

The release is installed once into a cache folder kept between runs (release_folder); the tests that
need the index skip, saying why, only when pip reports that the index cannot be reached.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import vyper

from evmstate import Project
from evmstate.compiler import releases, vyper_outputs
from evmstate.compiler.sources import VYPER_VERSION, compile_project
from evmstate.config import Config, ProjectConfig
from evmstate.errors import TransactionReverted

from ..cli.helpers import invoke

REPO = Path(__file__).resolve().parents[2]
from ..conftest import PINNED, pypi_package

COUNTER = """# pragma version {pin}
from . import bounded

initializes: bounded
exports: bounded.cap

total: public(uint256)


@deploy
def __init__(cap: uint256):
    bounded.__init__(cap)


@external
def add(amount: uint256):
    bounded.check(self.total + amount)
    self.total += amount
"""

BOUNDED = """# pragma version {pin}
cap: public(uint256)


@deploy
def __init__(cap: uint256):
    self.cap = cap


@internal
def check(new_total: uint256):
    assert new_total <= self.cap, "over the cap"
"""

MACHINE = """from evmstate import strategy


class CounterMachine:
    amount = strategy("uint256", max_value=600)

    def __init__(self, accounts, Counter):
        self.counter = Counter.deploy(1000, {"from": accounts[0]})
        self.total = 0

    def rule_add(self, amount):
        self.counter.add(amount)
        self.total += amount

    def invariant_total(self):
        assert self.counter.total() == self.total
"""


def _unreachable_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip pointed at a closed port, with no other index or wheel folder: as on a machine offline."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free now and closed: nothing listens on it
    values = {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": f"http://127.0.0.1:{port}/simple", "PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": "", "PIP_RETRIES": "1"}
    for key, value in values.items():
        monkeypatch.setenv(key, value)


def _counter_project(root: Path, pin: str = PINNED) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "machines").mkdir()
    (root / "contracts" / "Counter.vy").write_text(COUNTER.format(pin=pin))
    (root / "contracts" / "bounded.vy").write_text(BOUNDED.format(pin=pin))
    (root / "machines" / "test_counter.py").write_text(MACHINE)
    (root / "evmstate.toml").write_text('[project]\ncontracts = "contracts"\n\n[hypothesis]\nmax_examples = 10\nseed = 1\n')
    return root


@pytest.mark.processes
def test_a_pinned_source_compiles_with_its_release_and_a_machine_runs_on_it(cache: Path, tmp_path: Path, cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch):
    root = _counter_project(tmp_path / "project")
    (root / "contracts" / "Token.vy").write_text((REPO / "tests" / "contracts" / "Token.vy").read_text())
    build = compile_project(root / "contracts", root / ".evmstate" / "build")
    assert not build.errors
    assert {n: a.vyper for n, a in build.artifacts.items()} == {"Counter": PINNED, "Token": VYPER_VERSION}
    counter = build.artifacts["Counter"]
    assert counter.getters == {"total": {"slot": 1, "type": "uint256"}, "cap": {"slot": 0, "type": "uint256"}}
    assert counter.layout["storage_layout"]["bounded"]["cap"]["slot"] == 0
    assert sorted(Path(p).name for p in counter.inputs) == ["Counter.vy", "bounded.vy"]
    assert sorted(Path(p).name for p in counter.sources.values()) == ["Counter.vy", "bounded.vy"]

    # the revert is placed by the pinned release's source map, in the imported module
    project = Project(Config(root=root, project=ProjectConfig(contracts="contracts")))
    deployed = project.Counter.deploy(10, {"from": project.accounts[0]})
    with pytest.raises(TransactionReverted) as caught:
        deployed.add(11, {"from": project.accounts[0]})
    assert caught.value.reason == "over the cap"
    assert caught.value.source_line == f'{root}/contracts/bounded.vy:12: assert new_total <= self.cap, "over the cap"', caught.value.source_line

    monkeypatch.chdir(root)
    code, out = invoke("run")
    assert code == 1, out  # 600 + 600 > 1000: the cap reverts
    assert "over the cap" in out and "contracts/bounded.vy:12" in out, out


def test_warnings_of_a_pinned_release_are_shown_as_the_installed_ones_are(cache: Path, tmp_path: Path):
    """vyper 0.4.1, in a python of its own, deprecates positional event arguments: said once, with the module's path and line, from the build cache too."""
    root = _counter_project(tmp_path / "project")
    bounded = root / "contracts" / "bounded.vy"
    bounded.write_text(
        bounded.read_text().replace("cap: public(uint256)\n", "cap: public(uint256)\n\nevent Checked:\n    total: uint256\n")
        + "    log Checked(new_total)\n"
    )
    for _ in range(2):  # compiled, then from the build cache
        build = compile_project(root / "contracts", root / ".evmstate" / "build", root=root)
        assert not build.errors and build.artifacts["Counter"].vyper == PINNED
        (warning,) = build.warnings
        assert (warning.path, warning.line, warning.kind) == ("contracts/bounded.vy", 16, "Deprecation"), warning
        assert str(warning).startswith("contracts/bounded.vy:16: Deprecation: Instantiating events with positional arguments is deprecated")
        assert str(warning).endswith("Use kwargs instead e.g.: log Checked(total=new_total)")
    assert build.cached == ["Counter"]


def test_a_cached_release_is_not_installed_again(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """With the index out of reach, a release in the cache still compiles; the build cache keys on it."""
    _unreachable_index(monkeypatch)
    root = _counter_project(tmp_path / "project")
    before = sorted(p.name for p in (cache / "vyper").iterdir())
    first = compile_project(root / "contracts", root / ".evmstate" / "build")
    assert not first.errors and first.artifacts["Counter"].vyper == PINNED and first.compiled
    second = compile_project(root / "contracts", root / ".evmstate" / "build")
    assert sorted(second.cached) == ["Counter"] and not second.compiled
    assert second.artifacts["Counter"] == first.artifacts["Counter"]
    assert sorted(p.name for p in (cache / "vyper").iterdir()) == before
    monkeypatch.chdir(root)
    code, out = invoke("compile")
    assert code == 0 and f"add, cap, total  (vyper {PINNED}, as its pragma pins)" in out, out

    # a range the installed vyper does not satisfy takes the newest release in the cache that it admits
    (root / "contracts" / "Counter.vy").write_text(COUNTER.format(pin=">=0.4.0,<0.4.2"))
    ranged = compile_project(root / "contracts", root / ".evmstate" / "build")
    assert ranged.artifacts["Counter"].vyper == PINNED and ranged.compiled == ["Counter"]
    # and a pin the installed vyper satisfies compiles in this process, as without pins
    (root / "contracts" / "Counter.vy").write_text(COUNTER.format(pin="~=0.4.1").replace("from . import bounded", "from . import bounded  # any 0.4.x"))
    (root / "contracts" / "bounded.vy").write_text(BOUNDED.format(pin="^0.4.0"))
    ours = compile_project(root / "contracts", root / ".evmstate" / "build")
    assert {n: a.vyper for n, a in ours.artifacts.items()} == {"Counter": VYPER_VERSION}


def test_offline_a_missing_release_is_an_error_that_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _unreachable_index(monkeypatch)
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(tmp_path / "cache"))
    root = _counter_project(tmp_path / "project", pin="0.4.2")
    build = compile_project(root / "contracts", root / ".evmstate" / "build")
    error = str(build.errors["Counter"])
    assert error.startswith(f"{root / 'contracts' / 'Counter.vy'}: pins vyper 0.4.2, which is not installed (evmstate runs vyper {VYPER_VERSION})"), error
    assert "the index could not be reached: Failed to establish a new connection" in error, error
    assert f"-m pip install --target {tmp_path / 'cache' / 'vyper' / '0.4.2'} vyper==0.4.2" in error, error
    assert "EVMSTATE_CACHE_DIR" in error
    assert not [p for p in (tmp_path / "cache" / "vyper").iterdir()]  # nothing half-installed is left
    assert not list((root / ".evmstate" / "build").glob("Counter-*"))  # nor cached: the next run tries again

    monkeypatch.chdir(root)
    code, out = invoke("compile")
    assert code == 2 and "pins vyper 0.4.2, which is not installed" in out, out


def test_a_release_before_0_2_8_is_refused_without_installing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _unreachable_index(monkeypatch)
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Old.vy").write_text("# @version 0.2.4\n\nx: public(uint256)\n")
    build = compile_project(tmp_path / "contracts", tmp_path / "build")
    assert str(build.errors["Old"]) == (
        f"{tmp_path / 'contracts' / 'Old.vy'}: pins vyper 0.2.4; evmstate compiles with vyper 0.2.8 and later only: older releases do not run on"
        " Python 3.9 and later. Pin 0.2.8 or a later release (e.g. `# @version 0.2.16`, or `# pragma version ~=0.4.0` for the current language)."
    )
    assert not (tmp_path / "cache").exists()


def _requests(paths: list[Path], search: list[Path]) -> list[dict]:
    return [{"path": str(p), "search": [str(s) for s in search], "evm_version": "prague", "optimize": "gas"} for p in paths]


@pytest.mark.processes
def test_the_script_answers_as_this_process_does():
    """For the installed release, the outputs the script prints in a python of its own equal those of an in-process compile."""
    snekmate = REPO / "tests" / "projects" / "snekmate" / "contracts"
    # a token with events, a vault that imports a built-in interface, and snekmate's modules
    paths = [REPO / "contracts" / "Token.vy", REPO / "contracts" / "ShareVault.vy", snekmate / "ERC20Mock.vy"]
    search = [Path(p) for p in reversed(sys.path)] + [REPO / "contracts"]  # snekmate is found among the installed packages
    requests = _requests(paths, search)
    requests.append({**requests[0], "path": str(REPO / "tests" / "integration" / "no_such_source.vy")})  # and one that fails
    folder = Path(vyper.__file__).resolve().parents[1]  # the installed release's own folder
    answered = releases.compile_with(folder, vyper_outputs.VERSION, requests)
    here = [json.loads(json.dumps(vyper_outputs.compile_source(r))) for r in requests]
    assert answered == here
    assert all(r["outputs"] for r in answered[:-1]) and answered[-1]["error"]["type"] == "FileNotFoundError"
    erc20 = answered[len(paths) - 1]
    assert "balanceOf" in erc20["outputs"]["getters"] and len(erc20["inputs"]) > 3


@pytest.mark.network
@pytest.mark.processes
def test_two_processes_installing_one_release_at_once_keep_one_install(tmp_path: Path):
    """Each compiles; the release folder is one complete install, nothing half-written is left."""
    roots = [_counter_project(tmp_path / f"p{i}", pin="==0.4.0") for i in range(2)]
    env = {**os.environ, "EVMSTATE_CACHE_DIR": str(tmp_path / "cache")}
    script = (
        "import sys; from pathlib import Path; from evmstate.compiler.sources import compile_project;"
        "b = compile_project(Path(sys.argv[1]) / 'contracts', Path(sys.argv[1]) / 'build');"
        "print({n: a.vyper for n, a in b.artifacts.items()}, {n: str(e) for n, e in b.errors.items()})"
    )
    workers = [subprocess.Popen([sys.executable, "-c", script, str(r)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in roots]
    outputs = [w.communicate() for w in workers]
    for out, err in outputs:
        if "the index could not be reached" in out or "the index listed no vyper release" in out:
            pytest.skip(f"the package index cannot be reached (or holds no vyper): {out}")
        assert out.strip() == "{'Counter': '0.4.0'} {}", out + err
    assert sorted(p.name for p in (tmp_path / "cache" / "vyper").iterdir()) == ["0.4.0"]


def test_a_cache_folder_that_cannot_be_written_is_an_error_that_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _unreachable_index(monkeypatch)
    (tmp_path / "cache").write_text("a file, not a folder")
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(tmp_path / "cache"))
    root = _counter_project(tmp_path / "project", pin="0.4.2")
    error = str(compile_project(root / "contracts", root / "build").errors["Counter"])
    assert error.startswith(f"{root / 'contracts' / 'Counter.vy'}: pins vyper 0.4.2, which is not installed, and evmstate cannot install it into {tmp_path / 'cache' / 'vyper'}: "), error
    assert error.endswith("Set EVMSTATE_CACHE_DIR to a folder it may write to."), error


SNEK_TOKEN = """# pragma version {pin}
from snekmate.auth import ownable
from snekmate.tokens import erc20

initializes: ownable
initializes: erc20[ownable := ownable]
exports: erc20.__interface__


@deploy
def __init__(supply: uint256):
    ownable.__init__()
    erc20.__init__("Token", "TKN", 18, "Token", "1")
    erc20._mint(msg.sender, supply)
"""


def test_snekmate_modules_pinned_to_the_release_compile_with_it_as_with_the_installed_one(cache: Path, tmp_path: Path):
    """snekmate 0.1.1 (its modules pin ~=0.4.1) in a moccasin lib/pypi folder: vyper 0.4.1 gives the ABI, layout and getters that the installed vyper gives."""
    lib = tmp_path / "lib" / "pypi"
    installed, said = pypi_package("snekmate==0.1.1")  # from the package index, once for every run
    assert installed is not None, said
    shutil.copytree(installed, lib)
    builds = {}
    for pin in (PINNED, f"~={PINNED}"):  # the release, then the installed vyper (which ~=0.4.1 admits)
        contracts = tmp_path / pin / "contracts"
        contracts.mkdir(parents=True)
        (contracts / "SnekToken.vy").write_text(SNEK_TOKEN.format(pin=pin))
        builds[pin] = compile_project(contracts, contracts.parent / "build", search_paths=[lib])
        assert not builds[pin].errors, builds[pin].errors
    old, new = builds[PINNED].artifacts["SnekToken"], builds[f"~={PINNED}"].artifacts["SnekToken"]
    assert (old.vyper, new.vyper) == (PINNED, VYPER_VERSION)
    assert old.getters == new.getters and {"balanceOf", "totalSupply", "owner", "allowance"} <= set(old.getters)
    assert old.layout == new.layout and old.abi == new.abi
    imported = sorted(p for p in new.inputs if p.startswith(str(lib)))
    assert sorted(p for p in old.inputs if p.startswith(str(lib))) == imported and len(imported) > 3
    assert sorted(p for p in old.sources.values() if p.startswith(str(lib))) == imported
    erc20 = next(i for i, p in old.sources.items() if p.endswith("snekmate/tokens/erc20.vy"))
    assert erc20 in old.pc_source.values()  # code that comes from the module is placed in it
    again = compile_project(tmp_path / PINNED / "contracts", tmp_path / PINNED / "build", search_paths=[lib])
    assert again.cached == ["SnekToken"]  # the files 0.4.1 read are those the cache check finds


def test_a_release_that_does_not_run_on_this_python_is_named_with_the_python(tmp_path: Path):
    """A release whose own code fails to load (0.3.0 and before without setuptools' pkg_resources) says so, not "install it again"."""
    folder = tmp_path / "0.3.0"
    (folder / "vyper").mkdir(parents=True)
    (folder / "vyper-0.3.0.dist-info").mkdir()
    (folder / "vyper" / "__init__.py").write_text("import pkg_resources_that_is_gone\n")
    with pytest.raises(Exception) as caught:
        releases.compile_with(folder, "0.3.0", [{"path": str(tmp_path / "A.vy"), "search": [], "evm_version": "prague", "optimize": "gas"}])
    message = str(caught.value)
    python = ".".join(map(str, sys.version_info[:3]))
    assert message.startswith(f"vyper 0.3.0 does not run on Python {python}, which evmstate runs on:"), message
    assert "No module named 'pkg_resources_that_is_gone'" in message and "docs/vyper-0.3.md" in message, message
