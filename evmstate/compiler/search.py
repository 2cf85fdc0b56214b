"""Where a project's imports are looked for, in vyper's order, and what to say when one is not found there."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from .vyper_warnings import shown


def search_paths(contracts_dir: Path, root: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """Where imports are looked for, lowest precedence first, as vyper's input bundle takes them.

    The same list `vyper -p <extra>... -p <contracts>` builds when run from the project root
    (vyper/cli/vyper_compile.py, get_search_paths): the installed packages (sys.path, its first
    entry winning), then the project's folders (project_paths). vyper itself searches the
    importing file's own folder before all of them.
    """
    return [*(Path(p) for p in reversed(sys.path)), *project_paths(contracts_dir, root, extra)]


def project_paths(contracts_dir: Path, root: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """The project's own search folders, lowest precedence first: the root, the extra folders (the
    first listed winning), the contracts folder.

    A root or contracts folder that extra lists takes the place it has there instead: moccasin's
    search path, [root, src, lib/github, lib/pypi, lib], puts the root first.
    """
    listed = {Path(p).resolve() for p in extra}
    head = [] if root.resolve() in listed else [root]
    tail = [] if contracts_dir.resolve() in listed else [contracts_dir]
    return [*head, *reversed(list(extra)), *tail]


def not_found_hint(contracts_dir: Path, root: Path, extra: Sequence[Path]) -> str:
    order = list(dict.fromkeys(p.resolve() for p in reversed(project_paths(contracts_dir, root, extra))))
    folders = ", ".join("the project root" if p == root.resolve() else shown(p, root, ()) + "/" for p in order)
    return (
        f"\n  evmstate searched the importing file's folder, {folders}, then the installed"
        " packages (sys.path). Install the package that provides the module (e.g. `pip install snekmate`,"
        " or `mox install` in a moccasin project, which puts it in lib/pypi or lib/github),"
        " or add the folder holding it to search_paths under [compiler] in evmstate.toml."
    )
