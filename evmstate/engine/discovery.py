"""Finds state machines and property tests by convention, importing machine modules."""

from __future__ import annotations

import functools
import inspect
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Config
from ..errors import UsageError
from ..spec.machine import MachineSpec, collect, has_rules, is_machine
from .deployments import deployments_file_error
from .loader import import_error, load_module
from .events import Kind, LoadFailed
from .settings import MachineSettings


@dataclass(frozen=True)
class Item:
    """One runnable thing: a machine class or a property test function.

    Its machine's spec and the names it asks for are read once, when first asked for; a
    machine written wrongly raises MachineDefinitionError each time (nothing is kept then).
    """

    kind: Kind
    path: str
    name: str
    obj: Any

    @property
    def id(self) -> str:
        """"path::name", as the command line, records and workers name the item."""
        return f"{self.path}::{self.name}"

    @functools.cached_property
    def spec(self) -> MachineSpec | None:
        """The machine's rules, invariants and settings; None for a property test."""
        return collect(self.obj) if self.kind == "machine" else None

    @functools.cached_property
    def settings(self) -> MachineSettings:
        """The machine's settings, checked; none for a property test (@settings(...) on it is Hypothesis's)."""
        return MachineSettings.parse(self.spec.settings, self.spec.name) if self.spec is not None else MachineSettings()

    @functools.cached_property
    def asks(self) -> tuple[str, ...]:
        """The names the machine's __init__ or the test asks to be given (a test's drawn arguments aside)."""
        if self.spec is not None:
            return tuple(self.spec.init_params)
        return tuple(inspect.signature(self.obj).parameters)

    @functools.cached_property
    def parameters(self) -> tuple[str, ...]:
        """Every parameter of the machine's __init__, or of the test, drawn ones included."""
        if self.spec is not None:
            return tuple(self.spec.init_params)
        return tuple(inspect.signature(self.obj.hypothesis.inner_test).parameters)


def machine_files(config: Config, paths: tuple[str, ...]) -> list[tuple[Path, str | None]]:
    """The machine files the paths name (the machines folder's when none), each with its ::selector; UsageError for a
    path that is not there, or a missing machines folder."""
    if not paths:
        folder = config.machines_dir
        if not folder.is_dir():
            raise UsageError(
                f"no machines folder at {folder}. Create it and put state machines in it, or give paths: "
                "evmstate run path/to/machines.py"
            )
        return [(p, None) for p in sorted(folder.rglob("*.py")) if not p.name.startswith("_")]
    out: list[tuple[Path, str | None]] = []
    for raw in paths:
        text, _, selector = raw.partition("::")
        p = Path(text)
        if not p.is_absolute():
            p = (Path.cwd() / p).resolve()
        if p.is_dir():
            out.extend((f, None) for f in sorted(p.rglob("*.py")) if not f.name.startswith("_"))
        elif p.is_file() and p.suffix == ".py":
            out.append((p, selector or None))
        else:
            raise UsageError(
                f"{raw}: no such machine file or folder. Give a .py file, a folder, or file.py::MachineName."
            )
    return out


@dataclass
class Found:
    """What discovery found: the selected items, import and definition errors, and what it looked at."""

    items: list[Item]
    errors: list[LoadFailed]
    files: list[str]
    total: int  # items before -k
    near_misses: list[str]


def _key(cls: type) -> tuple[str | None, str]:
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    return (os.path.realpath(file) if file else cls.__module__, cls.__qualname__)


def discover(config: Config, paths: tuple[str, ...] = (), keyword: str | None = None) -> Found:
    """Machines (classes) and property tests (@given test_* functions) in the given files."""
    errors: list[LoadFailed] = []
    near: list[str] = []
    shown_files: list[str] = []
    per_file: list[tuple[str, str | None, list[Item]]] = []
    files = machine_files(config, paths)
    _load_the_rest(config, {p.resolve() for p, _ in files})
    broken = deployments_file_error(config)  # imported now, as the machine modules are
    if broken is not None:
        errors.append(LoadFailed(*broken))
    for path, selector in files:
        shown = _relative(path, config.root)
        shown_files.append(shown)
        try:
            module = load_module(path)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            errors.append(LoadFailed(shown, import_error(path, shown, exc)))
            continue
        found: list[Item] = []
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if is_machine(obj):
                found.append(Item("machine", shown, name, obj))
            elif name.startswith("test_") and callable(obj) and hasattr(obj, "hypothesis"):
                found.append(Item("test", shown, name, obj))
            elif name.startswith("test_") and inspect.isfunction(obj):
                near.append(f"{shown}::{name} is not decorated with @given(...), so it is not a property test")
            elif inspect.isclass(obj) and any(m.startswith("test_") for m in vars(obj)):
                near.append(
                    f"{shown}::{name} has test_* methods: a test class for pytest, "
                    "not a state machine (rules are named rule_<name>)"
                )
        per_file.append((shown, selector, found))
    # a rule-less class that a machine subclasses is a base (say, shared invariants), not a machine
    bases = {_key(k) for _, _, found in per_file for i in found if i.kind == "machine" for k in i.obj.__mro__[1:]}
    items: list[Item] = []
    total = 0
    for shown, selector, found in per_file:
        found = [i for i in found if i.kind == "test" or has_rules(i.obj) or _key(i.obj) not in bases]
        if selector is not None:
            chosen = [i for i in found if i.name == selector]
            if not chosen:
                names = ", ".join(i.name for i in found) or "none"
                raise UsageError(f"{shown}::{selector}: no machine or property test named {selector!r}; found {names}")
            found = chosen
        total += len(found)
        if keyword:
            found = [i for i in found if _matches(keyword, i)]
        items.extend(found)
    return Found(items, errors, shown_files, total, near)


NAMING_RULES = """evmstate runs, from .py files whose names do not start with "_":
  - classes with methods named rule or rule_<name> (Brownie style), and optionally initialize_<name>,
    invariant_<name>, setup, teardown; strategies are class attributes named like the arguments
  - subclasses of evmstate.StateMachine with methods decorated @rule(...), @initialize(...), @invariant()
  - functions named test_<name> decorated with @given(...) (property tests)"""


def nothing_found(config: Config, found: Found, paths: tuple[str, ...], keyword: str | None, flag: str | None) -> str:
    """Why nothing ran: where discovery looked, what filtered everything out, near misses, the naming rules."""
    if paths:
        where = ", ".join(paths)
    else:
        folder = _relative(config.machines_dir, config.root).rstrip("/") + "/"
        inside = [str(Path(f).relative_to(Path(folder))) if f.startswith(folder) else f for f in found.files]
        if not inside:
            listed = "no .py files"
        else:
            listed = (
                f"{len(inside)} file{'s' if len(inside) != 1 else ''}: "
                f"{', '.join(inside[:5])}{', ...' if len(inside) > 5 else ''}"
            )
        where = f"{folder} ({listed})"
    lines = [f"no state machines or property tests found in {where}"]
    filters = ([f"matching -k {keyword!r}"] if keyword else []) + ([f"with {flag}"] if flag else [])
    if filters and found.total:
        lines[0] += f" {' '.join(filters)} ({found.total} found, none selected)"
    elif filters:
        lines[0] += f" {' '.join(filters)}"
    lines.extend(f"  {n}" for n in found.near_misses)
    lines.append(NAMING_RULES)
    return "\n".join(lines)


def _load_the_rest(config: Config, selected: set[Path]) -> None:
    """Import the machines folder's modules that were not selected, ignoring their errors.

    Hypothesis draws some values from the constants in the source of every local module
    loaded so far: with every module of the project loaded whatever -k or the paths select,
    a machine given the same seed runs the same program alone or with the others.
    """
    folder = config.machines_dir
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob("*.py")):
        if path.name.startswith("_") or path.resolve() in selected:
            continue
        try:
            load_module(path)
        except KeyboardInterrupt:
            raise
        except BaseException:  # sys.exit() at import among them: it must not end the run
            pass  # not selected: its errors are not this run's


def _matches(expr: str, item: Item) -> bool:
    """-k: a substring of the name, with 'not', 'and', 'or' as in pytest."""
    words = expr.replace("(", " ( ").replace(")", " ) ").split()
    target = item.id.lower()
    py = []
    for w in words:
        if w in ("and", "or", "not", "(", ")"):
            py.append(w)
        else:
            py.append(repr(w.lower() in target))
    try:
        return bool(eval(" ".join(py), {"__builtins__": {}}))
    except SyntaxError:
        raise UsageError(f"-k {expr!r}: not a valid expression; use names with 'and', 'or', 'not'") from None


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
