"""The settings found and read: the project root at or above a folder, its evmstate.toml over a moccasin
project's settings (moccasin.toml, or [tool.moccasin] in pyproject.toml)."""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from ..config_checks import (
    check_differential, check_kinds, check_together, is_settings_file, read_toml, unknown_key, unknown_section,
    with_default, within,
)
from ..errors import ConfigError
from .keys import check_fork, check_key
from .sections import CONFIG_NAME, MOCCASIN_NAME, PYPROJECT_NAME, SECTIONS, CompilerConfig, Config, ProjectConfig


def find_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above start that holds an evmstate.toml or a moccasin project's settings, or None."""
    here = (start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        if is_settings_file(folder / CONFIG_NAME) or moccasin_files(folder):
            return folder
    return None


def moccasin_files(folder: Path) -> tuple[Path, ...]:
    """moccasin.toml, and pyproject.toml when it has a [tool.moccasin] table, in folder."""
    found = []
    if (folder / MOCCASIN_NAME).is_file():
        found.append(folder / MOCCASIN_NAME)
    pyproject = folder / PYPROJECT_NAME
    if pyproject.is_file():
        try:
            has_table = isinstance(
                tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("moccasin"), dict
            )
        except (ValueError, OSError, AttributeError):  # not TOML, not UTF-8, unreadable
            has_table = False  # not moccasin's to read: moccasin itself would fail on it
        if has_table:
            found.append(pyproject)
    return tuple(found)


def _moccasin_folder(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: [project] {key} must be a folder, relative to the project root; got {value!r}.")
    folder = os.path.expandvars(value)  # as moccasin reads it
    if Path(folder).is_absolute():
        raise ConfigError(
            f"{where}: [project] {key} = {value!r}: evmstate takes it relative to the project root; give a relative "
            "folder."
        )
    return Path(folder).as_posix()


def moccasin_config(root: Path, files: tuple[Path, ...]) -> Config:
    """The settings of a moccasin project: its contracts folder and moccasin's compiler search path.

    moccasin.toml's [project] keys win over [tool.moccasin.project] in pyproject.toml, as moccasin
    merges them. The search path is moccasin's, the first listed winning: the root, the contracts
    folder (src), lib/github, lib/pypi and lib (where `mox install` puts dependencies); those
    that do not exist are left out.
    """
    project: dict[str, Any] = {}
    for path in reversed(files):  # moccasin.toml last, so that its keys win
        data = read_toml(path)
        table = data.get("tool", {}).get("moccasin", {}) if path.name == PYPROJECT_NAME else data
        where = f"{path} [tool.moccasin]" if path.name == PYPROJECT_NAME else str(path)
        section = table.get("project", {})
        if not isinstance(section, dict):
            raise ConfigError(f"{where}: project must be a [project] table.")
        for key in ("src", "lib"):
            if key in section:
                project[key] = _moccasin_folder(section[key], key, where)
    src, lib = project.get("src", "src"), project.get("lib", "lib")
    order = [".", src, f"{lib}/github", f"{lib}/pypi", lib]
    search = tuple(dict.fromkeys(p for p in order if (root / p).is_dir()))
    return Config(
        root=root, project=ProjectConfig(contracts=src), compiler=CompilerConfig(search_paths=search), sources=files
    )


def from_dict(data: dict[str, Any], *, root: Path, path: Path | None = None, base: Config | None = None) -> Config:
    """Build a Config from parsed TOML, checking every section and key; what it leaves out comes from base (else the
    defaults)."""
    where = str(path) if path else CONFIG_NAME
    base = base if base is not None else Config(root=root)
    sections: dict[str, Any] = {}
    keys = {name: {f.name for f in fields(cls) if not f.metadata.get("internal")} for name, cls in SECTIONS.items()}
    for name, body in data.items():
        if name not in SECTIONS:
            raise unknown_section(where, name, body, keys)
        if not isinstance(body, dict):
            raise ConfigError(
                f"{where}: {name} must be a [{name}] table: write [{name}] on a line of its own, its keys on the lines "
                "below it."
            )
        defaults = SECTIONS[name]()
        values = {}
        for key, value in body.items():
            if key not in keys[name]:
                raise unknown_key(where, name, key, keys)
            try:
                checked = (
                    check_fork(where, key, value)
                    if name == "fork"
                    else check_differential(where, key, value)
                    if name == "differential"
                    else check_key(where, name, key, value, getattr(defaults, key))
                )
            except ConfigError as e:
                raise with_default(e, name, key, getattr(defaults, key)) from None
            values[key] = within(where, name, key, checked, getattr(defaults, key))
        if name == "backend" and "name" in body:
            values["named"] = True
        sections[name] = dataclasses.replace(getattr(base, name), **values)
    check_together(
        where, data, sections.get("accounts", base.accounts), sections.get("chain", base.chain),
        sections.get("fuzz", base.fuzz),
    )
    sources = ((path,) if path is not None else ()) + base.sources
    config = base.replace(root=root, path=path, sources=sources, **sections)
    _ = config.search_paths, config.artifacts_dir  # a missing folder is reported when the file is loaded
    check_kinds(where, root, config.project.deployments, None if config.database.is_redis else config.database.url)
    return config


def load(start: Path | None = None) -> Config:
    """Find the project at or above start and load its settings: evmstate.toml over moccasin's; defaults when there are
    none."""
    root = find_root(start)
    if root is None:
        here = (start or Path.cwd()).resolve()
        return Config(root=here.parent if here.is_file() else here)
    mox = moccasin_files(root)
    base = moccasin_config(root, mox) if mox else None
    path = root / CONFIG_NAME
    if not path.is_file():
        assert base is not None
        return base
    return from_dict(read_toml(path), root=root, path=path, base=base)
