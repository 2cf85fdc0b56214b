"""The two builds of a differential run ([differential] mode, --differential): side A, whose results the
machine sees, and side B, compared with it call by call.

- codegen: A as the project builds it; B each contract by the other of vyper's code generators;
- compiler:A,B: every source compiled with each of two vyper releases;
- sources:OLD:NEW: two folders or git revisions of the contracts (an empty one: the contracts folder),
  a git revision's contracts folder written under .evmstate/differential/ once.
"""

from __future__ import annotations

import dataclasses
import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..config import Config, shown
from ..errors import ConfigError
from .sources import Build, compile_project
from .releases import legacy


@dataclass(frozen=True)
class Side:
    """One build of a differential run: what it is called, the settings it compiles with."""

    label: str
    config: Config
    release: str | None = None  # every source compiled with this vyper release
    codegen: tuple[tuple[str, bool], ...] | None = None  # every contract's code generator, over the project's


def sides(config: Config) -> tuple[Side, Side]:
    """The two sides config's [differential] mode asks for; a ConfigError naming what is missing (a folder, a git
    revision)."""
    mode = config.differential.parsed()
    if mode.kind == "compiler":
        return Side(f"vyper {mode.a}", config, release=mode.a), Side(f"vyper {mode.b}", config, release=mode.b)
    if mode.kind == "sources":
        return _sources_side(config, mode.a, "old"), _sources_side(config, mode.b, "new")
    label = "venom" if config.compiler.experimental_codegen else "legacy"
    return Side(label, config), Side("venom" if label == "legacy" else "legacy", config, codegen=())


def build_pair(config: Config, include: Sequence[str] = ()) -> Build:
    """Side A's build, with side B's as its counterpart and both labels (their precompiled contracts are build.py's to
    add)."""
    a_side, b_side = sides(config)
    a = build_side(a_side, include)
    if b_side.codegen is not None:  # each contract by the code generator its side A build did not use
        flipped = tuple(
            sorted((name, not art.venom and not legacy(art.vyper or "0.4.0")) for name, art in a.artifacts.items())
        )
        b_side = dataclasses.replace(b_side, codegen=flipped)
    b = build_side(b_side, include)
    # a record of a failure is stale when a file either side compiles from changed
    a.inputs.update(b.inputs)
    for name, files in b.inputs_of.items():
        a.inputs_of.setdefault(name, {}).update(files)
    a.counterpart, a.sides = b, (a_side.label, b_side.label)
    return a


def build_side(side: Side, include: Sequence[str] = ()) -> Build:
    folders, settings = side.config.compile_inputs()
    if side.release is not None:
        settings["release"] = side.release
    if side.codegen is not None:
        settings.update(experimental_codegen=side.config.compiler.experimental_codegen, codegen=side.codegen)
    return compile_project(*folders, **settings, include=tuple(include))


def _sources_side(config: Config, given: str, label: str) -> Side:
    """The side of sources:OLD:NEW that given names: the contracts folder (""), a folder, else a git revision."""
    if not given:
        return Side(f"{label} ({_below(config.contracts_dir, config.root)}/)", config)
    folder = Path(given) if Path(given).is_absolute() else config.root / given
    if folder.is_dir():
        return Side(f"{label} ({_below(folder, config.root)}/)", _with_contracts(config, folder))
    return Side(f"{label} (git {given})", _with_contracts(config, _checkout(config, given)))


def _below(folder: Path, root: Path) -> str:
    """folder as the project names it: relative to its root when below it (a label a saved failure keeps)."""
    try:
        return folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(folder)


def _with_contracts(config: Config, folder: Path) -> Config:
    try:
        relative = folder.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        relative = str(folder.resolve())
    return config.replace(project=dataclasses.replace(config.project, contracts=relative))


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ConfigError(
            f"git {' '.join(args)} could not run in {root}: {e}. Install git, or give sources:OLD:NEW folders "
            f"instead of revisions."
        ) from None
    if done.returncode != 0:
        raise _NotARevision(done.stderr.decode(errors="replace").strip())
    return done.stdout.decode(errors="replace")


class _NotARevision(Exception):
    pass


def _checkout(config: Config, revision: str) -> Path:
    """The contracts folder as git revision holds it, written once under .evmstate/differential/<commit>/."""
    root = config.root
    try:
        commit = _git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()
        prefix = _git(root, "rev-parse", "--show-prefix").strip()
    except _NotARevision:
        raise ConfigError(
            f"[differential] sources: {revision!r} is neither a folder (under {shown(root)}) nor a git revision of "
            f"the project's repository. "
            "Give a folder of the other contracts, or a commit, tag or branch."
        ) from None
    base = config.state_dir / "differential" / commit[:12]
    folder = base / config.project.contracts
    if (base / ".done").is_file():
        return folder
    try:
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", "--format=tar", f"{commit}:{prefix}{config.project.contracts}"],
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ConfigError(f"git archive could not run in {root}: {e}.") from None
    if archive.returncode != 0:
        raise ConfigError(
            f"[differential] sources: git revision {revision} has no {config.project.contracts}/ folder: "
            f"{archive.stderr.decode(errors='replace').strip()}"
        )
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    (base / ".done").write_text(commit)
    return folder

