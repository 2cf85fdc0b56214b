"""Contracts compiled elsewhere, loaded from their build artifacts: a 0.4 router under test trades with a 0.3.10 pool read from each format."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evmstate import Project, config, reverts
from evmstate.compiler.sources import compile_project
from evmstate.errors import CompileError, ConfigError, ContractError, TransactionReverted

from ..cli.helpers import invoke
from ..conftest import BUILDS, LEGACY, interprocess_lock

ROUTER = """# pragma version ~=0.4.3
from ethereum.ercs import IERC20

interface Pool:
    def exchange(i: int128, j: int128, dx: uint256, min_dy: uint256) -> uint256: nonpayable
    def coins(i: uint256) -> address: view


@external
def swap(pool: address, i: int128, j: int128, dx: uint256, min_dy: uint256) -> uint256:
    coin_in: address = staticcall Pool(pool).coins(convert(i, uint256))
    coin_out: address = staticcall Pool(pool).coins(convert(j, uint256))
    assert extcall IERC20(coin_in).transferFrom(msg.sender, self, dx)
    assert extcall IERC20(coin_in).approve(pool, dx)
    dy: uint256 = extcall Pool(pool).exchange(i, j, dx, min_dy)
    assert extcall IERC20(coin_out).transfer(msg.sender, dy)
    return dy
"""

# a plain 0.4 ERC20 with mint: what the pool holds
COIN = """# pragma version ~=0.4.3
event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

event Approval:
    owner: indexed(address)
    spender: indexed(address)
    value: uint256

decimals: public(uint8)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__():
    self.decimals = 18


@external
def mint(receiver: address, amount: uint256):
    self.balanceOf[receiver] += amount
    log Transfer(sender=empty(address), receiver=receiver, value=amount)


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self.balanceOf[msg.sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=msg.sender, receiver=receiver, value=amount)
    return True


@external
def transferFrom(sender: address, receiver: address, amount: uint256) -> bool:
    self.allowance[sender][msg.sender] -= amount
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=sender, receiver=receiver, value=amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, value=amount)
    return True
"""


def _combined_json(cache: Path) -> dict:
    """vyper 0.3.10's own `-f combined_json` of the legacy project's pool.

    Kept beside the compiled projects (BUILDS) for every test process and run, as they are: vyper is run again when the
    project's sources, the command or the release's install (its dist-info's RECORD) differs from what the kept output
    was made of. The output names the pool by the path it was given, which is the same in every run.
    """
    contracts = LEGACY / "contracts"
    release = cache / "vyper" / "0.3.10"
    script = (
        "import sys; sys.path[:0] = [sys.argv[1]]; sys.argv[1:2] = []\n"
        "from vyper.cli.vyper_compile import _parse_cli_args; _parse_cli_args()"
    )
    command = [sys.executable, "-I", "-S", "-c", script, str(release), "-f", "combined_json", "-p", str(contracts), str(contracts / "Pool.vy")]
    made_of = hashlib.sha256(
        json.dumps([command, *(p.read_text() for p in sorted(contracts.rglob("*")) if p.is_file()), *(p.read_text() for p in sorted(release.glob("vyper-*.dist-info/RECORD")))]).encode()
    ).hexdigest()[:16]
    kept = BUILDS / f"pool-0.3.10-combined-{made_of}.json"
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(BUILDS / "pool-0.3.10-combined.lock"):
        if not kept.is_file():
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            json.loads(done.stdout)  # only a whole output is kept
            partial = kept.with_suffix(".partial")
            partial.write_text(done.stdout)
            partial.replace(kept)
    return json.loads(kept.read_text())


def _formats(combined: dict) -> dict[str, dict[str, str]]:
    """The pool as each tool writes its build artifact: file name -> text."""
    (source, out), = ((k, v) for k, v in combined.items() if k != "version")
    abi, code, runtime = out["abi"], out["bytecode"], out["bytecode_runtime"]
    ape_type = {"contractName": "Pool", "sourceId": "Pool.vy", "abi": abi, "deploymentBytecode": {"bytecode": code}, "runtimeBytecode": {"bytecode": runtime}}
    return {
        "vyper combined_json": {"pool.json": json.dumps(combined)},
        "Foundry": {"Pool.vy/Pool.json": json.dumps({"abi": abi, "bytecode": {"object": code, "sourceMap": "", "linkReferences": {}}, "deployedBytecode": {"object": runtime, "sourceMap": "", "linkReferences": {}}, "methodIdentifiers": out["method_identifiers"]})},
        "ape": {"Pool.json": json.dumps(ape_type)},
        "ape (ethPM manifest)": {"__local__.json": json.dumps({"manifest": "ethpm/3", "contractTypes": {"Pool": ape_type}, "sources": {}})},
        "Brownie": {"contracts/Pool.json": json.dumps({"contractName": "Pool", "abi": abi, "bytecode": code[2:], "deployedBytecode": runtime[2:], "language": "Vyper", "type": "contract", "sourcePath": source})},
        "Hardhat": {"Pool.json": json.dumps({"_format": "hh-vyper-artifact-1", "contractName": "Pool", "abi": abi, "bytecode": code, "deployedBytecode": runtime, "linkReferences": {}, "deployedLinkReferences": {}})},
        ".abi + .bin": {"Pool.abi": json.dumps(abi), "Pool.bin": code[2:] + "\n"},
    }


@pytest.fixture(scope="module")
def router_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The router and the coin, compiled once (the installed vyper): copies start from this build cache."""
    root = tmp_path_factory.mktemp("router")
    (root / "contracts").mkdir()
    (root / "contracts" / "Router.vy").write_text(ROUTER)
    (root / "contracts" / "Coin.vy").write_text(COIN)
    build = compile_project(root / "contracts", root / ".evmstate" / "build")
    assert not build.errors, build.errors
    return root


def _router_project(base: Path, dest: Path, files: dict[str, str]) -> Path:
    shutil.copytree(base, dest)
    for name, text in files.items():
        (dest / "artifacts" / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / "artifacts" / name).write_text(text)
    (dest / "evmstate.toml").write_text('[project]\ncontracts = "contracts"\n')
    return dest


@pytest.mark.network
def test_a_04_router_trades_with_a_0310_pool_from_each_artifact_format(legacy_cache: Path, router_build: Path, tmp_path: Path):
    combined = _combined_json(legacy_cache)
    assert combined["version"].startswith("0.3.10")
    for kind, files in _formats(combined).items():
        root = _router_project(router_build, tmp_path / re.sub(r"\W+", "_", kind), files)
        p = Project(config.load(root))
        assert p.artifacts["Pool"].origin == kind and p.build.compiled == [], kind
        a = p.accounts
        coins = [p.Coin.deploy() for _ in range(2)]
        pool = p.Pool.deploy(coins, 4 * 10**6)
        router = p.Router.deploy()
        for coin in coins:
            coin.mint(a[0], 10**6)
            coin.approve(pool, 10**6)
            coin.approve(router, 10**6)
        pool.add_liquidity([1000, 1000], 0)
        assert pool.balanceOf(a[0]) == 2000, kind  # a getter (from the combined_json's layout) or a call
        receipt = router.swap(pool, 0, 1, 100, 0)
        assert receipt.return_value == 100 - 100 * 4 * 10**6 // 10**10, kind
        # the pool's event, decoded from the artifact's ABI
        assert dict(receipt.events["TokenExchange"]) == {"buyer": router.address, "sold_id": 0, "tokens_sold": 100, "bought_id": 1, "tokens_bought": 100}, kind
        # the pool's revert reason, through the router's line; the pool itself has no source lines
        with pytest.raises(TransactionReverted) as caught:
            router.swap(pool, 0, 1, 100, 101)
        err = caught.value
        assert err.reason == "Exchange resulted in fewer coins than expected", kind
        assert str(err).splitlines() == [
            "Router.swap reverted: 'Exchange resulted in fewer coins than expected'",
            f"  called from {root / 'contracts' / 'Router.vy'}:15: dy: uint256 = extcall Pool(pool).exchange(i, j, dx, min_dy)",
        ], kind
        with reverts("Exchange resulted in fewer coins than expected"):
            router.swap(pool, 0, 1, 100, 101)
        # a reasonless revert: its kind where the artifact carries vyper's error map (combined_json)
        with pytest.raises(TransactionReverted) as caught:
            pool.exchange(0, 1, 10**5, 0)
        assert str(caught.value) == ("Pool.exchange reverted: underflow (safesub)" if kind == "vyper combined_json" else "Pool.exchange reverted: no reason given"), kind
        again = p.Pool.at(pool.address, label="curve")
        assert again.balances(1) == 1000 - receipt.return_value and repr(again) == f"<curve {pool.address}>"
        if kind in ("vyper combined_json", "ape"):  # said once, in a run's output and by evmstate compile
            _said_once(root, kind)


def _said_once(root: Path, kind: str) -> None:
    import os

    here = os.getcwd()
    os.chdir(root)
    try:
        code, out = invoke("compile")
    finally:
        os.chdir(here)
    assert code == 0, out
    assert out.count("no source line") == 1, out
    assert "precompiled: Pool (artifacts/" in out and f", {kind}): read from build artifacts, with no source map" in out, out
    assert "  precompiled  " in out, out


def test_what_is_not_an_artifact_is_an_error_for_whoever_asks_for_it(router_build: Path, tmp_path: Path):
    root = _router_project(router_build, tmp_path / "p", {
        "notes.json": json.dumps({"hello": "world"}),
        "Linked.json": json.dumps({"abi": [], "bytecode": {"object": "0x6080__$abcdef$__00"}, "deployedBytecode": {"object": "0x"}}),
        "IThing.json": json.dumps([{"type": "function", "name": "poke", "stateMutability": "view", "inputs": [], "outputs": [{"name": "", "type": "uint256"}]}]),
        "Coin.json": json.dumps({"abi": [], "bytecode": "0x00", "deployedBytecode": "0x00", "contractName": "Coin"}),
    })
    p = Project(config.load(root))
    assert p.build.artifacts["Router"].origin == "" and "Coin" not in p.build.artifacts
    with pytest.raises(CompileError, match=r"artifacts/notes.json: it is not an artifact evmstate reads \(Foundry, ape, Brownie, Hardhat"):
        p["notes"]
    with pytest.raises(CompileError, match="unlinked library placeholders"):
        p["Linked"]
    with pytest.raises(CompileError, match=r"two contracts are named 'Coin': .*contracts/Coin.vy and .*artifacts/Coin.json"):
        p["Coin"]
    # an ABI alone is an interface: attached to an address, never deployed
    router = p.Router.deploy()
    with pytest.raises(ContractError, match=r"IThing has no deploy code \(ABI only \(.json\): .*IThing.json\); attach it to a deployed contract with IThing.at\(address\)"):
        p.IThing.deploy()
    assert p.IThing.at(router).poke.is_view


def test_a_folder_the_settings_name_must_exist_and_artifacts_alone_make_a_project(router_build: Path, tmp_path: Path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "evmstate.toml").write_text('[project]\nartifacts = "out"\n')
    with pytest.raises(ConfigError, match=r"\[project\] artifacts: 'out' is not a folder"):
        config.load(root).artifacts_dir
    (root / "out").mkdir()
    (root / "out" / "Coin.json").write_text(json.dumps({"abi": [], "bytecode": "0x00", "deployedBytecode": "0x"}))
    config.load(root).check_sources()  # no .vy source, and no error: the artifacts are the contracts
    build = Project(config.load(root)).build
    assert list(build.artifacts) == ["Coin"] and build.inputs == {"out/Coin.json": build.artifacts["Coin"].source_hash}
