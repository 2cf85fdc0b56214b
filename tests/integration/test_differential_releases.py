"""Differential runs across vyper releases, on code evmstate did not write: vyper's own ERC4626 and ERC20
examples as vyper 0.3.10 shipped them against the vyper team's port of them to 0.4.3
(tests/projects/erc4626_port, sources:), and the port compiled by two 0.4 releases (compiler:).

Installs vyper 0.3.10 and 0.4.1 from the package index (once, into a folder kept between runs): the network tier.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run, with_differential

from ..conftest import BUILDS, PINNED, SEARCH_ONLY, install_release, interprocess_lock, release_folder

pytestmark = pytest.mark.network

PORT = Path(__file__).parent.parent / "projects" / "erc4626_port"


# the port's build cache (both sides of every run: the 0.3.10 examples, the port by 0.4.1 and 0.4.3) kept between runs
KEPT = "kept-erc4626-port"


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One copy of the port for the module, so that its builds are compiled once; a test that edits a source puts it back.

    Its build cache starts from the one the last run of the module left (BUILDS/KEPT), and what it holds after the
    module is kept for the next: the builds are keyed on content, settings and release, so a run compiles only what
    changed.
    """
    cache = release_folder()
    for version in ("0.3.10", PINNED):
        install_release(cache, version)
    root = tmp_path_factory.mktemp("differential-releases") / "port"
    shutil.copytree(PORT, root, ignore=shutil.ignore_patterns(".evmstate"))
    build, kept = root / ".evmstate" / "build", BUILDS / KEPT
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / f"{KEPT}.lock"):
        if kept.is_dir():
            shutil.copytree(kept, build)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVMSTATE_CACHE_DIR", str(cache))
        yield root
    with interprocess_lock(BUILDS / f"{KEPT}.lock"):
        if build.is_dir():
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(build, kept)


@contextlib.contextmanager
def edited(source: Path, old: str, new: str) -> Iterator[None]:
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new, 1))
    try:
        yield
    finally:
        source.write_text(text)


def ran(root: Path, mode: str, **overrides):
    config = with_differential(config_mod.load(root), mode)
    config = config.replace(differential=config.differential.__class__(mode=mode, gas=True), hypothesis=config.hypothesis.__class__(**{**config.hypothesis.__dict__, "phases": SEARCH_ONLY}))
    summary = run(config, RunOptions((), overrides=Overrides(seed=0, fresh=True, **overrides)), lambda e: None)
    (result,) = summary.results
    return summary, result


def test_the_0_3_10_example_and_its_0_4_3_port_behave_alike(port):
    summary, result = ran(port, "sources:contracts_0310:", max_examples=5, stateful_step_count=15)
    assert summary.exit_code == 0, result.failure or result.error
    notes = result.differential
    assert notes["labels"] == ["old (contracts_0310/)", "new (contracts/)"]
    assert not notes["apart"]
    # every call ran on both builds: the 0.3.10 build and the 0.4.3 one each used gas of their own
    calls, on_a, on_b = notes["gas"]["ERC4626.deposit"]
    assert calls > 0 and on_a > 0 and on_b > 0 and notes["gas"]["ERC20.deploy"][1] != notes["gas"]["ERC20.deploy"][2]


def test_a_port_that_rounds_differently_is_caught(port):
    floor, ceiling = "    return assetAmount * totalSupply // totalAssets", "    return (assetAmount * totalSupply + totalAssets - 1) // totalAssets"
    with edited(port / "contracts" / "ERC4626.vy", floor, ceiling):
        summary, result = ran(port, "sources:contracts_0310:", max_examples=30, stateful_step_count=15)
    assert summary.exit_code == 1 and result.failure.error_type == "BuildsDiverged", result.error
    assert result.failure.revert_reason.startswith("ERC4626.") and "build B (new (contracts/)) diverged from build A (old (contracts_0310/))" in result.failure.message


def test_the_port_compiled_by_two_0_4_releases(port):
    summary, result = ran(port, f"compiler:{PINNED},0.4.3", max_examples=3, stateful_step_count=15)
    assert summary.exit_code == 0, result.failure or result.error
    assert result.differential["labels"] == [f"vyper {PINNED}", "vyper 0.4.3"]


def test_a_source_whose_pin_refuses_a_release_is_an_error_of_that_contract(port):
    with edited(port / "contracts" / "ERC4626.vy", "#pragma version >0.3.10", "#pragma version ==0.4.3"):
        summary, result = ran(port, f"compiler:{PINNED},0.4.3", max_examples=3)
    assert summary.exit_code == 2 and result.status == "error"
    assert f"its version pin (==0.4.3) refuses vyper {PINNED}" in result.error
    assert "compare a port with sources:OLD:NEW instead" in result.error
