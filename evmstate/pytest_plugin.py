"""pytest plugin: Brownie's fixtures (accounts, chain, one per contract, state_machine), one per
function of deployments.py, and the machines folder collected as `evmstate run` runs it.

Registered through the pytest11 entry point and active wherever evmstate is installed, but
lazy: nothing is compiled or started until a test asks for one of its fixtures or a machine
runs, so suites that do not use it pay nothing. Disable it with `-p no:evmstate`.

Parity with `evmstate run`: the configured machines folder is collected by evmstate alone
(machines and @given property tests, never also by pytest's own collector), each item runs
through the same runner with the same settings and example database, and failures are saved
for `evmstate replay`. Every example of a @given test that uses these fixtures starts from the
same chain, as under `evmstate run`.
"""

from __future__ import annotations

import inspect
import types
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generator, Iterator

import pytest

# what every pytest process that has evmstate installed imports: nothing heavy (no Hypothesis, vyper, py-evm or
# eth-abi; tests/cli/test_startup.py checks it); the rest is imported where a fixture or a machine needs it
from . import config as config_mod
from .engine.events import Event, MachineFinished, StoreWarning
from .errors import EvmStateError, ResourceError
from .reports import result_text

if TYPE_CHECKING:
    from .contracts.project import Project
    from .engine.deployments import Resolver
    from .engine.discovery import Found, Item

_CONFIG = pytest.StashKey["config_mod.Config | None"]()
_PROJECT: pytest.StashKey[Project] = pytest.StashKey()
_FOUND: pytest.StashKey[Found] = pytest.StashKey()
_COLLECTED = pytest.StashKey["set[Path]"]()
_EXAMPLES = pytest.StashKey[Any]()


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("evmstate")
    group.addoption(
        "--only-stateful", action="store_true", default=False, help="evmstate: run only tests that use state_machine"
    )
    group.addoption(
        "--no-stateful", action="store_true", default=False, help="evmstate: skip tests that use state_machine"
    )


def _config(pytestconfig: Any) -> config_mod.Config:
    return config_mod.load(Path(str(pytestconfig.invocation_params.dir)))


def _project(pytestconfig: Any) -> Project:
    """One project per pytest session, shared by the fixtures and the machines folder's items."""
    if _PROJECT not in pytestconfig.stash:
        from .contracts.project import Project
        from .engine.database import check_database
        from .engine.settings import keep_hypothesis_storage

        cfg = _config(pytestconfig)
        check_database(cfg)  # a Redis server that does not answer: every test that needs the project errs, none fails
        keep_hypothesis_storage(cfg)
        pytestconfig.stash[_PROJECT] = Project(cfg)
    return pytestconfig.stash[_PROJECT]


def _told(event: Event) -> None:
    """What the runner tells a pytest run: a store that failed (a full disk, a Redis server that died), as a warning in
    pytest's summary."""
    if isinstance(event, StoreWarning):
        warnings.warn(f"evmstate: {event.message}", stacklevel=2)


def _saved(
    cfg: config_mod.Config, project: Project, item: Item, result: MachineFinished, settings: Any, seed: int | None,
    used: Any = (),
) -> MachineFinished:
    """The failure saved for `evmstate replay`; a folder that cannot be written is a warning, and the failure is
    reported all the same."""
    from .engine.records import save_failure

    try:
        return save_failure(cfg, project, item, result, settings, seed, used)
    except ResourceError as exc:
        _told(StoreWarning(str(exc)))
        return result


def _capture(config: Any) -> bool:
    """Whether evmstate keeps what machines print for the report (pytest -s passes it through)."""
    return config.getoption("capture", "fd") != "no"


def _container_fixture(name: str) -> Any:
    def container(evmstate_project: Project) -> Any:
        from .contracts.project import Unavailable

        value = evmstate_project.provide(name)
        if value is None:
            pytest.fail(f"evmstate: the project has no contract {name!r} any more", pytrace=False)
        if isinstance(value, Unavailable):
            pytest.fail(str(value.error), pytrace=False)
        return value

    container.__name__ = name
    # session-scoped (the container never changes) so @given tests may use it; the chain
    # is still reverted around every test by _evmstate_isolation
    return pytest.fixture(name=name, scope="session")(container)


def _containers(names: list[str]) -> types.ModuleType:
    """A plugin holding one fixture per contract, named after its source's stem; nothing is compiled yet."""
    module = types.ModuleType("evmstate_containers")
    for name in names:
        setattr(module, name, _container_fixture(name))
    return module


def _deployment_fixture(name: str) -> Any:
    def deployment(_evmstate_deployments: Resolver) -> Any:
        try:
            return _evmstate_deployments.deploy(name, (name,))
        except EvmStateError as e:
            error = str(e)
        pytest.fail(error, pytrace=False)  # outside the except: the message alone, not the chain of exceptions

    deployment.__name__ = name
    # deployed inside the test's own chain, which is put back after it, as under `evmstate run`
    # each machine and test gets its own: a fixture per test, not per session
    return pytest.fixture(name=name)(deployment)


def _deployments(names: list[str]) -> types.ModuleType:
    """A plugin holding one fixture per function of deployments.py, named after it; nothing is deployed yet."""
    module = types.ModuleType("evmstate_deployments")
    for name in names:
        setattr(module, name, _deployment_fixture(name))
    return module


_SEED = pytest.StashKey[int]()


def _session_seed(config: Any) -> int:
    """One seed for the session's machines folder, as `evmstate run` has one per run."""
    if _SEED not in config.stash:
        from .engine.settings import Overrides, run_seed

        config.stash[_SEED] = run_seed(_project(config).config.hypothesis, Overrides())
    return config.stash[_SEED]


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    if _SEED in config.stash:
        terminalreporter.write_line(
            f"evmstate seed: {config.stash[_SEED]} (seed = {config.stash[_SEED]} under [hypothesis] in evmstate.toml "
            "reruns it)"
        )


def pytest_configure(config: Any) -> None:
    if config.getoption("only_stateful", False) and config.getoption("no_stateful", False):
        raise pytest.UsageError("--only-stateful and --no-stateful exclude each other")
    # in an evmstate project, Hypothesis's caches (which its plugin fills while collecting)
    # go to .evmstate/hypothesis, not .hypothesis/
    cfg = _machines_config(config)
    if cfg is not None:
        from .engine.settings import keep_hypothesis_storage

        keep_hypothesis_storage(cfg)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: Any) -> None:
    # after the fixture manager exists, so that it reads the fixtures of this plugin object
    try:
        cfg = config_mod.load(Path(str(session.config.invocation_params.dir)))
    except EvmStateError:
        return  # reported when a fixture is used
    deployments_file = cfg.deployments_file
    if cfg.path is None and not cfg.contracts_dir.is_dir() and not (deployments_file and deployments_file.is_file()):
        return  # no evmstate project here (no evmstate.toml, no contracts folder, no deployments): no fixtures to make
    from .compiler.build import names as contract_names
    from .engine.deployments import load_deployments

    # library modules (known from imports, or from the build cache) get no fixture
    try:
        names = contract_names(cfg)
    except EvmStateError:
        return  # reported when a fixture is used
    if names and not session.config.pluginmanager.has_plugin("evmstate-containers"):
        session.config.pluginmanager.register(_containers(names), "evmstate-containers")
    deployments = [n for n in load_deployments(cfg).functions if n not in names and n not in _OURS]
    if deployments and not session.config.pluginmanager.has_plugin("evmstate-deployments"):
        session.config.pluginmanager.register(_deployments(deployments), "evmstate-deployments")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    only, none = config.getoption("only_stateful"), config.getoption("no_stateful")
    if not (only or none):
        return
    keep: list[Any] = []
    drop: list[Any] = []
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
        return _project(pytestconfig)
    except EvmStateError as e:
        pytest.fail(str(e), pytrace=False)


_OURS = {"accounts", "chain", "state_machine", "evmstate_project", "evmstate_machine"}


def _uses_evmstate(request: Any) -> bool:
    names = set(request.fixturenames)
    ours = names & _OURS
    for plugin in ("evmstate-containers", "evmstate-deployments"):
        fixtures = request.config.pluginmanager.get_plugin(plugin)
        if fixtures is not None:
            ours |= names & set(vars(fixtures))
    return any(_resolves_to_ours(request, name) for name in ours)


def _resolves_to_ours(request: Any, name: str) -> bool:
    """Whether the fixture a test gets for name is evmstate's. A suite's own fixture of that name (a Brownie-style
    `accounts` in its conftest) overrides evmstate's, and a test that uses only such fixtures loads no project: it
    compiles nothing and its chain is not reset, unless the override asks for evmstate's fixture of the same name."""
    info = getattr(request.node, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.get(name) if info is not None else None
    if not definitions:
        return True  # not known how pytest resolves it: taken as evmstate's, as before
    for definition in reversed(definitions):
        if getattr(definition.func, "__module__", None) == __name__:
            return True
        if name not in definition.argnames:
            return False  # overridden by a fixture that does not ask for evmstate's
    return False


@pytest.fixture(autouse=True)
def _evmstate_isolation(request: Any) -> Iterator[None]:
    """Each test that uses evmstate starts from, and leaves behind, the chain as it was."""
    if not _uses_evmstate(request):
        yield
        return
    project = request.getfixturevalue("evmstate_project")
    project.backend.reset_time_limit()  # a timeout in an earlier test says nothing about this one
    fn = request.function
    with project.backend.anchor():
        if getattr(getattr(fn, "hypothesis", None), "inner_test", None) is None:
            yield
            return
        # a @given test: every example starts from the chain as the fixtures left it
        from .engine.property_run import isolate_examples

        with isolate_examples(fn, project.backend, request.fixturenames) as log:
            request.node.stash[_EXAMPLES] = log
            yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Generator[None, Any, None]:  # pluggy sends the report's outcome
    outcome = yield
    report = outcome.get_result()
    log = item.stash.get(_EXAMPLES, None)
    if call.when != "call" or not report.failed or log is None or log.failing is None or call.excinfo is None:
        return
    note = _save_test_failure(item, call.excinfo.value, log)
    if note:
        report.sections.append(("evmstate", note))


def _save_test_failure(item: Any, exc: BaseException, log: Any) -> str | None:
    """Save a failing @given test's example for `evmstate replay`, when evmstate alone can replay it."""
    project = item.config.stash.get(_PROJECT, None)
    fn = getattr(item, "function", None)
    if (
        project is None
        or fn is None
        or getattr(item, "cls", None) is not None
        or getattr(item, "callspec", None) is not None
    ):
        return None
    from .engine.deployments import load_deployments
    from .engine.discovery import Item
    from .engine.property_run import property_failure
    from .engine.settings import Overrides, build_settings
    from .engine.verdicts import is_mistake

    if is_mistake(exc):
        return (
            "not saved for replay: an error in the test itself (see verdicts in docs/machines.md), not a failure of "
            "the contract"
        )
    cfg = project.config
    # @given hides the parameters it draws: what is left are fixtures (evmstate replay provides its own, deployments
    # too)
    deployments = load_deployments(cfg).functions
    needed = [n for n in inspect.signature(fn).parameters if n not in project.namespace() and n not in deployments]
    if needed:
        return (
            f"not saved for replay: it uses pytest fixtures ({', '.join(needed)}) that `evmstate replay` cannot provide"
        )
    path = _relative(Path(str(item.path)), cfg.root)
    failure = property_failure(fn.__name__, path, exc, log, [])
    result = MachineFinished(
        name=fn.__name__, kind="test", path=path, status="failed", examples=log.examples, steps=log.examples,
        elapsed=0.0, failure=failure,
    )
    settings, seed = build_settings(cfg.hypothesis, {}, Overrides(), fn.__name__)
    saved = _saved(cfg, project, Item("test", path, fn.__name__, fn), result, settings, seed)
    return f"replay with: evmstate replay {saved.failure_id}" if saved.failure_id else None


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


@pytest.fixture()
def _evmstate_deployments(evmstate_project: Project, _evmstate_isolation: None) -> Resolver:
    """The test's deployments: each runs once, however many of its fixtures ask for it, on the test's own chain."""
    from .engine.deployments import Resolver

    try:
        return Resolver(evmstate_project)
    except EvmStateError as e:
        error = str(e)
    pytest.fail(error, pytrace=False)


@pytest.fixture(scope="session")
def accounts(evmstate_project: Project) -> Any:
    """The funded accounts."""
    return evmstate_project.accounts


@pytest.fixture(scope="session")
def chain(evmstate_project: Project) -> Any:
    """The chain: time(), sleep(), mine(), height, snapshots."""
    return evmstate_project.chain


@pytest.fixture()
def evmstate_machine(evmstate_project: Project, _evmstate_isolation: None) -> Iterator[Any]:
    """evmstate_machine(path, name): the machine `name` of the module at path, set up, its rules run by hand.

    What `evmstate export --pytest` writes uses.
    """
    from .export.driver import driven

    with driven(evmstate_project) as machine:
        yield machine


@pytest.fixture()
def state_machine(evmstate_project: Project, request: Any) -> Any:
    """state_machine(MachineClass, *args, settings=None): run a machine, Brownie's way."""
    from .engine.discovery import Item
    from .engine.item import database_for
    from .engine.machine_run import run_machine
    from .engine.settings import Overrides, build_settings
    from .spec.machine import collect

    project = evmstate_project
    cfg = project.config

    def run(machine_cls: type, *args: Any, settings: dict[str, Any] | None = None) -> None:
        spec = collect(machine_cls)
        where = f"{request.node.nodeid}::{spec.name}"
        merged = {**spec.settings, **(settings or {})}
        hyp_settings, seed = build_settings(cfg.hypothesis, merged, Overrides(), spec.name)
        path = _relative(Path(str(request.node.path)), cfg.root)
        with project.watching() as used:
            result = run_machine(
                spec,
                project,
                hyp_settings,
                seed,
                _told,
                path,
                database=database_for(cfg, where, lambda message: _told(StoreWarning(message))),
                init_args=args,
                capture=_capture(request.config),
            )
        if result.status == "error":
            # an error, not a falsified property: nothing is saved (pytest can only fail the test that called this)
            pytest.fail(
                f"error in {spec.name} (not a failure of the contract):\n{result.error or 'machine error'}",
                pytrace=False,
            )
        if result.failure is not None:
            result = _saved(
                cfg, project, Item("machine", path, spec.name, machine_cls), result, hyp_settings, seed, used
            )
            pytest.fail(result_text(result), pytrace=False)

    return run


# -- the machines folder, collected as `evmstate run` runs it ----------------------------------


def _machines_config(config: Any) -> "config_mod.Config | None":
    """The project's config when pytest runs inside an evmstate project (one with evmstate.toml)."""
    if _CONFIG not in config.stash:
        try:
            cfg = _config(config)
        except EvmStateError:
            cfg = None
        config.stash[_CONFIG] = cfg if cfg is not None and cfg.path is not None else None
    return config.stash[_CONFIG]


def _in_machines(config: Any, path: Path) -> bool:
    cfg = _machines_config(config)
    if cfg is None or path.suffix != ".py" or path.name.startswith("_") or path.name == "conftest.py":
        return False
    return path.resolve().is_relative_to(cfg.machines_dir.resolve())


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: Any) -> Any:
    # pytest's own collector would also take test_*.py here: the machines folder is evmstate's
    if _in_machines(parent.config, module_path):
        parent.config.stash.setdefault(_COLLECTED, set()).add(module_path)
        return MachinesFile.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(trylast=True)
def pytest_collect_file(file_path: Path, parent: Any) -> Any:
    if _in_machines(parent.config, file_path) and file_path not in parent.config.stash.setdefault(_COLLECTED, set()):
        parent.config.stash[_COLLECTED].add(file_path)
        return MachinesFile.from_parent(parent, path=file_path)
    return None


class MachinesFile(pytest.File):
    """A file of the machines folder: its machines and property tests, as `evmstate run` finds them."""

    def collect(self) -> Iterator[Any]:
        cfg = _machines_config(self.config)
        assert cfg is not None
        if _FOUND not in self.config.stash:
            from .engine.discovery import discover

            # the whole folder at once, as `evmstate run` sees it (a base class in one file, its machine in another)
            self.config.stash[_FOUND] = discover(cfg)
        found = self.config.stash[_FOUND]
        shown = _relative(self.path, cfg.root)
        for error in found.errors:
            if error.path == shown:
                raise self.CollectError(error.message)
        for item in found.items:
            if item.path == shown:
                yield MachineItem.from_parent(self, name=item.name, item=item)


class MachineError(Exception):
    """Raised when a machine or property test of the machines folder fails or errs; its text is the report."""


class MachineItem(pytest.Item):
    """One machine or property test, run by evmstate's runner with the settings `evmstate run` uses."""

    def __init__(self, *, item: "Item", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.item = item
        self.result: MachineFinished | None = None  # how the machine or test ran (in setup)

    def setup(self) -> None:
        from .engine.item import RunRequest, run_item
        from .engine.native import own_loop
        from .engine.settings import Overrides, build_settings
        from .spec.machine import collect

        # a machine that cannot run as written is an error (as under `evmstate run`), not a failure
        if self.item.kind == "machine":
            try:
                spec = collect(self.item.obj)
                build_settings(_project(self.config).config.hypothesis, spec.settings, Overrides(), spec.name)
            except EvmStateError as e:
                raise MachineError(str(e)) from None
        else:
            try:
                _project(self.config)
            except EvmStateError as e:
                raise MachineError(str(e)) from None
        # run here, so that a machine that ends as an error (its own mistake, a limit of evmstate)
        # is one under pytest too, and only a falsified property fails the test
        project = _project(self.config)
        self.result = run_item(
            project.config, project, self.item,
            RunRequest(
                seed=_session_seed(self.config), capture=_capture(self.config), native=own_loop(project.config)
            ),
            _told,
        )
        if self.result.status == "error":
            raise MachineError(self.result.error or "error")

    def runtest(self) -> None:
        if self.result is not None and self.result.failure is not None:
            raise MachineError(result_text(self.result))

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, MachineError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.item.id
