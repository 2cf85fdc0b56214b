"""A project's contracts in one Build: its sources compiled (compiler.py), and the contracts of its
artifacts folder, compiled elsewhere (precompiled.py), each a contract like a compiled source.

The callers that build a project (Project, evmstate compile, the pytest plugin's fixtures, the
failure records' source hashes) come here; compiler.py compiles sources and knows nothing of
artifacts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from . import precompiled
from .sources import Artifact, Build, compile_project, contract_names, input_hashes
from ..config import Config
from ..errors import CompileError


def build(config: Config, include: Sequence[str] = ()) -> Build:
    """The project of config compiled (through the build cache), with its precompiled contracts.

    include: as compile_project takes it.

    A differential run's is its side A build, side B's its counterpart (differential.py).
    """
    if config.differential.on:
        from .differential import build_pair  # a differential run's alone

        found = build_pair(config, include)
    else:
        folders, settings = config.compile_inputs()
        found = compile_project(*folders, **settings, include=tuple(include))
    if config.artifacts_dir is not None:
        for each in (found, found.counterpart):
            if each is not None:
                add_precompiled(each, config.artifacts_dir, config.root)
    return found


def names(config: Config) -> list[str]:
    """The names that may be contracts, without compiling (compiler.contract_names), and every precompiled one."""
    folders, settings = config.compile_inputs()
    found = contract_names(*folders, **settings)
    if config.artifacts_dir is not None:
        contracts, unread, _ = precompiled.load(config.artifacts_dir)
        found += [n for n in [*(d["name"] for d in contracts), *unread] if n not in found]
    return found


def inputs(config: Config) -> dict[str, str]:
    """Every file the project's contracts come from: shown path -> sha256.

    The sources as vyper resolves their imports, and the artifact files.

    A differential run's come from both its builds' contracts folders.
    """
    folders: Iterable[Path] = (config.contracts_dir,)
    if config.differential.on:
        from .differential import sides

        folders = dict.fromkeys(side.config.contracts_dir for side in sides(config))
    found = {}
    for folder in folders:
        found.update(input_hashes(folder, search_paths=config.search_paths, root=config.root))
    if config.artifacts_dir is not None:
        found.update((_shown(Path(p), config.root), h) for p, h in precompiled.load(config.artifacts_dir)[2].items())
    return found


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def add_precompiled(found: Build, folder: Path, root: Path) -> None:
    """Add the contracts of the artifacts folder to a build, as compiled ones are; a name a source gives too is an error
    of that name."""
    contracts, unread, files = precompiled.load(folder)
    for file, h in files.items():
        found.inputs[_shown(Path(file), root)] = h
    for stem, (file, why) in unread.items():
        if stem not in found.sources:
            found.sources[stem] = Path(file)
            found.errors[stem] = CompileError(f"{_shown(Path(file), root)}: {why}", path=file)
    for d in contracts:
        name, path = d["name"], Path(d["path"])
        if name in found.sources:
            found.artifacts.pop(name, None)
            found.errors[name] = CompileError(
                f"two contracts are named {name!r}: {found.sources[name]} and {path}. Rename the source or the "
                "artifact (an artifact is named after its contract, else its file).",
                path=str(path),
            )
            continue
        found.sources[name] = path
        found.artifacts[name] = Artifact.from_dict({**d, "inputs": {d["path"]: d["source_hash"]}})
        found.inputs_of[name] = {_shown(path, root): d["source_hash"]}


def precompiled_note(found: Build) -> str | None:
    """What a run says once about the contracts read from artifacts: they have no source lines."""
    listed = [
        f"{name} ({_shown(Path(a.path), Path.cwd())}, {a.origin})" for name, a in found.artifacts.items() if a.origin
    ]
    if not listed:
        return None
    return (
        f"precompiled: {', '.join(listed)}: read from build artifacts, with no source map; their reverts give their "
        "reason (and custom errors and events are decoded from the ABI), but no source line, and they have no coverage"
    )


def differential_note(found: Build) -> str | None:
    """What a differential run says once of its two builds: which is which, and the contracts whose code is the same on
    both."""
    other = found.counterpart
    if other is None:
        return None
    a, b = found.sides
    alike = sorted(
        name
        for name, art in found.artifacts.items()
        if (theirs := other.artifacts.get(name)) is not None and theirs.bytecode == art.bytecode
    )
    note = f"differential: every call runs on build A ({a}) and build B ({b}); the machines see A's results"
    return note + (f"; built alike on both, so never differing: {', '.join(alike)}" if alike else "")

