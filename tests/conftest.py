"""Shared fixtures: a compiled copy of the test contracts and a derandomized Hypothesis profile."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

import pytest
from hypothesis import HealthCheck, settings

from evmstate import Project
from evmstate.compiler import releases
from evmstate.config import BackendConfig, Config, ProjectConfig
from evmstate.errors import CompileError

if TYPE_CHECKING:
    from tests.redis_server import RedisServer

HERE = Path(__file__).parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"

pytest_plugins = ["pytester"]
# projects the tests run evmstate on; the moccasin ones hold titanoboa tests of their own
collect_ignore = ["projects", "quality/super_mint"]


def _logging_held_across_fork() -> None:
    """A process forked from a test process (a Dask cluster's workers, the forked store writers) finds no logging
    stream locked for ever: before a fork, every handler's lock is taken, so that no other thread is inside a write.

    pytest logs to a file handler (os.devnull) and captures records on the root logger; a thread of the test process
    (a Dask scheduler's loop) writing a record while another thread forks left the stream's own lock held in the
    child, whose first record then waited for ever (a Dask worker hung so, and the suite with it). logging renews
    the handlers' locks in the child itself; the streams' locks it cannot.
    """
    held: list[logging.Handler] = []

    def before() -> None:
        loggers = [logging.getLogger(), *[lg for lg in list(logging.root.manager.loggerDict.values()) if isinstance(lg, logging.Logger)]]
        handlers = {id(h): h for lg in loggers for h in list(lg.handlers)}
        for h in sorted(handlers.values(), key=id):
            if h.lock is not None and h.lock.acquire(timeout=5):  # a thread stuck inside a handler is passed over
                held.append(h)

    def after_in_parent() -> None:
        while held:
            lock = held.pop().lock
            if lock is not None:
                lock.release()

    os.register_at_fork(before=before, after_in_parent=after_in_parent, after_in_child=held.clear)


_logging_held_across_fork()

settings.register_profile(
    "engine",
    derandomize=True,
    deadline=None,
    max_examples=25,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=False,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "engine"))


# The backends a test runs on: revm only where pyrevm is installed. pyrevm has wheels for CPython
# 3.10 to 3.12 and the project admits 3.13, where the revm cases are skipped, saying why (CI runs
# 3.11, where they run). CHECK is py-evm and revm in lockstep ([backend] check), so it needs pyrevm too.
needs_revm = pytest.mark.skipif(
    importlib.util.find_spec("pyrevm") is None,
    reason="pyrevm is not installed (it has wheels for CPython 3.10 to 3.12 only): pip install 'evmstate[revm]' on such a Python",
)
BACKENDS = ["pyevm", pytest.param("revm", marks=needs_revm)]
CHECK = pytest.param("check", marks=needs_revm)
# the cheaper backend for a test whose claim is not about py-evm: revm where pyrevm is installed
FASTEST = "revm" if importlib.util.find_spec("pyrevm") is not None else "pyevm"


def backend_config(name: str) -> BackendConfig:
    """The [backend] table of a BACKENDS or CHECK name."""
    return BackendConfig(name="pyevm", check=True) if name == "check" else BackendConfig(name=name)


# the test contracts' build folder in BUILDS: one for contracts_root and tests/integration/machine_runs.py, which
# compile the same sources with the same settings (the entries are the same; two folders compiled them twice)
TEST_CONTRACTS = "build-tests-contracts"


@pytest.fixture(scope="session")
def contracts_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder holding the test contracts, its build cache kept between runs (kept_build)."""
    root = tmp_path_factory.mktemp("contracts-project")
    shutil.copytree(HERE / "contracts", root / "contracts")
    kept_build(root, TEST_CONTRACTS, lambda: Project(Config(root=root, project=ProjectConfig(contracts="contracts"))))
    return root


@pytest.fixture(scope="session")
def tokens_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of tokens whose events share a signature, a blueprint factory and a permit checker."""
    return copy_project(HERE / "projects" / "tokens", tmp_path_factory.mktemp("tokens-project"))


@pytest.fixture()
def tokens(tokens_root: Path) -> Project:
    """A fresh chain over the tokens project (compiled once per session through the cache)."""
    return Project(Config(root=tokens_root, project=ProjectConfig(contracts="contracts")))


@pytest.fixture()
def project(contracts_root: Path) -> Project:
    """A fresh chain over the test contracts (compiled once per session through the cache)."""
    return Project(Config(root=contracts_root, project=ProjectConfig(contracts="contracts")))


# Compiled projects, shared by every test process and every run of the suite: the build cache is
# keyed on content and root-relative paths, so a copy of a project finds the builds of the
# original. One folder per project, compiled at most once per process (a lock keeps two
# processes from compiling the same sources at once).
BUILDS = Path(tempfile.gettempdir()) / f"evmstate-tests-{os.getuid() if hasattr(os, 'getuid') else 0}"
_WARM: dict[Path, Path] = {}


def interprocess_lock(path: Path) -> contextlib.AbstractContextManager:
    """A lock that processes share on the file path; none without filelock (.ci/floors installs no test extra)."""
    try:
        from filelock import FileLock
    except ImportError:
        return contextlib.nullcontext()
    return FileLock(str(path))


def warm_build(project: Path = REPO, *, clean: bool = False) -> Path:
    """The project (a folder holding evmstate.toml or moccasin.toml) compiled into a build cache outside the repository; what copies of it start from.

    clean: every source must compile (for a project no test expects an error of).
    """
    project = project.resolve()
    if project not in _WARM:
        from evmstate import config as config_mod
        from evmstate.compiler.sources import compile_project

        (contracts, _), settings = config_mod.load(project).compile_inputs()
        name = "build" if project == REPO else "build-" + project.relative_to(REPO).as_posix().replace("/", "-")
        build = BUILDS / name
        BUILDS.mkdir(parents=True, exist_ok=True)
        with interprocess_lock(BUILDS / f"{name}.lock"):
            compiled = compile_project(contracts, build, **settings)  # a cache hit when nothing changed since the last run
        assert not (clean and compiled.errors), compiled.errors
        _WARM[project] = build
    return _WARM[project]


T = TypeVar("T")


def kept_build(root: Path, name: str, load: Callable[[], T]) -> T:
    """load() (which compiles the project in root), with root's build cache kept in BUILDS/name for every test process and run.

    For a module's own copy of test contracts (a folder of its own, its settings its own): the
    build cache starts from what was kept, and what it holds after load() is kept for the next,
    under a lock that also keeps two processes from compiling the same sources at once. Entries
    are one file per source build, keyed on content, settings and root-relative paths; the build
    keeps the last few of each source, so the kept folder does not grow as sources or evmstate change.
    """
    build, kept = root / ".evmstate" / "build", BUILDS / name
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / f"{name}.lock"):
        if kept.is_dir():
            shutil.copytree(kept, build, dirs_exist_ok=True)
        loaded = load()
        if build.is_dir():
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(build, kept)
    return loaded


@contextlib.contextmanager
def kept_mutant_compiles(root: Path, name: str) -> Iterator[None]:
    """`evmstate mutate` in root with the mutants' compiles kept in BUILDS/name for every test process and run, as kept_build keeps builds.

    Only the compiled/ and build/ entries of root's mutation cache (keyed on the mutated text, every other file the
    contract compiles from and the compiler settings): every mutant is judged again each run, its baseline/ and
    verdict/ entries are never kept. For a test of judging; tests/integration/test_mutate.py compiles its mutants.
    """
    mutants, kept = root / ".evmstate" / "mutants", BUILDS / name
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / f"{name}.lock"):
        for kind in ("compiled", "build"):
            if (kept / kind).is_dir():
                shutil.copytree(kept / kind, mutants / kind, dirs_exist_ok=True)
    yield
    with interprocess_lock(BUILDS / f"{name}.lock"):
        for kind in ("compiled", "build"):
            if (mutants / kind).is_dir():
                shutil.rmtree(kept / kind, ignore_errors=True)
                shutil.copytree(mutants / kind, kept / kind)


@contextlib.contextmanager
def mutants_compiled_once(root: Path, name: str) -> Iterator[None]:
    """kept_mutant_compiles(root, name) with the whole of what runs inside held under a lock of its own: a test process
    that mutates the same contract at the same time (a module's tests split between workers, or another module on
    the same project) waits for it, then takes its compiles, so each mutant is compiled once per run of the suite.
    Verdicts are never kept: every mutant is judged again by each run.
    """
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / f"{name}-run.lock"), kept_mutant_compiles(root, name):
        yield


def used_entry(build: Path, name: str) -> Path:
    """The build cache's entry for contract name that the last load used.

    A kept or warm build holds the last few builds of each source (older evmstate versions,
    other settings, from earlier runs on the same machine); a load touches the entry it reads
    and writes the one it compiles, so the one it used is the most recently modified.
    """
    entries = sorted(build.glob(f"{name}-*.json"), key=lambda p: p.stat().st_mtime_ns)
    assert entries, f"no build cache entry for {name} in {build}"
    return entries[-1]


def copy_project(source: Path, dest: Path, *, warm: bool = True) -> Path:
    """A copy of the project in source (without its .evmstate folder) in dest, with its compiled build cache when warm."""
    shutil.copytree(source, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".evmstate", "__pycache__"))
    if warm:
        shutil.copytree(warm_build(source), dest / ".evmstate" / "build")
    return dest


def copy_example(dest: Path, *, warm: bool = True) -> Path:
    """A copy of the bundled example project (contracts, machines, evmstate.toml) in dest.

    warm: with the build cache of the bundled contracts, so that the copy compiles nothing it
    does not change; a test of compiling itself asks for a cold copy.
    """
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "evmstate.toml", dest / "evmstate.toml")
    if warm:
        shutil.copytree(warm_build(), dest / ".evmstate" / "build")
    return dest


# output as the tests pin it: without colour, and this wide
PLAIN = {"NO_COLOR": "1", "COLUMNS": "200"}


def plain_output(mp: pytest.MonkeyPatch) -> dict[str, str]:
    """PLAIN set through mp for this process (CliRunner, the library); the whole environment, for an evmstate subprocess."""
    for name, value in PLAIN.items():
        mp.setenv(name, value)
    return dict(os.environ)


@pytest.fixture()
def cli_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Plain output at a fixed width for this test (plain_output): set here, and returned as a subprocess's environment."""
    return plain_output(monkeypatch)


def evmstate_exe() -> str:
    """The installed evmstate command of the Python running the tests (the one beside it, else the first on PATH)."""
    found = shutil.which("evmstate", path=str(Path(sys.executable).parent)) or shutil.which("evmstate")
    if found is None:
        pytest.fail("the evmstate command is not installed: pip install -e '.[test]' installs it")
    return found


# Hypothesis's phases but shrinking: for tests whose point is a search, a comparison of searches or
# a report, not the shortest program (shrinking is most of the time of a run that finds bugs)
SEARCH_ONLY = ("explicit", "reuse", "generate", "target")


def without_shrinking(root: Path) -> Path:
    """The project in root (its evmstate.toml has a [hypothesis] table) with Hypothesis's shrink phase off."""
    toml = root / "evmstate.toml"
    text = toml.read_text()
    assert "[hypothesis]\n" in text, f"{toml} has no [hypothesis] table"
    toml.write_text(text.replace("[hypothesis]\n", f"[hypothesis]\nphases = {json.dumps(SEARCH_ONLY)}\n", 1))
    return root


# a release other than the installed one, and the one moccasin's course projects pin
PINNED = "0.4.1"


# Where the pinned releases are installed: set it to keep them in a folder of your choosing (CI can cache it)
RELEASES = "EVMSTATE_TEST_RELEASES"


def release_folder() -> Path:
    """Where the releases the tests pin are installed: $EVMSTATE_TEST_RELEASES, else a folder beside the compiled projects.

    Either is kept between runs and shared by every test process, as BUILDS is: a release is
    installed (under a lock) by the first run that needs it, and found there by the next. An install
    is complete or absent (evmstate renames it into place), and its compiled dependencies are built
    for one Python, so the folder is one per Python. The tests of installing itself install into
    folders of their own (tests/integration/test_pins.py).
    """
    if os.environ.get(RELEASES):
        cache = Path(os.environ[RELEASES]).resolve()
    else:
        cache = BUILDS / f"releases-{sys.implementation.cache_tag}"
    cache.mkdir(parents=True, exist_ok=True)
    return cache


def install_release(cache: Path, version: str) -> None:
    """Install vyper version into cache (evmstate's layout) from the package index, once: the first worker to hold the lock installs, the others find it there.

    Skips, with pip's words, only when the index cannot be reached.
    """
    with pytest.MonkeyPatch.context() as mp, interprocess_lock(cache.parent / f"{cache.name}-{version}.lock"):
        mp.setenv("EVMSTATE_CACHE_DIR", str(cache))
        if version in releases.cached():
            return
        try:
            installed = releases.install(releases.pin_of(f"# pragma version {version}\n"), Path(f"v{version}.vy"))
        except CompileError as e:
            if "the index could not be reached" in str(e) or "the index listed no vyper release" in str(e):
                pytest.skip(f"the package index cannot be reached (or holds no vyper), so vyper {version} cannot be installed: {e}")
            raise
    assert installed == (version, cache / "vyper" / version)


@pytest.fixture(scope="session")
def release_cache() -> Path:
    """A cache folder holding vyper PINNED, installed from the package index by evmstate where it is not yet (release_folder)."""
    cache = release_folder()
    install_release(cache, PINNED)
    return cache


def pypi_package(requirement: str) -> tuple[Path | None, str]:
    """A folder holding requirement (name==version) as `pip install --no-deps --target` puts it, installed from the package index once, and pip's output; None for the folder when pip failed.

    Kept beside the releases (release_folder) for every test process and run: the first to hold the
    lock installs, the others copy what it installed. An install is complete or absent (pip fills a
    folder of its own, renamed into place).
    """
    folder = release_folder() / "pypi" / requirement.replace("==", "-")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(folder.parent / f"{folder.name}.lock"):
        if folder.is_dir():
            return folder, ""
        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(partial), requirement], capture_output=True, text=True)
        if done.returncode:
            shutil.rmtree(partial, ignore_errors=True)
            return None, done.stdout + done.stderr
        partial.rename(folder)
    return folder, done.stdout + done.stderr


# the vyper 0.3.x releases the legacy project pins (tests/projects/legacy): Curve's pools pin the
# first, Yearn V3's vault the second (which declares Python < 3.11, and runs on it)
LEGACY_RELEASES = ("0.3.10", "0.3.7")


@pytest.fixture(scope="session")
def legacy_cache() -> Path:
    """A cache folder holding LEGACY_RELEASES, installed from the package index where they are not yet (release_folder)."""
    cache = release_folder()
    for version in LEGACY_RELEASES:
        install_release(cache, version)
    return cache


LEGACY = HERE / "projects" / "legacy"


@pytest.fixture(scope="session")
def legacy_build(legacy_cache: Path) -> Path:
    """The build cache of the legacy project (tests/projects/legacy), compiled with the releases it pins (warm_build); copies of the project start from it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVMSTATE_CACHE_DIR", str(legacy_cache))
        return warm_build(LEGACY, clean=True)


@pytest.fixture()
def legacy(tmp_path: Path, legacy_cache: Path, legacy_build: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Path:
    """A copy of the legacy project, its build cache warm and its releases where evmstate looks; the current folder."""
    root = tmp_path / "legacy"
    shutil.copytree(LEGACY, root, ignore=shutil.ignore_patterns(".evmstate"))
    shutil.copytree(legacy_build, root / ".evmstate" / "build")
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(legacy_cache))
    monkeypatch.chdir(root)
    return root


@pytest.fixture(scope="session")
def anvil_binary() -> Path:
    """anvil from npm's @foundry-rs/anvil: $EVMSTATE_TEST_ANVIL (.ci/run installs it there), else installed once into the tests' build folder."""
    from tests.fork.nodes import ANVIL_ENV, anvil_in, install_anvil

    given = os.environ.get(ANVIL_ENV)
    if given:
        path = Path(given)
        found = path if path.is_file() else anvil_in(path)
        if found is None:
            pytest.fail(f"${ANVIL_ENV} = {given}: neither an anvil binary nor a folder where npm installed @foundry-rs/anvil")
        return found
    folder = BUILDS / "anvil"
    found = anvil_in(folder)
    if found is not None:
        return found
    if shutil.which("npm") is None:
        pytest.skip(f"the fork tests need anvil, from npm's @foundry-rs/anvil: npm is not installed (install Node.js, or set ${ANVIL_ENV} to an anvil binary)")
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / "anvil.lock"):
        return install_anvil(folder)


@pytest.fixture()
def redis_server() -> Iterator["RedisServer"]:
    """A redis-server of the test's own (Debian's), on a free loopback port; skipped, saying why, where it is not installed."""
    from tests import redis_server as servers

    server = servers.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture()
def redis_url(redis_server: "RedisServer") -> str:
    """The URL of a redis-server of the test's own."""
    return redis_server.url


# -n auto: one worker more than the cores. Much of the suite waits rather than computes (an evmstate
# process starting, worker pools, fork nodes, Redis, a signal's effect awaited): a third worker on two
# cores runs while another waits (benchmarks/suite_time.py prints each module's idle time).
# PYTEST_XDIST_AUTO_NUM_WORKERS, pytest-xdist's own setting, still says how many.
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


# tests that ask for these fixtures are in the tiers their fixtures put them in
TIER_OF_FIXTURE = {"release_cache": "network", "legacy_cache": "network", "redis_server": "processes", "redis_url": "processes", "anvil_binary": "processes"}


# in-process tests that cost a second of CPU or more each (a whole project run, a docs page's
# commands, a compile of many contracts): the quick tier leaves them out, the whole suite runs them;
# one test id per line, as pytest names it, after the CPU seconds it cost when measured
# (`python benchmarks/suite_time.py --tier quick --slow tests/slow.txt` writes it)
SLOW = Path(__file__).parent / "slow.txt"


def slow_ids() -> set[str]:
    """The ids tests/slow.txt lists."""
    lines = SLOW.read_text(encoding="utf-8").splitlines() if SLOW.exists() else []
    return {line.split(None, 1)[1] for line in lines if line.strip() and not line.startswith("#")}


# what each test module cost when the whole suite was measured (`python benchmarks/suite_time.py --tier all --costs
# tests/costs.txt` writes it): the modules run costliest first, each module's tests in their order, so that the
# tests pytest-xdist hands out last are short ones and no worker waits on another's long test at the end
COSTS = Path(__file__).parent / "costs.txt"


def module_costs() -> dict[str, float]:
    """Each module's CPU seconds as tests/costs.txt gives them (a module it does not list costs nothing)."""
    lines = COSTS.read_text(encoding="utf-8").splitlines() if COSTS.exists() else []
    return {line.split(None, 1)[1]: float(line.split(None, 1)[0]) for line in lines if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    costs = module_costs()
    # a stable sort: the tests of one module stay together and in order (its module-scoped fixtures are set up once)
    items.sort(key=lambda item: -costs.get(item.nodeid.split("::", 1)[0], 0.0))
    slow = slow_ids()
    for item in items:
        for fixture, tier in TIER_OF_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(tier)
        if item.nodeid in slow:
            item.add_marker("slow")


@pytest.fixture()
def cache(release_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(release_cache))
    return release_cache
