"""What vyper warned of, once per source file and warning, and how a source's path is shown."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .artifacts import Artifact


def shown(path: Path, root: Path, search: Sequence[Path]) -> str:
    """A file's path relative to the project root, else to the deepest search path holding it."""
    return shower(root, search)(path)


def shower(root: Path, search: Sequence[Path]) -> Callable[[Path], str]:
    """shown() for many files of one project: the root and search paths resolved once, when called."""
    bases = [root.resolve(), *sorted((p.resolve() for p in search), key=lambda p: -len(p.parts))]

    def show(path: Path) -> str:
        for base in bases:
            try:
                return path.relative_to(base).as_posix()
            except ValueError:
                continue
        return path.as_posix()

    return show


@dataclass(frozen=True)
class CompileWarning:
    """What vyper warned of in one source file, once per file and warning: where first, and the other lines it was met
    on."""

    path: str  # relative to the project root, or to the search path holding it (snekmate/tokens/erc20.vy)
    line: int | None
    kind: str  # vyper's class of warning: Deprecation, VyperWarning, ContractSizeLimit, ...
    message: str
    also: tuple[int, ...] = ()  # the other lines of the same file with the same warning

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        more = f" (also line{'s' if len(self.also) > 1 else ''} {', '.join(map(str, self.also))})" if self.also else ""
        return f"{where}: {self.kind}: {self.message}{more}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "line": self.line, "kind": self.kind, "message": self.message, "also": list(self.also),
        }


def compile_warnings(artifacts: Iterable[Artifact], root: Path, search: Sequence[Path]) -> list[CompileWarning]:
    """The artifacts' warnings, once per source file and warning (a module's, once however many contracts import it).

    A warning is the same when its file, kind and first sentence are: vyper's deprecation of positional event
    arguments names each event's fix after it, and is still one warning of the file.
    """
    found: dict[tuple[str, str, str], tuple[CompileWarning, set[int]]] = {}
    for artifact in artifacts:
        for w in artifact.warnings:
            path = shown(Path(w["path"]), root, search) if w.get("path") else shown(Path(artifact.path), root, search)
            key = (path, w["kind"], w["message"].split(". ")[0])
            line = w.get("lineno")
            if key not in found:
                found[key] = (CompileWarning(path, line, w["kind"], w["message"]), set())
            elif line is not None:
                first, lines = found[key]
                if first.line is None or line < first.line:
                    found[key] = (CompileWarning(path, line, w["kind"], w["message"]), lines | ({first.line} - {None}))  # type: ignore[operator]
                elif line != first.line:
                    lines.add(line)
    return sorted(
        (dataclasses.replace(w, also=tuple(sorted(lines - {w.line}))) for w, lines in found.values()),
        key=lambda w: (w.path, w.line or 0, w.kind, w.message),
    )
