"""Contracts compiled elsewhere, read from their build artifacts as plain data in Artifact.to_dict's form.

Read from the project's artifacts folder (`[project] artifacts`, `artifacts/` by default), every
file below it:

- a Foundry artifact (`out/Pool.vy/Pool.json`: `abi`, `bytecode.object`, `deployedBytecode.object`),
- an ape contract type (`abi`, `deploymentBytecode.bytecode`, `runtimeBytecode.bytecode`) or an
  ape/ethPM package manifest holding several (`contractTypes`, as ape's `.build/__local__.json`),
- a Brownie or Hardhat build file (`abi`, `bytecode`, `deployedBytecode` as hex strings),
- vyper's `-f combined_json` output (one entry per source: `abi`, `bytecode`, `bytecode_runtime`,
  `layout`), whose storage layout gives the public getters as a compiled source's does,
- `Name.abi` (a JSON ABI) with `Name.bin` (the deploy code in hex; `Name.bin-runtime` optional),
  and a JSON ABI alone: an interface, to attach to an address.

No source map comes with any of these: a precompiled contract's reverts give their reason and
its custom errors and events are decoded from its ABI, but no source line, and it has no coverage.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from . import legacy_outputs

# folders of build output that hold no contract artifacts of their own (Foundry's solc inputs, caches)
_SKIPPED = {"build-info", "cache", ".evmstate"}
_HEX = re.compile(r"^(0x)?[0-9a-fA-F]*$")


class ArtifactError(ValueError):
    """Raised when an artifact file cannot be read as one of the formats above."""


def find(folder: Path) -> list[Path]:
    """The artifact files below folder, sorted: every .json and .abi file outside build-info/ and caches."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        if (
            path.suffix in (".json", ".abi")
            and path.is_file()
            and not (_SKIPPED & set(path.relative_to(folder).parts[:-1]))
        ):
            found.append(path)
    return found


def _code(value: Any, what: str) -> bytes:
    """Bytecode from an artifact's hex string ("0x..." or bare hex); unlinked library placeholders refused."""
    if value is None:
        return b""
    if not isinstance(value, str):
        raise ArtifactError(f"{what} is not a hex string")
    text = "".join(value.split())
    if "__" in text or "$" in text:
        raise ArtifactError(
            f"{what} has unlinked library placeholders: link the libraries before evmstate can deploy it"
        )
    if not _HEX.match(text) or len(text.removeprefix("0x")) % 2:
        raise ArtifactError(f"{what} is not hex")
    return bytes.fromhex(text.removeprefix("0x"))


def _abi(value: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise ArtifactError(f"{what} is not a JSON ABI (a list of entries)")
    return value


def _entry(name: str, path: Path, kind: str, abi: Any, code: Any, runtime: Any, layout: Any = None) -> dict[str, Any]:
    """One contract, in Artifact.to_dict's form (less the fields the compiler fills in)."""
    abi = _abi(abi, f"{kind} artifact {name!r}: its ABI")
    layout = layout if isinstance(layout, dict) else {}
    return {
        "name": name,
        "path": str(path),
        "abi": abi,
        "bytecode": _code(code, f"{kind} artifact {name!r}: its deploy code").hex(),
        "bytecode_runtime": _code(runtime, f"{kind} artifact {name!r}: its runtime code").hex(),
        "pc_pos": {},
        "error_map": {},
        "layout": layout,
        "deploy_pc_pos": {},
        "deploy_error_map": {},
        "pc_source": {},
        "deploy_pc_source": {},
        "sources": {},
        "getters": legacy_outputs.getters(layout, abi) if layout else {},
        "error_signatures": [],
        "origin": kind,
    }


def _combined(path: Path, data: dict[str, Any]) -> list[dict[str, Any]]:
    """vyper -f combined_json: {"contracts/Pool.vy": {...}, ..., "version": "..."}."""
    found = []
    legacy = str(data.get("version", "")).startswith(("0.2.", "0.3."))
    for source, out in data.items():
        if source == "version" or not isinstance(out, dict):
            continue
        entry = _entry(
            Path(source).stem, path, "vyper combined_json", out.get("abi"), out.get("bytecode"),
            out.get("bytecode_runtime"), out.get("layout"),
        )
        # the runtime code's checks name a reasonless revert's kind ("safesub") without its source
        smap = out.get("source_map_runtime") or (out.get("source_map") if legacy else None)
        if isinstance(smap, dict) and isinstance(smap.get("error_map"), dict):
            entry["error_map"] = {str(k): v for k, v in smap["error_map"].items() if isinstance(v, str)}
        found.append(entry)
    return found


def _ape_type(name: str, path: Path, data: dict[str, Any], kind: str) -> dict[str, Any]:
    deploy = data.get("deploymentBytecode") or {}
    runtime = data.get("runtimeBytecode") or {}
    return _entry(
        data.get("contractName") or name, path, kind, data.get("abi"), deploy.get("bytecode"), runtime.get("bytecode")
    )


def read(path: Path) -> list[dict[str, Any]]:
    """The contracts one artifact file holds; raises ArtifactError when it is none of the formats evmstate reads."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ArtifactError(f"it is not JSON: {e}") from None
    if path.suffix == ".abi" or isinstance(data, list):
        return [_pair(path, data)]
    if not isinstance(data, dict):
        raise ArtifactError("it is neither a JSON object nor an ABI")
    if isinstance(data.get("contractTypes"), dict):
        return [
            _ape_type(name, path, t, "ape (ethPM manifest)")
            for name, t in data["contractTypes"].items()
            if isinstance(t, dict)
        ]
    if "deploymentBytecode" in data or "runtimeBytecode" in data:
        return [_ape_type(path.stem, path, data, "ape")]
    if isinstance(data.get("bytecode"), dict):
        bytecode, deployed = data["bytecode"], data.get("deployedBytecode") or {}
        return [
            _entry(
                path.stem, path, "Foundry", data.get("abi"), bytecode.get("object"),
                deployed.get("object") if isinstance(deployed, dict) else None,
            )
        ]
    if "abi" in data and isinstance(data.get("bytecode"), str):
        kind = "Hardhat" if str(data.get("_format", "")).startswith("hh") else "Brownie"
        return [
            _entry(
                data.get("contractName") or path.stem, path, kind, data["abi"], data["bytecode"],
                data.get("deployedBytecode"),
            )
        ]
    if "abi" in data and "bytecode" not in data:
        return [_pair(path, data["abi"])]
    if any(isinstance(v, dict) and "bytecode" in v and "abi" in v for v in data.values()):
        return _combined(path, data)
    raise ArtifactError(
        "it is not an artifact evmstate reads (Foundry, ape, Brownie, Hardhat, vyper's combined_json, or an ABI with a "
        ".bin beside it)"
    )


def _pair(path: Path, abi: Any) -> dict[str, Any]:
    """A JSON ABI, with the deploy code of the .bin file beside it (and .bin-runtime) when there is one."""
    code = path.with_suffix(".bin")
    runtime = path.with_suffix(".bin-runtime")
    deploy = code.read_text(encoding="utf-8").strip() if code.is_file() else None
    deployed = runtime.read_text(encoding="utf-8").strip() if runtime.is_file() else None
    kind = f"{path.suffix} + .bin" if deploy is not None else f"ABI only ({path.suffix})"
    return _entry(path.stem, path, kind, abi, deploy, deployed)


def load(folder: Path) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str]], dict[str, str]]:
    """Every contract in the artifacts folder: (contracts, {file stem: (file, why it was not read)}, {file: sha256 of it
    and of its .bin files})."""
    contracts: list[dict[str, Any]] = []
    errors: dict[str, tuple[str, str]] = {}
    inputs: dict[str, str] = {}
    for path in find(folder):
        for part in (path, path.with_suffix(".bin"), path.with_suffix(".bin-runtime")):
            if part.is_file():
                inputs[str(part)] = hashlib.sha256(part.read_bytes()).hexdigest()
        try:
            found = read(path)
        except ArtifactError as e:
            errors[path.stem] = (str(path), str(e))
            continue
        for entry in found:
            entry["source_hash"] = inputs[str(path)]
        contracts.extend(found)
    return contracts, errors, inputs
