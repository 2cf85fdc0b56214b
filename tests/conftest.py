"""Shared fixtures: a compiled copy of the test contracts and a derandomized Hypothesis profile."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, settings

try:
    import fcntl
except ImportError:  # Windows: workers may then install a release twice, each into a folder of its own
    fcntl = None  # type: ignore[assignment]

from evmstate import Project, releases
from evmstate.config import Config, ProjectConfig
from evmstate.errors import CompileError

HERE = Path(__file__).parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"

pytest_plugins = ["pytester"]
# projects the tests run evmstate on; the moccasin ones hold titanoboa tests of their own
collect_ignore = ["projects", "quality/super_mint"]

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


@pytest.fixture(scope="session")
def contracts_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder holding the test contracts, with its own build cache."""
    root = tmp_path_factory.mktemp("contracts-project")
    shutil.copytree(HERE / "contracts", root / "contracts")
    return root


@pytest.fixture(scope="session")
def tokens_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of tokens whose events share a signature, a blueprint factory and a permit checker."""
    root = tmp_path_factory.mktemp("tokens-project")
    shutil.copytree(HERE / "projects" / "tokens", root, dirs_exist_ok=True)
    return root


@pytest.fixture()
def tokens(tokens_root: Path) -> Project:
    """A fresh chain over the tokens project (compiled once per session through the cache)."""
    return Project(Config(root=tokens_root, project=ProjectConfig(contracts="contracts")))


@pytest.fixture()
def project(contracts_root: Path) -> Project:
    """A fresh chain over the test contracts (compiled once per session through the cache)."""
    return Project(Config(root=contracts_root, project=ProjectConfig(contracts="contracts")))


# The bundled project's build cache, compiled once per test process and shared by every run of
# the suite (the cache is keyed on content and root-relative paths, so a copy of the project
# finds it). None until first asked for.
_WARM: Path | None = None


def warm_build() -> Path:
    """The bundled project compiled into a build cache outside the repository; what copies of it start from."""
    global _WARM
    if _WARM is None:
        from evmstate import config as config_mod
        from evmstate.compiler import compile_project

        (contracts, _), settings = config_mod.load(REPO).compile_inputs()
        build = Path(tempfile.gettempdir()) / f"evmstate-tests-{os.getuid() if hasattr(os, 'getuid') else 0}" / "build"
        compile_project(contracts, build, **settings)  # a cache hit when nothing changed since the last run
        _WARM = build
    return _WARM


def copy_example(dest: Path, *, warm: bool = True) -> Path:
    """A copy of the bundled example project (contracts, machines, evmstate.toml) in dest.

    warm: with the build cache of the bundled contracts, so that the copy compiles nothing it
    does not change; a test of compiling itself asks for a cold copy.
    """
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, dest / name)
    shutil.copy(REPO / "evmstate.toml", dest / "evmstate.toml")
    if warm:
        shutil.copytree(warm_build(), dest / ".evmstate" / "build")
    return dest


# a release other than the installed one, and the one moccasin's course projects pin
PINNED = "0.4.1"


@pytest.fixture(scope="session")
def release_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding vyper PINNED, installed from the package index by evmstate."""
    cache = tmp_path_factory.mktemp("evmstate-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVMSTATE_CACHE_DIR", str(cache))
        try:
            version, folder = releases.install(releases.pin_of(f"# pragma version {PINNED}\n"), Path("Pinned.vy"))
        except CompileError as e:
            if "the index could not be reached" in str(e) or "the index listed no vyper release" in str(e):
                pytest.skip(f"the package index cannot be reached (or holds no vyper), so vyper {PINNED} cannot be installed: {e}")
            raise
    assert (version, folder) == (PINNED, cache / "vyper" / PINNED)
    return cache


# the vyper 0.3.x releases the legacy project pins (tests/projects/legacy): Curve's pools pin the
# first, Yearn V3's vault the second (which declares Python < 3.11, and runs on it)
LEGACY_RELEASES = ("0.3.10", "0.3.7")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on path, held while inside: one worker of a test run at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def install_release(cache: Path, version: str) -> None:
    """Install vyper version into cache (evmstate's layout) from the package index, once per test run.

    Workers of one run share the folder: the first to get the lock installs, the others find it
    there. Skips, with pip's words, only when the index cannot be reached.
    """
    with _locked(cache / f".lock-{version}"), pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVMSTATE_CACHE_DIR", str(cache))
        if version in releases.cached():
            return
        try:
            releases.install(releases.pin_of(f"# @version {version}\n"), Path(f"v{version}.vy"))
        except CompileError as e:
            if "the index could not be reached" in str(e) or "the index listed no vyper release" in str(e):
                pytest.skip(f"the package index cannot be reached (or holds no vyper), so vyper {version} cannot be installed: {e}")
            raise


@pytest.fixture(scope="session")
def legacy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding LEGACY_RELEASES, installed from the package index once per test run (shared by xdist's workers)."""
    base = tmp_path_factory.getbasetemp()
    cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "evmstate-legacy-releases"
    for version in LEGACY_RELEASES:
        install_release(cache, version)
    return cache


LEGACY = HERE / "projects" / "legacy"


@pytest.fixture(scope="session")
def legacy_build(legacy_cache: Path) -> Path:
    """The build cache of the legacy project (tests/projects/legacy), compiled once per test run; copies of the project start from it."""
    shared = legacy_cache.parent / "evmstate-legacy-build"
    with _locked(shared.with_suffix(".lock")), pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVMSTATE_CACHE_DIR", str(legacy_cache))
        if not (shared / "done").exists():
            from evmstate import config as config_mod
            from evmstate.compiler import compile_project

            shutil.rmtree(shared, ignore_errors=True)
            shutil.copytree(LEGACY, shared / "project", ignore=shutil.ignore_patterns(".evmstate"))
            (contracts, build), settings = config_mod.load(shared / "project").compile_inputs()
            compiled = compile_project(contracts, build, **settings)
            assert not compiled.errors, compiled.errors
            (shared / "done").write_text("")
    return shared / "project" / ".evmstate" / "build"


@pytest.fixture()
def legacy(tmp_path: Path, legacy_cache: Path, legacy_build: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the legacy project, its build cache warm and its releases where evmstate looks; the current folder."""
    root = tmp_path / "legacy"
    shutil.copytree(LEGACY, root, ignore=shutil.ignore_patterns(".evmstate"))
    shutil.copytree(legacy_build, root / ".evmstate" / "build")
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(legacy_cache))
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return root


@pytest.fixture()
def cache(release_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVMSTATE_CACHE_DIR", str(release_cache))
    return release_cache
