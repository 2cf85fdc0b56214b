"""What `evmstate mutate` mutates, and which machines and tests judge each source.

A source is a .vy file some selected machine or test compiles a contract from: the project's own
contracts and the modules they import from the project's folders; a module of an installed
package (or of a dependency folder such as moccasin's lib/) only when --contract names it.
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..compiler import vyper_outputs
from ..compiler.cache import portable
from ..compiler.sources import Artifact, Build
from ..config import Config
from ..contracts.project import Project
from ..engine.deployments import contracts_behind
from ..engine.discovery import Item
from ..errors import MachineDefinitionError, UsageError
from ..spec import collect
from ..search.coverage import CodeMap
from .operators import Mutant, make_mutants


@dataclass(frozen=True)
class Source:
    """A file mutants are made of: where it is, how reports name it, the contracts compiled from it."""

    path: str  # resolved
    shown: str  # relative to the project root, or as an import names it (snekmate/tokens/erc20.vy)
    portable: str  # the path with the project root written as build_cache.ROOT_MARK: the cache's name for it
    sha: str  # of its text
    group: str  # what the report calls it: its contract's name, or the module's shown path
    contracts: tuple[str, ...]  # the contracts compiled from it


def asked_for(item: Item, project: Project) -> list[str]:
    """The contracts a machine's __init__ or a property test asks for, directly or through deployments."""
    try:
        if item.kind == "machine":
            params: Sequence[str] = collect(item.obj).init_params
        else:
            params = list(inspect.signature(item.obj.hypothesis.inner_test).parameters)
    except (MachineDefinitionError, AttributeError, TypeError, ValueError):
        return []
    return contracts_behind(params, project)


def shown_source(path: Path, root: Path) -> str:
    """A file as reports name it: relative to the project root, else to the deepest import folder holding it
    (snekmate/tokens/erc20.vy).
    """
    resolved = path.resolve()
    bases = [root.resolve(), *sorted((Path(p).resolve() for p in sys.path if p), key=lambda p: -len(p.parts))]
    for base in bases:
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.as_posix()


def _own(path: Path, config: Config) -> bool:
    """Whether a file is the project's own: under the contracts folder, or under the root outside its dependency
    folders.
    """
    resolved = path.resolve()
    if resolved.is_relative_to(config.contracts_dir.resolve()):
        return True
    if not resolved.is_relative_to(config.root.resolve()):
        return False
    elsewhere = [
        p.resolve()
        for p in config.search_paths
        if p.resolve() not in (config.root.resolve(), config.contracts_dir.resolve())
    ]
    return not any(resolved.is_relative_to(folder) for folder in elsewhere)


def sources_of(config: Config, project: Project, contracts: set[str], chosen: Sequence[str] = ()) -> list[Source]:
    """The sources to mutate: those the given contracts compile from, the project's own (or those chosen names)."""
    build = project.build
    files: dict[str, set[str]] = {}  # resolved path -> contracts compiled from it
    for name in sorted(contracts):
        artifact = build.artifacts.get(name)
        if artifact is None:
            continue
        for path in artifact.inputs:
            if path.endswith(".vy"):
                files.setdefault(str(Path(path).resolve()), set()).add(name)
    own_files = {str(Path(a.path).resolve()): n for n, a in build.artifacts.items()}
    candidates = []
    for path, names in files.items():
        shown = shown_source(Path(path), config.root)
        group = own_files.get(path) or shown
        candidates.append(Source(path, shown, portable(path, config.root), "", group, tuple(sorted(names))))
    if chosen:
        picked = [c for c in candidates if any(_names(c, name) for name in chosen)]
        for name in chosen:
            if not any(_names(c, name) for c in candidates):
                raise UsageError(_unknown_contract(name, candidates, build))
    else:
        picked = [c for c in candidates if _own(Path(c.path), config)]
    out = []
    for c in sorted(picked, key=lambda c: c.shown):
        digest = hashlib.sha256(Path(c.path).read_bytes()).hexdigest()
        out.append(Source(c.path, c.shown, c.portable, digest, c.group, c.contracts))
    return out


def _names(source: Source, name: str) -> bool:
    """Whether --contract NAME names this source: its contract's name, its module's name or path."""
    bare = name[:-3] if name.endswith(".vy") else name
    shown = source.shown[:-3] if source.shown.endswith(".vy") else source.shown
    dotted = shown.replace("/", ".")
    return (
        name in (source.group, source.shown) or bare in (shown, dotted, Path(shown).name)
        or (Path(name).exists() and str(Path(name).resolve()) == source.path)
    )


def _unknown_contract(name: str, candidates: list[Source], build: Build) -> str:
    known = sorted({c.group for c in candidates} | {Path(c.shown).stem for c in candidates})
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    if name in build.artifacts:
        return (
            f"--contract {name}: no selected machine or test deploys {name}; select one that does (PATHS, "
            "-k) or leave --contract out."
        )
    return (
        f"--contract {name}: no contract or module of that name is compiled into what the selected "
        f"machines and tests deploy.{hint} "
        f"Name a contract, or a module by its name or path as imports write it ({', '.join(known) or 'none'})."
    )


def mutants_of(source: Source) -> list[Mutant]:
    """Every mutant of one source."""
    text = Path(source.path).read_text(encoding="utf-8")
    return make_mutants(source.path, text, vyper_outputs.syntax_tree(text))


def listed(path: Path, made: dict[str, list[Mutant]], sources: list[Source]) -> dict[str, list[Mutant]]:
    """Only the mutants the file at path names, one a line as reports write them.

    A line reads source:line: before  →  after; # starts a comment.

    A line naming no mutant of the sources is an error that shows the mutants made on that line.
    """
    try:
        wanted = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    except OSError as exc:
        raise UsageError(f"--mutants {path}: cannot read it ({exc.strerror or exc})") from None
    wanted = [w for w in wanted if w and not w.startswith("#")]
    shown = {s.path: s.shown for s in sources}
    named = {f"{shown[p]}:{m.line}: {m.diff}": (p, m) for p, found in made.items() for m in found}
    unknown = [w for w in wanted if w not in named]
    if unknown:
        where = unknown[0].split(": ", 1)[0]
        near = [k for k in named if k.startswith(where + ": ")]
        hint = "; the mutants made on that line: " + " | ".join(near)
        if not near:
            hint = f"; no mutant is made at {where} (sources: {', '.join(shown.values())})"
        raise UsageError(f"--mutants {path}: {len(unknown)} line(s) name no mutant, the first: {unknown[0]!r}{hint}")
    keep = {id(named[w][1]) for w in wanted}
    return {p: [m for m in found if id(m) in keep] for p, found in made.items()}


def mutant_id(source: Source, mutant: Mutant) -> str:
    """A short id for a mutant: the same for the same change to the same text, wherever the project lies."""
    text = f"{source.portable}\0{source.sha}\0{mutant.start}\0{mutant.length}\0{mutant.replacement}"
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def code_lines(build: Build, names: Sequence[str]) -> dict[str, set[int]]:
    """The lines code was compiled from, per resolved file, in the given contracts (deploy and runtime code)."""
    found: dict[str, set[int]] = {}
    for name in names:
        artifact = build.artifacts.get(name)
        if artifact is None:
            continue
        for deploy in (False, True):
            for path, line in CodeMap.build(artifact, deploy).lines:
                found.setdefault(str(Path(path).resolve()), set()).add(line)
    return found


def code_identity(artifacts: dict[str, Artifact], names: Sequence[str]) -> str:
    """What the given contracts' code is, their metadata left out: equal for mutants that compile to the same code."""
    h = hashlib.sha256()
    for name in sorted(names):
        artifact = artifacts.get(name)
        if artifact is None:
            h.update(name.encode() + b"\0-")
            continue
        h.update(name.encode() + b"\0" + without_metadata(artifact.bytecode) + b"\0" + artifact.bytecode_runtime)
    return h.hexdigest()


def without_metadata(bytecode: bytes) -> bytes:
    """Deploy code without the CBOR metadata vyper appends (it holds a hash of the sources, comments included)."""
    if len(bytecode) < 2:
        return bytecode
    size = int.from_bytes(bytecode[-2:], "big")  # vyper counts the two bytes of the size in it
    if 2 < size <= len(bytecode) and bytecode[-size] in (0x84, 0x85):  # a CBOR array of 4 or 5 items
        return bytecode[:-size]
    return bytecode


def digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode() + b"\0")
    return h.hexdigest()[:24]
