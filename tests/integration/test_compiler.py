"""The compiler on real vyper: imports resolved as vyper resolves them, library modules, errors kept
per contract, and a build cache keyed on every input."""

import hashlib
from pathlib import Path

import pytest

from evmstate import ConfigError, Project, reverts
from evmstate.compiler.sources import compile_project, contract_names, input_hashes
from evmstate.config import CompilerConfig, Config

from ..conftest import HERE

RETURNS = "@external\n@view\ndef f() -> uint256:\n    return {}\n"
PICK = "VALUE: constant(uint256) = {}\n"
# a contract that returns the VALUE of whichever `pick` module vyper finds first
USES_PICK = "import pick\n\n@external\n@view\ndef f() -> uint256:\n    return pick.VALUE\n"

COUNTER = """
count: public(uint256)

@internal
def _bump():
    self.count += 1
"""
USER = """
from lib import counter
initializes: counter
exports: counter.count

@external
def bump():
    counter._bump()
"""
OWNED = """
import owner_lib
uses: owner_lib

@internal
def _check():
    assert msg.sender == owner_lib.owner, "not the owner"
"""
OWNER_LIB = """
owner: public(address)

@deploy
def __init__():
    self.owner = msg.sender
"""
# a module nothing imports, that cannot be a contract: it uses state nothing initializes
UNUSED = """
from lib import counter
uses: counter

@internal
def _peek() -> uint256:
    return counter.count
"""
GUARDED = """
import owner_lib
from lib import owned
initializes: owner_lib
initializes: owned[owner_lib := owner_lib]

@deploy
def __init__():
    owner_lib.__init__()

@external
def guarded() -> uint256:
    owned._check()
    return 7
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def build(root: Path, **kw):
    return compile_project(root / "contracts", root / ".evmstate" / "build", root=root, **kw)


def load(root: Path, search_paths=()) -> Project:
    return Project(Config(root=root, compiler=CompilerConfig(search_paths=tuple(search_paths))))


def value(project: Project) -> int:
    """What contract A's f() returns, deployed on the project's chain."""
    return project.A.deploy({"from": project.accounts[0]}).f()


def test_compiles_every_source_with_abi_code_and_source_map(tmp_path: Path):
    b = compile_project(HERE / "contracts", tmp_path / "build")
    assert set(b.artifacts) == {"Depositer", "Token", "Vault"} and not b.errors
    assert sorted(b.compiled) == ["Depositer", "Token", "Vault"] and b.cached == []
    dep = b.artifacts["Depositer"]
    assert {e["name"] for e in dep.abi if e["type"] == "function"} == {"deposited", "deposit_for", "withdraw_from"}
    assert dep.bytecode and dep.bytecode_runtime and dep.pc_pos
    assert dep.layout["storage_layout"]["deposited"]["slot"] == 0
    assert list(dep.inputs) == [str((HERE / "contracts" / "Depositer.vy").resolve())]


def test_second_run_compiles_nothing_and_a_change_recompiles(tmp_path: Path):
    write(tmp_path, {"contracts/A.vy": RETURNS.format(1), "contracts/B.vy": RETURNS.format(2)})
    build(tmp_path)
    first = build(tmp_path)
    assert first.compiled == [] and sorted(first.cached) == ["A", "B"]
    write(tmp_path, {"contracts/A.vy": RETURNS.format(3)})
    second = build(tmp_path)
    assert second.compiled == ["A"] and second.cached == ["B"]
    assert second.artifacts["A"].bytecode != first.artifacts["A"].bytecode
    write(tmp_path, {"contracts/A.vy": RETURNS.format(1)})
    undone = build(tmp_path)
    assert undone.compiled == [], "an edit undone finds its earlier build in the cache"
    assert undone.artifacts["A"].bytecode == first.artifacts["A"].bytecode
    assert sorted(build(tmp_path, evm_version="cancun").compiled) == ["A", "B"], "the EVM version is part of the key"
    assert sorted(build(tmp_path, optimize="codesize").compiled) == ["A", "B"], "the optimizer setting is part of the key"
    (tmp_path / "lib").mkdir()
    assert sorted(build(tmp_path, search_paths=["lib"]).compiled) == ["A", "B"], "the search paths are part of the key"
    assert build(tmp_path, search_paths=["lib"]).compiled == []


def test_a_damaged_cache_entry_is_rebuilt(tmp_path: Path):
    write(tmp_path, {"contracts/A.vy": RETURNS.format(1)})
    build(tmp_path)
    for f in (tmp_path / ".evmstate" / "build").iterdir():
        f.write_text("{not json")
    b = build(tmp_path)
    assert b.compiled == ["A"] and b.artifacts["A"].bytecode


def test_a_type_error_is_kept_for_its_contract_with_file_line_and_vyper_message(tmp_path: Path):
    write(tmp_path, {"contracts/Bad.vy": "x: uint256\n\n@external\ndef f() -> uint256:\n    return self.y\n", "contracts/Good.vy": RETURNS.format(1)})
    src = tmp_path / "contracts"
    b = build(tmp_path)
    assert set(b.artifacts) == {"Good"} and set(b.errors) == {"Bad"}
    err = b.errors["Bad"]
    assert err.lineno == 5 and err.path.endswith("Bad.vy")
    assert f"{src / 'Bad.vy'}:5" in str(err)
    assert "Storage variable 'y' has not been declared" in str(err)
    assert "return self.y" in str(err)
    again = build(tmp_path)
    assert sorted(again.cached) == ["Bad", "Good"], "a compile error is cached with its inputs too"
    assert str(again.errors["Bad"]) == str(err)


def test_syntax_error_names_file_and_line(tmp_path: Path):
    write(tmp_path, {"contracts/Broken.vy": "@external\ndef f() -> uint256\n    return 1\n"})
    b = build(tmp_path)
    assert "Broken.vy:2" in str(b.errors["Broken"])


def test_an_error_in_an_imported_module_names_the_module_file(tmp_path: Path):
    write(tmp_path, {"contracts/A.vy": USES_PICK, "lib/pick.vy": "VALUE: constant(uint256) = self.nope\n"})
    err = build(tmp_path, search_paths=["lib"]).errors["A"]
    assert err.path == str((tmp_path / "lib" / "pick.vy").resolve()) and err.lineno == 1
    assert str(err).startswith(f"{(tmp_path / 'lib' / 'pick.vy').resolve()}:1: ")


def test_sources_whose_stems_collide_are_named_by_module_path(tmp_path: Path):
    write(tmp_path, {"contracts/A.vy": RETURNS.format(1), "contracts/sub/A.vy": RETURNS.format(2), "contracts/B.vy": RETURNS.format(3)})
    b = build(tmp_path)
    assert set(b.artifacts) == {"A", "sub_A", "B"} and not b.errors
    assert b.artifacts["sub_A"].path.endswith("contracts/sub/A.vy") and b.artifacts["A"].path.endswith("contracts/A.vy")
    # a source added later renames the one whose stem it shares, even when that one comes from the cache
    write(tmp_path, {"contracts/other/B.vy": RETURNS.format(4)})
    b = build(tmp_path)
    assert set(b.artifacts) == {"A", "sub_A", "B", "other_B"} and "B" in b.cached
    assert b.artifacts["other_B"].name == "other_B"


def test_a_module_path_name_taken_by_another_source_is_an_error_of_that_name_only(tmp_path: Path):
    write(tmp_path, {"contracts/sub/A.vy": RETURNS.format(1), "contracts/lib/A.vy": RETURNS.format(2), "contracts/sub_A.vy": RETURNS.format(3), "contracts/B.vy": RETURNS.format(4)})
    b = build(tmp_path)
    assert set(b.artifacts) == {"lib_A", "B"}
    assert "two contracts are named 'sub_A'" in str(b.errors["sub_A"]) and "rename one of them" in str(b.errors["sub_A"])


def test_search_order_is_vyper_s_and_shadowing_recompiles(tmp_path: Path, monkeypatch):
    """The contracts folder, then search_paths in the order given, then the project root, then sys.path."""
    installed = tmp_path / "site"
    monkeypatch.syspath_prepend(str(installed))
    write(
        tmp_path,
        {
            "contracts/A.vy": USES_PICK,
            "first/pick.vy": PICK.format(1),
            "second/pick.vy": PICK.format(2),
            "pick.vy": PICK.format(3),
            "site/pick.vy": PICK.format(4),
        },
    )
    paths = ["first", "second"]
    project = load(tmp_path, paths)
    assert value(project) == 1
    assert [m.shown for m in project.build.modules] == ["first/pick.vy"] and project.build.modules[0].importers == ("A",)
    for gone, expected in (("first", 2), ("second", 3), (".", 4)):
        (tmp_path / gone / "pick.vy").unlink()
        project = load(tmp_path, paths)
        assert project.build.compiled == ["A"], f"removing {gone}/pick.vy changes what A imports"
        assert value(project) == expected
    write(tmp_path, {"contracts/pick.vy": PICK.format(5), "first/pick.vy": PICK.format(1)})
    assert value(load(tmp_path, paths)) == 5, "the contracts folder comes first"


def test_editing_or_upgrading_an_imported_module_outside_contracts_recompiles(tmp_path: Path, monkeypatch):
    root, installed = tmp_path / "proj", tmp_path / "site"
    monkeypatch.syspath_prepend(str(installed))  # as `pip install` puts a package on sys.path
    write(
        root,
        {
            "contracts/A.vy": "from fakepkg import pick\n\n@external\n@view\ndef f() -> uint256:\n    return pick.VALUE\n",
            "contracts/B.vy": RETURNS.format(9),
        },
    )
    write(installed, {"fakepkg/pick.vy": PICK.format(1)})
    project = load(root)
    assert value(project) == 1
    b = project.build
    assert [(m.shown, m.importers, m.in_project) for m in b.modules] == [("fakepkg/pick.vy", ("A",), False)]
    assert set(b.inputs) == {"contracts/A.vy", "contracts/B.vy", "fakepkg/pick.vy"}
    write(installed, {"fakepkg/pick.vy": PICK.format(2)})  # an upgrade
    project = load(root)
    assert project.build.compiled == ["A"] and project.build.cached == ["B"]
    assert value(project) == 2
    assert input_hashes(root / "contracts", root=root) == project.build.inputs != b.inputs


def test_a_module_that_is_not_found_says_where_evmstate_looked(tmp_path: Path):
    write(tmp_path, {"contracts/A.vy": "from nowhere import thing\n", "lib/.keep": ""})
    err = build(tmp_path, search_paths=["lib"]).errors["A"]
    assert "ModuleNotFound" in str(err) and "A.vy:1" in str(err)
    assert "searched the importing file's folder, contracts/, lib/, the project root, then the installed packages" in str(err)
    assert "search_paths under [compiler]" in str(err)


def test_library_modules_are_compiled_with_their_importers_and_not_deployed(tmp_path: Path):
    write(
        tmp_path,
        {
            "contracts/User.vy": USER,
            "contracts/lib/counter.vy": COUNTER,
            "contracts/Guarded.vy": GUARDED,
            "contracts/lib/owned.vy": OWNED,
            "contracts/owner_lib.vy": OWNER_LIB,
            "contracts/lib/unused.vy": UNUSED,
        },
    )
    b = build(tmp_path)
    assert not b.errors, b.errors
    # only the contracts are compiled: a source others import, or one with nothing to deploy, is a library module
    assert set(b.artifacts) == {"User", "Guarded"} and sorted(b.compiled) == ["Guarded", "User"]
    modules = {m.shown: m for m in b.modules}
    assert modules["contracts/lib/owned.vy"].importers == ("Guarded",) and modules["contracts/lib/owned.vy"].on_demand
    assert modules["contracts/lib/counter.vy"].importers == ("User", "unused")
    assert modules["contracts/owner_lib.vy"].importers == ("Guarded", "owned")
    unused = modules["contracts/lib/unused.vy"]
    assert unused.importers == () and unused.on_demand and "no external function" in unused.reason
    assert not list((tmp_path / ".evmstate" / "build").glob("unused-*")), "nothing compiled it"
    # asked for by name, one that compiles on its own is a contract too (imported for its interface, it stays deployable)
    asked = build(tmp_path, include=("counter", "owner_lib"))
    assert set(asked.artifacts) == {"User", "Guarded", "counter", "owner_lib"} and sorted(asked.compiled) == ["counter", "owner_lib"]
    assert {m.shown for m in asked.modules if m.on_demand} == {"contracts/lib/owned.vy", "contracts/lib/unused.vy"}

    project = Project(Config(root=tmp_path))
    assert set(project.artifacts) == {"User", "Guarded"}
    with pytest.raises(Exception, match=r"'owned' \(contracts/lib/owned.vy\) is a library module \(imported by Guarded\).*deploy Guarded instead"):
        project.owned
    assert "cannot be compiled on its own" in str(project.provide("unused").error) and "never initialized" in str(project.provide("unused").error)
    names = contract_names(tmp_path / "contracts", tmp_path / ".evmstate" / "build", root=tmp_path)
    assert sorted(names) == ["Guarded", "User", "counter", "owner_lib"], "the cache tells modules that cannot be contracts apart"
    assert "owned" not in project.containers and "unused" not in project.containers
    guarded = project.Guarded.deploy({"from": project.accounts[0]})
    assert guarded.guarded({"from": project.accounts[0]}).return_value == 7
    with reverts("not the owner"):
        guarded.guarded({"from": project.accounts[1]})
    user = project.User.deploy({"from": project.accounts[0]})
    user.bump({"from": project.accounts[0]})
    assert user.count() == 1
    # a module that compiles on its own is deployed once asked for, by name or by module path
    counter = project["lib/counter"].deploy({"from": project.accounts[0]})
    assert counter.count() == 0 and "counter" in project.containers and "counter" in project.build.included


def test_snekmate_installed_with_pip_is_all_an_import_needs(tmp_path: Path):
    write(tmp_path, {"contracts/SnekToken.vy": SNEK_TOKEN})
    project = Project(Config(root=tmp_path))
    assert not project.build.errors, project.build.errors
    shown = {m.shown: m.importers for m in project.build.modules}
    assert shown["snekmate/tokens/erc20.vy"] == ("SnekToken",) and shown["snekmate/auth/ownable.vy"] == ("SnekToken",)
    a, b = project.accounts[0], project.accounts[1]
    token = project.SnekToken.deploy(1000, {"from": a})
    token.transfer(b, 300, {"from": a})
    assert (token.balanceOf(a), token.balanceOf(b), token.totalSupply()) == (700, 300, 1000)


def test_a_missing_search_path_folder_is_a_config_error(tmp_path: Path):
    write(tmp_path, {"contracts/A.vy": RETURNS.format(1)})
    with pytest.raises(ConfigError, match=r"\[compiler\] search_paths: 'nope' is not a folder"):
        Project(Config(root=tmp_path, compiler=CompilerConfig(search_paths=("nope",))))


SNEK_TOKEN = """
# pragma version ~=0.4.3
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


def test_the_cache_check_finds_the_same_files_vyper_compiles_from(tmp_path: Path):
    """The cache is looked up by a scan that parses each file once; it must agree with vyper's own pass."""
    from evmstate.compiler import scan as import_scan, sources as compiler, vyper_outputs

    write(
        tmp_path,
        {
            "contracts/SnekToken.vy": SNEK_TOKEN,
            "contracts/User.vy": USER,
            "contracts/lib/counter.vy": COUNTER,
            "contracts/Guarded.vy": GUARDED,
            "contracts/lib/owned.vy": OWNED,
            "contracts/owner_lib.vy": OWNER_LIB,
            "contracts/A.vy": USES_PICK,
            "lib/pick.vy": PICK.format(1),
        },
    )
    plan = compiler._plan(tmp_path / "contracts", None, "prague", "gas", ["lib"], tmp_path)
    assert len(plan.sources) == 7 and not any(s.error for s in plan.sources)
    for s in plan.sources:
        import_scan._PARSED.clear()
        import_scan._PLACED.clear()
        compiled = vyper_outputs.compile_source(compiler._request(s))["inputs"]
        assert import_scan.scan(s.path, s.search)[0] == s.inputs == {Path(p): h for p, h in compiled.items()}, s.name
    assert len(next(s for s in plan.sources if s.name == "SnekToken").inputs) == 8


# a module that imports its neighbour: which file that is depends on where the module lies
NEIGHBOUR_USER = "from . import neighbour\n\n@external\n@view\ndef f() -> uint256:\n    return neighbour.VALUE\n"


def test_a_copy_of_a_project_elsewhere_finds_its_own_files_and_parses_nothing_again(tmp_path: Path):
    """Each text is parsed once per process: a copy at another path (a test's, a worker's) finds the files at its own path."""
    from evmstate.compiler import scan as import_scan, sources as compiler, vyper_outputs

    files = {"contracts/User.vy": USER, "contracts/lib/counter.vy": COUNTER, "contracts/Near.vy": NEIGHBOUR_USER}
    write(tmp_path / "a", {**files, "contracts/neighbour.vy": PICK.format(1)})
    write(tmp_path / "b", {**files, "contracts/neighbour.vy": PICK.format(2)})  # the same importer, another neighbour
    import_scan._PARSED.clear()
    import_scan._PLACED.clear()
    first = compiler._plan(tmp_path / "a" / "contracts", None, "prague", "gas", [], tmp_path / "a")
    parsed = dict(import_scan._PARSED)
    second = compiler._plan(tmp_path / "b" / "contracts", None, "prague", "gas", [], tmp_path / "b")
    assert set(import_scan._PARSED) == set(parsed) | {hashlib.sha256(PICK.format(2).encode()).hexdigest()}
    for a, b in zip(first.sources, second.sources):
        assert a.name == b.name and not a.error and not b.error
        compiled = vyper_outputs.compile_source(compiler._request(b))["inputs"]
        assert b.inputs == {Path(p): h for p, h in compiled.items()}, b.name
        assert [p.relative_to(tmp_path / "b") for p in b.inputs] == [p.relative_to(tmp_path / "a") for p in a.inputs], b.name
    near = {s.name: s for s in second.sources}["Near"]
    assert near.inputs[(tmp_path / "b" / "contracts" / "neighbour.vy").resolve()] == hashlib.sha256(PICK.format(2).encode()).hexdigest()
