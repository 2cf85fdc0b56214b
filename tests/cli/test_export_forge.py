"""The Foundry tests `evmstate export --foundry` writes, run by forge: each fails as the failure did, and passes once the bug is fixed.

forge comes from npm's @foundry-rs/forge (the binary ships in a platform package), forge-std from
npm's @layerzerolabs/toolbox-foundry (which ships forge-std 1.9 and ds-test), and the Solidity
compiler from npm's solc, run as forge runs a native one by tests/solc.js. `.ci/run` installs them
into .ci-forge and names it in $EVMSTATE_TEST_FORGE; otherwise they are installed once into the
tests' build folder, and without npm the test is skipped, saying why.

Depositer (an invariant: the views it read) and Sale (a revert) are deployed from the Vyper sources
forge compiles; BurnToken, built on snekmate's modules, which forge's Vyper support cannot compile
(it compiles every imported module on its own, and snekmate's erc20 `uses:` ownable), is compiled
by the vyper on PATH through vm.ffi (--compile-with vyper).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import BUILDS, HERE, REPO, copy_example, copy_project, interprocess_lock
from ..export_cases import FIXES, PROGRAMS, SNEKMATE_FIX, fix, pinned_record
from .helpers import invoke

pytestmark = pytest.mark.processes  # forge, and vyper under it, are processes

FORGE_ENV = "EVMSTATE_TEST_FORGE"
PACKAGES = ("@foundry-rs/forge", "solc", "@layerzerolabs/toolbox-foundry")


@dataclass(frozen=True)
class Forge:
    binary: Path
    solc: Path  # the folder of npm's solc package
    forge_std: Path


def forge_in(folder: Path) -> Forge | None:
    """forge, solc and forge-std as npm installed them under folder, if all are there."""
    modules = folder / "node_modules"
    binaries = [p for p in sorted(modules.glob("@foundry-rs/forge-*/bin/forge")) if os.access(p, os.X_OK)]
    forge_std = modules / "@layerzerolabs" / "toolbox-foundry" / "lib" / "forge-std"
    if not binaries or not (modules / "solc" / "package.json").is_file() or not (forge_std / "Test.sol").is_file():
        return None
    return Forge(binaries[0], modules / "solc", forge_std)


@pytest.fixture(scope="session")
def forge_tools() -> Forge:
    """forge and what it needs: $EVMSTATE_TEST_FORGE (.ci/run installs them there), else installed once into the tests' build folder."""
    given = os.environ.get(FORGE_ENV)
    if given:
        found = forge_in(Path(given))
        if found is None:
            pytest.fail(f"${FORGE_ENV} = {given}: npm did not install {', '.join(PACKAGES)} there")
        return found
    folder = BUILDS / "forge"
    found = forge_in(folder)
    if found is not None:
        return found
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip(
            f"the Foundry export tests need forge, solc and forge-std from npm ({', '.join(PACKAGES)}): npm is not installed (install Node.js, or set ${FORGE_ENV} to a folder where npm installed them)"
        )
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / "forge.lock"):
        if forge_in(folder) is None:
            folder.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                ["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--silent", *PACKAGES],
                check=True,
                capture_output=True,
                timeout=600,
            )
    found = forge_in(folder)
    assert found is not None, (
        f"npm installed {', '.join(PACKAGES)} into {folder}, but forge, solc or forge-std is not there"
    )
    return found


FOUNDRY_TOML = """[profile.default]
src = "src"
test = "test"
out = "out"
libs = ["lib"]
offline = true
ffi = true
solc = "{solc}"
ignored_warnings_from = ["lib"]
remappings = ["forge-std/=lib/forge-std/"]
"""


def forge_test(forge: Forge, root: Path) -> dict[str, str]:
    """Run forge test in root: each test's verdict line ([PASS] or [FAIL: reason]), by the test's name."""
    env = {
        **os.environ,
        "SOLCJS": str(forge.solc),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [str(forge.binary), "test", "--color", "never"], cwd=root, capture_output=True, text=True, env=env, timeout=600
    )
    verdicts = dict(
        (name, verdict) for verdict, name in re.findall(r"^(\[PASS\]|\[FAIL[^\n]*\]) (test_\w+)\(\)", done.stdout, re.M)
    )
    assert verdicts, done.stdout[-3000:] + done.stderr[-3000:]
    return verdicts


def test_foundry_exports_fail_as_evmstate_saw_and_pass_once_fixed(forge_tools, tmp_path, monkeypatch, cli_env):
    example = copy_example(tmp_path / "example")
    snekmate = copy_project(HERE / "projects" / "export_snekmate", tmp_path / "snekmate")
    # the forge project: kept between runs (forge caches what it compiled: forge-std, by solc, is most of it)
    foundry = BUILDS / "forge-project"
    with interprocess_lock(BUILDS / "forge-project.lock"):
        for folder in ("src", "test", "contracts"):
            shutil.rmtree(foundry / folder, ignore_errors=True)
            (foundry / folder).mkdir(parents=True)
        (foundry / "lib").mkdir(exist_ok=True)
        # a link kept from a run whose npm folder was elsewhere (a clone at another path) points nowhere now
        link = foundry / "lib" / "forge-std"
        if link.is_symlink() and link.resolve() != Path(forge_tools.forge_std).resolve():
            link.unlink()
        if not link.exists():
            link.symlink_to(forge_tools.forge_std)
        (foundry / "foundry.toml").write_text(FOUNDRY_TOML.format(solc=REPO / "tests" / "solc.js"))

        monkeypatch.chdir(example)
        failures = {}
        for (path, name), steps in PROGRAMS.items():
            if name in ("StateMachine", "SaleMachine"):
                failures[name] = pinned_record(example, path, name, steps)
                code, out = invoke("export", failures[name].id, "--foundry", str(foundry / "test"))
                assert code == 0, out
        for source in ("Depositer.vy", "Sale.vy"):
            shutil.copy(example / "contracts" / source, foundry / "src" / source)
        monkeypatch.chdir(snekmate)
        code, out = invoke(
            "run", "--seed", "1", "-q"
        )  # a search: snekmate's erc20 is found burning without an allowance
        assert code == 1, out
        code, out = invoke("export", "--last", "--foundry", str(foundry / "test"), "--compile-with", "vyper")
        assert code == 0, out
        shutil.copy(snekmate / "contracts" / "BurnToken.vy", foundry / "contracts" / "BurnToken.vy")

        verdicts = forge_test(forge_tools, foundry)
        depositer, sale = f"test_{failures['StateMachine'].id}", f"test_{failures['SaleMachine'].id}"
        (burn,) = set(verdicts) - {depositer, sale}
        assert (
            verdicts[depositer]
            == "[FAIL: invariant StateMachine.invariant failed: AssertionError: assert 0 == 1: the invariant's calls returned what they returned when it failed]"
        )
        assert verdicts[sale] == "[FAIL: quote below price]"  # the revert, with its data
        assert verdicts[burn] == (
            "[FAIL: AssertionError: BurnToken.burn_for(accounts[0], 1) succeeded where reverts() expected a revert: "
            "the last step's calls returned what they returned when it failed]"
        )

        fix(foundry, "src/Depositer.vy", FIXES["contracts/Depositer.vy"])
        fix(foundry, "src/Sale.vy", FIXES["contracts/Sale.vy"])
        fix(foundry, "contracts/BurnToken.vy", SNEKMATE_FIX)
        assert forge_test(forge_tools, foundry) == {depositer: "[PASS]", sale: "[PASS]", burn: "[PASS]"}
