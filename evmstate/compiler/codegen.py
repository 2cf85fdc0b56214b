"""Which of vyper's code generators builds a source: the legacy one, or Venom (experimental codegen)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from ..errors import CompileError

# `# pragma experimental-codegen` (or venom-experimental): the source asks for vyper's Venom code generator
PRAGMA = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(experimental-codegen|venom-experimental)\b", re.MULTILINE)


def chosen(
    name: str,
    module: str,
    path: Path,
    pragma: bool,
    legacy_release: str | None,
    codegen: tuple[bool, Sequence[tuple[str, bool]]],
) -> tuple[bool, CompileError | None]:
    """(whether Venom builds the source, the error of a Venom build it cannot have).

    Its [compiler.contracts] entry (by name or module path) wins, then its own pragma, then the
    project's [compiler] experimental_codegen. A source pinned to a release before 0.4.0
    (legacy_release) has no Venom build evmstate can make: asking for one is its error.
    """
    project_wide, entries = codegen
    own = dict(entries)
    entry = own.get(name, own.get(module))
    venom = entry if entry is not None else (pragma or project_wide)
    if not venom or legacy_release is None:
        return venom, None
    why = (
        f"[compiler.contracts] {name}"
        if entry is not None
        else "its `# pragma experimental-codegen`"
        if pragma
        else "[compiler] experimental_codegen"
    )
    return venom, CompileError(
        f"{path}: {why} asks for a Venom build, but the source pins vyper {legacy_release}, and releases before "
        f"0.4.0 have no Venom code "
        f"generator evmstate builds with. Set {name} = {{ experimental_codegen = false }} under "
        f"[compiler.contracts] in evmstate.toml, or port the source to vyper 0.4.",
        path=str(path),
    )
