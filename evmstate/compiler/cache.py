"""The build cache's files: one JSON file per source build, its paths written relative to the project root.

A project copied or moved elsewhere finds its builds; a damaged entry is rebuilt, never trusted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

from ..files import write_atomic
from .artifacts import Artifact
from ..errors import CompileError

CACHE_FORMAT = 8
KEEP_BUILDS = 4  # cache entries kept per source

# the project root in the build cache: a project copied or moved elsewhere finds its builds
ROOT_MARK = "<root>"
# a folder of the installed packages (sys.path) in the build cache: a virtual environment elsewhere finds the builds of
# sources that import installed modules (snekmate's). An entry's key holds each input's hash besides its path, so a
# different release of the package, or an edited file of it, is compiled again, never taken from another's build.
INSTALLED_MARK = "<installed>"


@functools.lru_cache(maxsize=8)
def _installed(path: tuple[str, ...]) -> tuple[str, ...]:
    """The absolute folders of sys.path (path), resolved, the deepest first: a file is named below the innermost."""
    folders = {str(Path(p).resolve()) for p in path if p and os.path.isabs(p)}
    return tuple(sorted(folders, key=len, reverse=True))


def portable(path: str, root: Path) -> str:
    """path with the project root (resolved) written as ROOT_MARK where it is below it, else a folder of the installed
    packages as INSTALLED_MARK where it is below one."""
    base = str(root.resolve())
    if path == base or path.startswith(base + os.sep):
        return ROOT_MARK + path[len(base) :].replace(os.sep, "/")
    for folder in _installed(tuple(sys.path)):
        if path.startswith(folder + os.sep):
            return INSTALLED_MARK + "/" + path[len(folder) + 1 :].replace(os.sep, "/")
    return path


def local(path: str, root: Path) -> str:
    """The path portable() wrote, in this project's root, or in the first folder of this process's sys.path that holds
    it (the one vyper imports it from)."""
    return localizer(root)(path)


def localizer(root: Path) -> Callable[[str], str]:
    """local() for the many paths of one entry: the root resolved once, when called."""
    base = str(root.resolve())

    def move(path: str) -> str:
        if path.startswith(ROOT_MARK):
            return base + path[len(ROOT_MARK) :].replace("/", os.sep)
        if path.startswith(INSTALLED_MARK + "/"):
            relative = path[len(INSTALLED_MARK) + 1 :].replace("/", os.sep)
            for folder in sys.path:
                if folder and os.path.isabs(folder) and os.path.isfile(os.path.join(folder, relative)):
                    return str(Path(folder, relative).resolve())
            return relative  # installed nowhere here: a key that names it is not found, so this is never read
        return path

    return move


# a file below a folder of the installed packages, as _portable_message() writes it in a cached error's message
_INSTALLED_PATH = re.compile(re.escape(INSTALLED_MARK) + r"/[^\s:'\"(),]+")


def _portable_message(message: str, root: str) -> str:
    """A compile error's message with the project root written as ROOT_MARK and the folders of the installed packages
    as INSTALLED_MARK: read back in another environment, it names the files where that one has them."""
    message = message.replace(root, ROOT_MARK)
    for folder in _installed(tuple(sys.path)):
        message = message.replace(folder + os.sep, INSTALLED_MARK + "/")
        # vyper also names a file relative to the folder the compiler runs in
        with contextlib.suppress(ValueError, OSError):
            relative = os.path.relpath(folder)
            if relative not in (".", os.curdir):
                message = message.replace(relative + os.sep, INSTALLED_MARK + "/")
    return message


def _relocated(d: dict[str, Any], move: Callable[[str], str]) -> dict[str, Any]:
    """An artifact's dict with every file path it holds passed through move."""
    return {
        **d, "path": move(d["path"]), "sources": {k: move(v) for k, v in d["sources"].items()},
        "inputs": {move(k): v for k, v in d["inputs"].items()},
    }


def portable_artifact(artifact: Artifact, root: Path) -> dict[str, Any]:
    """An artifact as data, its paths below root written with ROOT_MARK: for a process whose copy of the project lies
    elsewhere."""
    return _relocated(artifact.to_dict(), lambda p: portable(p, root))


def local_artifact(data: dict[str, Any], root: Path) -> Artifact:
    """The artifact portable_artifact() wrote, in this project's root."""
    return Artifact.from_dict(_relocated(data, localizer(root)))


def read(path: Path, source: Path, name: str, root: Path) -> tuple[Artifact | None, CompileError | None, bool] | None:
    if not path.is_file():
        return None
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        here = localizer(root)
        if d["format"] != CACHE_FORMAT or here(d["path"]) != str(source.resolve()):
            return None
        if d["artifact"] is not None:
            # named as the project names it now: a source added beside it may have changed its name
            found = Artifact.from_dict(_relocated(d["artifact"], here))
            artifact = dataclasses.replace(found, name=name, path=str(source))
            outcome: tuple[Artifact | None, CompileError | None, bool] = (artifact, None, False)
        else:
            e = d["error"]
            message = e["message"].replace(ROOT_MARK, str(root.resolve()))
            message = _INSTALLED_PATH.sub(lambda m: here(m.group(0)), message)
            outcome = (
                None,
                CompileError(message, path=here(e["path"]) if e["path"] else e["path"], lineno=e["lineno"]),
                bool(d["module_only"]),
            )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # a damaged cache entry is rebuilt, never trusted
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: kept longest
    return outcome


def write(path: Path, source: Path, outcome: tuple[Artifact | None, CompileError | None, bool], root: Path) -> None:
    artifact, error, module_only = outcome
    here = str(root.resolve())
    d = {
        "format": CACHE_FORMAT,
        "path": portable(str(source.resolve()), root),
        "artifact": _relocated(artifact.to_dict(), lambda p: portable(p, root)) if artifact is not None else None,
        "error": {
            "message": _portable_message(str(error), here),
            "path": portable(error.path, root) if error.path else error.path, "lineno": error.lineno,
        }
        if error is not None
        else None,
        "module_only": module_only,
    }
    write_atomic(path, json.dumps(d))
    # keep the few most recently used builds of this source: switching back and forth between
    # versions (a branch, an edit undone) then costs no compile
    older = sorted(path.parent.glob(path.name.rsplit("-", 1)[0] + "-*.json"), key=_mtime, reverse=True)
    for stale in older[KEEP_BUILDS:]:
        stale.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0

