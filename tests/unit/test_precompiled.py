"""Reading build artifacts and a 0.3 storage layout: which format a file is, and which functions are getters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evmstate.compiler import legacy_outputs, precompiled

VIEW = {"type": "function", "stateMutability": "view", "inputs": [], "outputs": [{"name": "", "type": "address"}]}


def _fn(name: str, inputs: int = 0, out: str = "uint256") -> dict:
    return {**VIEW, "name": name, "inputs": [{"name": f"k{i}", "type": "address"} for i in range(inputs)], "outputs": [{"name": "", "type": out}]}


def test_getters_come_from_the_layout_whatever_shape_the_release_writes_it_in():
    abi = [_fn("owner", out="address"), _fn("bal", 1), _fn("thing", out="address"), _fn("mode"), _fn("totalAssets")]
    # 0.3.7 and later: {"storage_layout": ..., "code_layout": ...}; the type of an interface or enum is its name
    layout = {"storage_layout": {"owner": {"type": "address", "slot": 1}, "bal": {"type": "HashMap[address, uint256]", "slot": 2}, "thing": {"type": "IThing", "slot": 3}, "mode": {"type": "Mode", "slot": 4}}, "code_layout": {}}
    assert legacy_outputs.getters(layout, abi) == {
        "owner": {"slot": 1, "type": "address"},
        "bal": {"slot": 2, "type": "HashMap[address, uint256]"},
        "thing": {"slot": 3, "type": "address"},
        "mode": {"slot": 4, "type": "uint256"},
    }
    # 0.2.16 to 0.3.3: flat, with a location, and a HashMap's type written twice over by 0.2.16 to 0.3.1
    flat = {"bal": {"type": "HashMap[address, uint256][address, uint256]", "location": "storage", "slot": 2}, "owner": {"type": "address", "location": "code", "slot": 0}}
    assert legacy_outputs.getters(flat, abi) == {"bal": {"slot": 2, "type": "HashMap[address, uint256]"}}


def test_each_format_is_told_apart(tmp_path: Path):
    abi = [_fn("owner", out="address")]
    files = {
        "foundry.json": {"abi": abi, "bytecode": {"object": "0x6001"}, "deployedBytecode": {"object": "0x01"}},
        "ape.json": {"contractName": "Ape", "abi": abi, "deploymentBytecode": {"bytecode": "0x6002"}, "runtimeBytecode": {"bytecode": "0x02"}},
        "manifest.json": {"manifest": "ethpm/3", "contractTypes": {"One": {"abi": abi, "deploymentBytecode": {"bytecode": "0x6003"}}, "Two": {"abi": abi}}},
        "brownie.json": {"contractName": "Brownie", "abi": abi, "bytecode": "6004", "deployedBytecode": "04"},
        "hardhat.json": {"_format": "hh-sol-artifact-1", "contractName": "Hard", "abi": abi, "bytecode": "0x6005", "deployedBytecode": "0x05"},
        "combined.json": {"contracts/Pool.vy": {"abi": abi, "bytecode": "0x6006", "bytecode_runtime": "0x06", "layout": {"storage_layout": {"owner": {"type": "address", "slot": 0}}}, "source_map": {"error_map": {"7": "safesub"}}}, "version": "0.3.10+commit.91361694"},
        "iface.json": abi,
    }
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data))
    (tmp_path / "Pair.abi").write_text(json.dumps(abi))
    (tmp_path / "Pair.bin").write_text("6007\n")
    (tmp_path / "build-info").mkdir()
    (tmp_path / "build-info" / "solc.json").write_text("{}")  # Foundry's compiler input: skipped
    found, unread, inputs = precompiled.load(tmp_path)
    shown = {d["name"]: (d["origin"], d["bytecode"], d["bytecode_runtime"]) for d in found}
    assert shown == {
        "foundry": ("Foundry", "6001", "01"),
        "Ape": ("ape", "6002", "02"),
        "One": ("ape (ethPM manifest)", "6003", ""),
        "Two": ("ape (ethPM manifest)", "", ""),
        "Brownie": ("Brownie", "6004", "04"),
        "Hard": ("Hardhat", "6005", "05"),
        "Pool": ("vyper combined_json", "6006", "06"),
        "iface": ("ABI only (.json)", "", ""),
        "Pair": (".abi + .bin", "6007", ""),
    }
    pool = next(d for d in found if d["name"] == "Pool")
    assert pool["getters"] == {"owner": {"slot": 0, "type": "address"}} and pool["error_map"] == {"7": "safesub"}
    assert unread == {} and str(tmp_path / "Pair.bin") in inputs and not any("build-info" in p for p in inputs)


@pytest.mark.parametrize(
    "data, why",
    [
        ("not json", "it is not JSON"),
        ({"hello": 1}, "it is not an artifact evmstate reads"),
        ({"abi": {}, "bytecode": "0x00"}, "its ABI is not a JSON ABI"),
        ({"abi": [], "bytecode": "0xzz"}, "its deploy code is not hex"),
        ({"abi": [], "bytecode": {"object": "0x60__$1234$__"}}, "unlinked library placeholders"),
    ],
)
def test_what_cannot_be_read_says_why(tmp_path: Path, data: object, why: str):
    (tmp_path / "Bad.json").write_text(data if isinstance(data, str) else json.dumps(data))
    found, unread, _ = precompiled.load(tmp_path)
    assert found == [] and why in unread["Bad"][1], unread
