"""The build cache is keyed on content and root-relative paths: a copied or moved project finds its builds, and so does
a virtual environment elsewhere for the modules it has installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.compiler.sources import compile_project

from ..conftest import REPO


# three of the bundled contracts: what each test checks holds for one build as for twelve
SOURCES = ("Token.vy", "Depositer.vy", "Claims.vy")


def project_at(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    for name in SOURCES:
        shutil.copy(REPO / "contracts" / name, root / "contracts" / name)
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    return root


def compile_at(root: Path, build: Path | None = None):
    (contracts, cache), settings = config_mod.load(root).compile_inputs()
    return compile_project(contracts, build or cache, **settings)


def test_a_copied_project_takes_every_build_from_the_cache_and_gets_the_same_artifacts(tmp_path):
    first = project_at(tmp_path / "first")
    built = compile_at(first)
    assert built.compiled and not built.cached
    moved = tmp_path / "elsewhere" / "moved"
    shutil.copytree(first, moved)
    again = compile_at(moved)
    assert sorted(again.cached) == sorted(built.compiled) and not again.compiled
    fresh = compile_at(moved, tmp_path / "fresh-build")
    assert fresh.compiled and not fresh.cached
    # the cached artifacts name the moved project's files, exactly as compiling it afresh does
    assert again.artifacts == fresh.artifacts
    for artifact in again.artifacts.values():
        assert artifact.path.startswith(str(moved))
        assert all(not p.startswith(str(first)) for p in (*artifact.inputs, *artifact.sources.values()))


def test_an_edited_source_in_a_copy_is_compiled_again(tmp_path):
    first = project_at(tmp_path / "first")
    compile_at(first)
    moved = tmp_path / "moved"
    shutil.copytree(first, moved)
    token = moved / "contracts" / "Token.vy"
    token.write_text(token.read_text() + "\n\n@external\n@view\ndef added() -> uint256:\n    return 1\n")
    again = compile_at(moved)
    assert again.compiled == ["Token"]
    assert any(e.get("name") == "added" for e in again.artifacts["Token"].abi)


# a package installed in a virtual environment's site-packages, and a contract that imports it
INSTALLED = "@internal\n@pure\ndef double(x: uint256) -> uint256:\n    return 2 * x\n"
IMPORTER = "# pragma version ~=0.4.3\nfrom tinylib import doubling\n\n\n@external\n@pure\ndef twice(x: uint256) -> uint256:\n    return doubling.double(x)\n"


def test_a_second_environment_with_the_same_installed_module_takes_the_build_and_an_edited_one_does_not(tmp_path):
    sites = [tmp_path / venv / "lib" / "site-packages" for venv in ("venv-a", "venv-b")]
    for site in sites:
        (site / "tinylib").mkdir(parents=True)
        (site / "tinylib" / "doubling.vy").write_text(INSTALLED)
    (tmp_path / "project" / "contracts").mkdir(parents=True)
    (tmp_path / "project" / "contracts" / "Twice.vy").write_text(IMPORTER)

    def compiled_in(site: Path, build: Path = tmp_path / "build"):
        with pytest.MonkeyPatch.context() as mp:
            mp.syspath_prepend(str(site))  # the environment's installed packages, where vyper finds the module
            return compile_project(tmp_path / "project" / "contracts", build)

    first = compiled_in(sites[0])
    assert first.compiled == ["Twice"] and not first.errors, first.errors
    assert str((sites[0] / "tinylib" / "doubling.vy").resolve()) in first.artifacts["Twice"].inputs
    # the other environment's copy of the package: the same build, its files named where this environment has them
    again = compiled_in(sites[1])
    assert again.cached == ["Twice"] and not again.compiled
    assert again.artifacts == compiled_in(sites[1], tmp_path / "fresh-build").artifacts
    assert not any(str(sites[0]) in p for p in (*again.artifacts["Twice"].inputs, *again.artifacts["Twice"].sources.values()))
    # an installed file that differs (another release of the package, an edit): compiled again
    module = sites[1] / "tinylib" / "doubling.vy"
    module.write_text(INSTALLED.replace("2 * x", "x + x"))
    edited = compiled_in(sites[1])
    assert edited.compiled == ["Twice"] and not edited.cached


def test_a_cached_error_in_an_installed_module_names_the_module_where_this_environment_has_it(tmp_path):
    sites = [tmp_path / venv / "lib" / "site-packages" for venv in ("venv-a", "venv-b")]
    for site in sites:
        (site / "tinylib").mkdir(parents=True)
        (site / "tinylib" / "doubling.vy").write_text(INSTALLED.replace("2 * x", "2 * y"))  # y is undeclared
    (tmp_path / "project" / "contracts").mkdir(parents=True)
    (tmp_path / "project" / "contracts" / "Twice.vy").write_text(IMPORTER)

    def compiled_in(site: Path):
        with pytest.MonkeyPatch.context() as mp:
            mp.syspath_prepend(str(site))
            return compile_project(tmp_path / "project" / "contracts", tmp_path / "build")

    first = compiled_in(sites[0])
    assert not first.artifacts and first.errors, first
    told = str(first.errors["Twice"])
    assert "venv-a" in told, told  # the message names the module's file
    again = compiled_in(sites[1])
    assert again.cached == ["Twice"] or not again.compiled, again
    retold = str(again.errors["Twice"])
    # the same error, named in the environment that read it from the cache: no folder of the other environment (vyper
    # names the file twice, once relative to the folder it runs in: read back, both name it where this one has it)
    assert "venv-a" not in retold and retold.count("venv-b") == told.count("venv-a") == 2, (told, retold)
    assert retold.splitlines()[0] == told.splitlines()[0].replace("venv-a", "venv-b"), (told, retold)
