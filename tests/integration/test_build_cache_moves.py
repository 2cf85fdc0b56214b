"""The build cache is keyed on content and root-relative paths: a copied or moved project finds its builds."""

from __future__ import annotations

import shutil
from pathlib import Path

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
