"""A project's deployments, written once: the functions of deployments.py, injected by name.

Each public function of the file ([project] deployments, deployments.py at the project root by
default) is a deployment named after it. A machine's __init__ or a property test that names it
as a parameter gets what it returns; its own parameters are injected the same way (accounts,
chain, contracts, other deployments), and within one machine or test each deployment runs once,
however many others ask for it. They run when the machine's class-level __init__ runs (before
the snapshot every run starts from), or before a property test's first example.
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..config import Config, shown
from ..contracts.contract import Contract, label_deployment
from ..contracts.project import OnDemand, Project, Unavailable
from ..errors import MachineDefinitionError
from .tracebacks import describe_error
from .verdicts import run_code
from .loader import import_error, load_module


@dataclass
class Deployments:
    """The deployments a project defines: name -> function, or the error that kept the file from loading."""

    path: Path | None = None
    functions: dict[str, Callable[..., Any]] = field(default_factory=dict)
    error: str | None = None

    @property
    def shown(self) -> str:
        return shown(self.path) if self.path is not None else "deployments.py"


# one load per file and version of it: (path, mtime, size) -> Deployments
_LOADED: dict[tuple[str, int, int], Deployments] = {}
_OF_PROJECT: "weakref.WeakKeyDictionary[Project, Deployments]" = weakref.WeakKeyDictionary()


def load_deployments(config: Config) -> Deployments:
    """The project's deployments file, imported once while it is unchanged; no file, no deployments."""
    path = config.deployments_file
    if path is None or not path.is_file():
        return Deployments()
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:
        _LOADED[key] = _load(path, config)
    return _LOADED[key]


def _load(path: Path, config: Config) -> Deployments:
    where = shown(path)
    try:
        module = load_module(path)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return Deployments(path, error=import_error(path, where, exc))
    functions: dict[str, Callable[..., Any]] = {
        name: obj
        for name, obj in vars(module).items()
        if inspect.isfunction(obj) and obj.__module__ == module.__name__ and not name.startswith("_")
    }
    return Deployments(path, functions)


def deployments_of(project: Project) -> Deployments:
    """The deployments of the project's config, checked against the names the project already gives."""
    if project in _OF_PROJECT:
        return _OF_PROJECT[project]
    found = load_deployments(project.config)
    taken = project.namespace()
    for name in found.functions:
        if name in taken:
            what = "a contract" if name not in ("accounts", "chain") else "what evmstate injects"
            raise MachineDefinitionError(
                f"{found.shown}: the deployment {name!r} has the name of {what} ({name}); "
                f"a machine asking for {name!r} could mean either. "
                f"Rename the function (e.g. {name}_deployed), and label what it deploys: Container.deploy(..., "
                f"{{'from': ..., 'label': {name!r}}})."
            )
    _OF_PROJECT[project] = found
    return found


class Resolver:
    """Gives parameters by name: the project's accounts, chain and contracts, and deployments, each run once."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.namespace = project.namespace()
        self.deployments = deployments_of(project) if self._has_file() else Deployments()
        self.made: dict[str, Any] = {}

    def _has_file(self) -> bool:
        path = self.project.config.deployments_file
        return path is not None and path.is_file()

    def known(self) -> list[str]:
        return [*self.namespace, *self.deployments.functions]

    def provide(self, names: Iterable[str], where: str, asking: tuple[str, ...] = ()) -> dict[str, Any]:
        kwargs = {}
        for name in names:
            if name in self.deployments.functions:
                kwargs[name] = self.deploy(name, (*asking, name))
            elif name in self.namespace:
                if isinstance(self.namespace[name], OnDemand):
                    self.namespace[name] = self.project.provide(name)
                if isinstance(self.namespace[name], Unavailable):
                    raise MachineDefinitionError(
                        f"{where}: cannot provide parameter {name!r}: {self.namespace[name].error}"
                    )
                kwargs[name] = self.namespace[name]
            else:
                raise MachineDefinitionError(self._unknown(name, where))
        return kwargs

    def _unknown(self, name: str, where: str) -> str:
        contracts_dir = self.project.config.contracts_dir
        if not contracts_dir.is_dir():
            return (
                f"{where}: cannot provide parameter {name!r}: there is no contracts folder at {shown(contracts_dir)}/ "
                f"(set [project] contracts in evmstate.toml). Available: {', '.join(self.known())}."
            )
        close = difflib.get_close_matches(name, self.known(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        if self.deployments.error is not None:
            hint += (
                f"\n{self.deployments.shown} defines the deployments, "
                f"but it cannot be imported:\n{self.deployments.error}"
            )
        elif self.deployments.path is None and not close:
            hint += f" A deployment is a function of {_file_name(self.project.config)} that returns what it deployed."
        return f"{where}: cannot provide parameter {name!r}. Available: {', '.join(self.known())}.{hint}"

    def deploy(self, name: str, asking: tuple[str, ...]) -> Any:
        if name in self.made:
            return self.made[name]
        if name in asking[:-1]:
            raise MachineDefinitionError(
                f"{self.deployments.shown}: the deployments {' -> '.join(asking)} ask for each "
                "other; one of them must not."
            )
        fn = self.deployments.functions[name]
        where = f"{self.deployments.shown}::{name}"
        kwargs = self.provide(inspect.signature(fn).parameters, where, asking)
        try:
            value = run_code(fn, **kwargs)
        except Exception as exc:
            error_type, message, _, tb = describe_error(exc)
            chain = f" (asked for by {' -> '.join(asking[:-1])})" if len(asking) > 1 else ""
            raise MachineDefinitionError(
                f"the deployment {where}{chain} raised {error_type}: {message}\nTraceback (user code):\n{tb.rstrip()}"
            ) from exc
        if isinstance(value, Contract):
            label_deployment(value, name)
        self.made[name] = value
        return value


def _file_name(config: Config) -> str:
    path = config.deployments_file
    return shown(path) if path is not None else "deployments.py"


def contracts_behind(names: Iterable[str], project: Project) -> list[str]:
    """The contracts named among names, and those the deployments named there ask for, directly or not
    (those that do not compile, and library modules not compiled yet, too)."""
    found = names_behind(names, project.config)
    return [n for n in found if n in project.artifacts or n in project.build.errors or n in project.on_demand]


def names_behind(names: Iterable[str], config: Config) -> list[str]:
    """names, and the names the deployments named there ask for, directly or not: what may be contracts, before
    compiling.
    """
    try:
        functions = load_deployments(config).functions
    except OSError:
        functions = {}
    found: list[str] = []
    todo = list(names)
    while todo:
        name = todo.pop(0)
        if name in found:
            continue
        found.append(name)
        if name in functions:
            todo.extend(inspect.signature(functions[name]).parameters)
    return found


def deployments_used(names: Iterable[str], config: Config) -> dict[str, str]:
    """{the deployments file as the project shows it: its sha256} when names, or what they ask for, hold a deployment;
    else {}.
    """
    try:
        found = load_deployments(config)
    except OSError:
        return {}
    if found.path is None or not any(n in found.functions for n in names_behind(names, config)):
        return {}
    try:
        root = config.root.resolve()
        shown_path = found.path.resolve().relative_to(root).as_posix()
    except ValueError:
        shown_path = str(found.path)
    try:
        return {shown_path: hashlib.sha256(found.path.read_bytes()).hexdigest()}
    except OSError:
        return {}


def deployments_file_error(config: Config) -> tuple[str, str] | None:
    """(shown path, error) when the deployments file exists and cannot be imported."""
    found = load_deployments(config)
    if found.error is None or found.path is None:
        return None
    return shown(found.path), found.error

