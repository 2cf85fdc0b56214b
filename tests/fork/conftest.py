"""Fixtures of the fork tests: anvil installed once (under a lock the xdist workers share) and started per test."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import BUILDS, interprocess_lock

from .nodes import ANVIL_ENV, Anvil, anvil_in, install_anvil, which_npm


@pytest.fixture(scope="session")
def anvil_binary() -> Path:
    """anvil from npm's @foundry-rs/anvil: $EVMSTATE_TEST_ANVIL (.ci/run installs it there), else installed once into the tests' build folder."""
    given = os.environ.get(ANVIL_ENV)
    if given:
        path = Path(given)
        found = path if path.is_file() else anvil_in(path)
        if found is None:
            pytest.fail(f"${ANVIL_ENV} = {given}: neither an anvil binary nor a folder where npm installed @foundry-rs/anvil")
        return found
    folder = BUILDS / "anvil"
    found = anvil_in(folder)
    if found is not None:
        return found
    if which_npm() is None:
        pytest.skip(f"the fork tests need anvil, from npm's @foundry-rs/anvil: npm is not installed (install Node.js, or set ${ANVIL_ENV} to an anvil binary)")
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / "anvil.lock"):
        return install_anvil(folder)


@pytest.fixture()
def anvil(anvil_binary: Path) -> Iterator[Anvil]:
    node = Anvil(anvil_binary)
    try:
        yield node
    finally:
        node.stop()
