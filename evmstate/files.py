"""evmstate's own files, on the ground floor: its version, and a digest of its modules' code for the caches keyed on it.

Imports nothing of evmstate's.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Iterable


@functools.lru_cache(maxsize=1)
def version() -> str:
    """evmstate's installed version, read once from the package's metadata (pyproject.toml is its one source: about 1 ms a read)."""
    return importlib.metadata.version("evmstate")


def module_file(name: str) -> Path:
    """The source file of an evmstate module named by its dotted name; a name that does not resolve raises.

    A cache keyed on a module's code must not go on hashing a module that was renamed away: a miss
    here is evmstate's own mistake (a stale list), not the user's.
    """
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None else None
    if origin is None or not Path(origin).is_file():
        raise LookupError(f"{name} is not a module with a source file: a list of modules to hash names it, update the list")
    return Path(origin)


def code_digest(names: Iterable[str], *, salt: str = "") -> str:
    """A sha256 of the named modules' source files (in the order given), after salt."""
    h = hashlib.sha256(salt.encode())
    for name in names:
        h.update(name.encode() + module_file(name).read_bytes())
    return h.hexdigest()
