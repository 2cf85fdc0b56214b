"""Two projects in moccasin's layout run as they are: src/, moccasin.toml, snekmate installed under
lib/ as `mox install` puts it, deploy scripts and titanoboa tests of their own, no evmstate.toml.
The stablecoin's sources pin vyper 0.4.1 (`# pragma version 0.4.1`) and its moccasin.toml
snekmate 0.1.1, as the course project does: both come from the package index.

Beside their files they hold only what evmstate adds: machines/ (ported from their Hypothesis
tests) and deployments.py (their deploy scripts' deployments). The planted bugs must be found.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from ..conftest import PINNED, kept_build, pypi_package
from .helpers import invoke

PROJECTS = Path(__file__).resolve().parents[1] / "projects"
# pyrevm runs the same programs some ten times faster; without it they run on py-evm
BACKEND = "revm" if importlib.util.find_spec("pyrevm") is not None else "pyevm"


def installed_snekmate() -> Path:
    spec = importlib.util.find_spec("snekmate")
    assert spec is not None and spec.submodule_search_locations, "snekmate is a test dependency: pip install -e '.[test]'"
    return Path(list(spec.submodule_search_locations)[0])


def pypi_snekmate(lib: Path, version: str) -> None:
    """snekmate==version installed from the package index into lib, as `mox install` puts a PyPI dependency (installed once for every run: pypi_package)."""
    installed, said = pypi_package(f"snekmate=={version}")
    if installed is None:
        pytest.skip(f"snekmate {version} cannot be installed from the package index: {said.strip().splitlines()[-1:]}")
    shutil.copytree(installed, lib, dirs_exist_ok=True)


def project(name: str, tmp_path: Path, lib: str, snekmate: str | None = None) -> Path:
    """A copy of tests/projects/<name>, with snekmate (the installed one, or that release from the index) in lib/<lib> as `mox install` would."""
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root, ignore=shutil.ignore_patterns("lib", ".evmstate", "__pycache__"))
    if snekmate is None:
        shutil.copytree(installed_snekmate(), root / "lib" / lib / "snekmate", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        pypi_snekmate(root / "lib" / lib, snekmate)
    assert not (root / "evmstate.toml").exists()
    return root


def sources(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file() and ".evmstate" not in p.parts}


def run_project(name: str, tmp_path: Path, lib: str, monkeypatch: pytest.MonkeyPatch, snekmate: str | None = None) -> tuple[Path, dict[str, bytes], str]:
    """Copy the project, run evmstate in it (which finds a bug: exit 1), and return (root, its files before, the output)."""
    root = project(name, tmp_path, lib, snekmate)
    before = sources(root)
    monkeypatch.chdir(root)
    # its build kept for the next run of the suite (snekmate's copy is under the root: its paths are the root's)
    code, out = kept_build(root, f"kept-{name}-{lib.replace('/', '-')}", lambda: invoke("run", "--seed", "1", "--backend", BACKEND))
    assert code == 1, out
    assert out.splitlines()[0] == "settings: moccasin.toml (contracts in src/)"
    return root, before, out


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Path:
    return tmp_path


@pytest.mark.quality
def test_the_erc20_project_runs_as_it_is_and_its_three_bugs_are_found(here: Path, monkeypatch: pytest.MonkeyPatch):
    root, before, out = run_project("moccasin_erc20", here, "github/pcaversaccio/snekmate/src", monkeypatch)
    # the supply machine: super_mint credits a balance without minting
    assert "✗ [1/3] machines/supply.py::SupplyMachine" in out
    assert "Falsifying example (1 step):\nstate = SupplyMachine()\nstate.super_mint(minter=accounts[0])\n" in out
    # fast_transfer to oneself doubles the amount
    assert "✗ [2/3] machines/token_properties.py::test_fast_transfer_moves_exactly_the_amount" in out
    assert "test_fast_transfer_moves_exactly_the_amount(sender=accounts[0], receiver=accounts[0], amount=1)" in out
    # burn_for burns past the allowance
    assert "✗ [3/3] machines/token_properties.py::test_burn_for_needs_the_allowance" in out
    assert "token.burn_for(accounts[0], 1) succeeded where reverts() expected a revert" in out
    assert out.rstrip().endswith("0 passed, 3 failed")
    # the deployment's name labels the contract in traces
    assert "token.super_mint() {from: accounts[0]}" in out
    code, out = invoke("compile")
    assert code == 0, out
    assert "module erc20         lib/github/pcaversaccio/snekmate/src/snekmate/tokens/erc20.vy  imported by snek_token" in out
    # nothing of theirs changed; evmstate wrote only its own folder
    assert sources(root) == before


@pytest.mark.quality
@pytest.mark.network
def test_the_stablecoin_project_runs_as_it_is_and_the_price_crash_is_found_in_three_steps(here: Path, cache: Path, monkeypatch: pytest.MonkeyPatch):
    root, before, out = run_project("moccasin_stablecoin", here, "pypi", monkeypatch, snekmate="0.1.1")
    assert "Invariant StablecoinMachine.protocol_must_have_more_value_than_total_supply failed: AssertionError:" in out
    program = out.split("Falsifying example (3 steps):\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert program[0] == "state = StablecoinMachine()"
    assert [line.split("(", 1)[0] for line in program[1:]] == ["state.mint_and_deposit", "state.mint_dsc", "state.update_collateral_price"]
    assert program[3].endswith("new_price=0)")
    # two deployments of one mock, each shown by its deployment's name
    collateral = "weth" if "collateral_seed=0" in program[1] else "wbtc"
    feed = "eth_usd_price_feed" if collateral == "weth" else "btc_usd_price_feed"
    assert f"{collateral}.mint_amount(1) {{from: accounts[0]}}" in out
    assert f"{feed}.updateAnswer(0) {{from: accounts[0]}}" in out
    assert f"dsce.deposit_collateral(<{collateral} 0x" in out and "dsc.totalSupply() -> " in out
    assert "shrunk from " in out and " to 3 steps, minimal among programs that delete up to two steps" in out
    code, out = invoke("compile")
    assert "module erc20         lib/pypi/snekmate/tokens/erc20.vy  imported by decentralized_stable_coin, mock_token" in out
    # every source compiled with the release its pragma pins, from evmstate's cache of releases
    assert out.count(f"(vyper {PINNED}, as its pragma pins)") >= 4, out
    assert sources(root) == before
