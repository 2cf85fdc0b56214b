"""Fixtures of the fork tests: anvil (installed by tests/conftest.py's anvil_binary) started per test; a fork cache written by hand."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from evmstate.compiler.sources import compile_project

from .cache_folder import BLOCK, CHAIN, MACHINE, SOURCE, write_cache
from .nodes import Anvil


@pytest.fixture()
def anvil(anvil_binary: Path) -> Iterator[Anvil]:
    node = Anvil(anvil_binary)
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="session")
def runtime_code(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The runtime code of the one contract the hand-written cache holds, compiled once."""
    root = tmp_path_factory.mktemp("code")
    (root / "contracts").mkdir()
    (root / "contracts" / "C.vy").write_text(SOURCE)
    code = compile_project(root / "contracts", root / "build", root=root).artifacts["C"].bytecode_runtime
    return code if isinstance(code, str) else "0x" + code.hex()


@pytest.fixture()
def cached(tmp_path: Path, runtime_code: str) -> Path:
    """A folder holding a hand-written fork cache of chain 1 at block 1000."""
    write_cache(tmp_path, runtime_code)
    return tmp_path


@pytest.fixture()
def cached_project(cached: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Iterator[Path]:
    """A project whose machine reads the contract of the hand-written cache, forked offline from it: the current folder."""
    (cached / "contracts").mkdir()
    (cached / "machines").mkdir()
    (cached / "contracts" / "C.vy").write_text(SOURCE)
    (cached / "machines" / "m.py").write_text(MACHINE)
    (cached / "evmstate.toml").write_text(f'[hypothesis]\nmax_examples = 2\nphases = ["generate"]\n\n[fork]\nchain_id = {CHAIN}\nblock = {BLOCK}\n')
    monkeypatch.chdir(cached)
    yield cached
    os.chdir("/")
