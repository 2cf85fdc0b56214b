"""Fixtures of the fork tests: anvil (installed by tests/conftest.py's anvil_binary) started per test."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from .nodes import Anvil


@pytest.fixture()
def anvil(anvil_binary: Path) -> Iterator[Anvil]:
    node = Anvil(anvil_binary)
    try:
        yield node
    finally:
        node.stop()
