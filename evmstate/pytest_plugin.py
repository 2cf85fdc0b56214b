"""pytest plugin: Brownie's fixtures (accounts, chain, one per contract, state_machine).

Registered through the pytest11 entry point and active wherever evmstate is installed, but
lazy: nothing is compiled or started until a test asks for one of its fixtures, so suites
that do not use it pay nothing. Disable it with `-p no:evmstate`.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Iterator

import pytest

from . import config as config_mod
from .compiler import find_sources
from .discovery import Item
from .errors import EvmStateError
from .machine import collect
from .project import Project
from .runner import Overrides, build_settings, database_for, run_machine, save_failure


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("evmstate")
    group.addoption("--only-stateful", action="store_true", default=False, help="evmstate: run only tests that use state_machine")
    group.addoption("--no-stateful", action="store_true", default=False, help="evmstate: skip tests that use state_machine")


def _config(pytestconfig: Any) -> config_mod.Config:
    return config_mod.load(Path(str(pytestconfig.invocation_params.dir)))


def _container_fixture(name: str) -> Any:
    def container(evmstate_project: Project) -> Any:
        return evmstate_project.containers[name]

    container.__name__ = name
    # session-scoped (the container never changes) so @given tests may use it; the chain
    # is still reverted around every test by _evmstate_isolation
    return pytest.fixture(name=name, scope="session")(container)


def _containers(names: list[str]) -> types.ModuleType:
    """A plugin holding one fixture per contract source, named after its stem; nothing is compiled yet."""
    module = types.ModuleType("evmstate_containers")
    for name in names:
        setattr(module, name, _container_fixture(name))
    return module


def pytest_configure(config: Any) -> None:
    if config.getoption("only_stateful", False) and config.getoption("no_stateful", False):
        raise pytest.UsageError("--only-stateful and --no-stateful exclude each other")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: Any) -> None:
    # after the fixture manager exists, so that it reads the fixtures of this plugin object
    try:
        cfg = config_mod.load(Path(str(session.config.invocation_params.dir)))
    except EvmStateError:
        return  # reported when a fixture is used
    names = [p.stem for p in find_sources(cfg.contracts_dir)]
    if names and not session.config.pluginmanager.has_plugin("evmstate-containers"):
        session.config.pluginmanager.register(_containers(names), "evmstate-containers")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    only, none = config.getoption("only_stateful"), config.getoption("no_stateful")
    if not (only or none):
        return
    keep, drop = [], []
    for item in items:
        stateful = "state_machine" in getattr(item, "fixturenames", ())
        (keep if stateful == bool(only) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def evmstate_project(pytestconfig: Any) -> Project:
    """The project under the folder pytest was started in: contracts compiled, chain started."""
    try:
        return Project(_config(pytestconfig))
    except EvmStateError as e:
        pytest.fail(str(e), pytrace=False)


_OURS = {"accounts", "chain", "state_machine", "evmstate_project"}


@pytest.fixture(autouse=True)
def _evmstate_isolation(request: Any) -> Iterator[None]:
    """Each test that uses evmstate starts from, and leaves behind, the chain as it was."""
    names = set(request.fixturenames)
    containers = request.config.pluginmanager.get_plugin("evmstate-containers")
    if not (names & _OURS or (containers is not None and names & set(vars(containers)))):
        yield
        return
    project = request.getfixturevalue("evmstate_project")
    project.backend.reset_time_limit()  # a timeout in an earlier test says nothing about this one
    with project.backend.anchor():
        yield


@pytest.fixture(scope="session")
def accounts(evmstate_project: Project) -> Any:
    """The funded accounts."""
    return evmstate_project.accounts


@pytest.fixture(scope="session")
def chain(evmstate_project: Project) -> Any:
    """The chain: time(), sleep(), mine(), height, snapshots."""
    return evmstate_project.chain


@pytest.fixture()
def state_machine(evmstate_project: Project, request: Any) -> Any:
    """state_machine(MachineClass, *args, settings=None): run a machine, Brownie's way."""
    project = evmstate_project
    cfg = project.config

    def run(machine_cls: type, *args: Any, settings: dict[str, Any] | None = None) -> None:
        spec = collect(machine_cls)
        where = f"{request.node.nodeid}::{spec.name}"
        merged = {**spec.settings, **(settings or {})}
        hyp_settings, seed = build_settings(cfg.hypothesis, merged, Overrides(), spec.name)
        path = str(Path(str(request.node.fspath)).resolve())
        try:
            path = str(Path(path).relative_to(cfg.root))
        except ValueError:
            pass
        result = run_machine(spec, project, hyp_settings, seed, lambda e: None, path, database=database_for(cfg, where), init_args=args)
        if result.status == "error":
            pytest.fail(result.error or "machine error", pytrace=False)
        if result.failure is not None:
            from .reports import result_text

            result = save_failure(cfg, project, Item("machine", path, spec.name, machine_cls), result, hyp_settings, seed)
            pytest.fail(result_text(result), pytrace=False)

    return run
