"""The only module that imports vyper: compiles sources and caches artifacts on disk."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import vyper
from vyper.compiler.input_bundle import FilesystemInputBundle
from vyper.compiler.settings import OptimizationLevel, Settings
from vyper.exceptions import VyperException

from .errors import CompileError

VYPER_VERSION: str = vyper.__version__
OUTPUTS = ("abi", "bytecode", "bytecode_runtime", "source_map_runtime", "layout")
CACHE_FORMAT = 1


@dataclass(frozen=True)
class Artifact:
    """One compiled contract: ABI, code, runtime source positions and storage layout."""

    name: str
    path: str
    source_hash: str
    abi: list[dict[str, Any]]
    bytecode: bytes
    bytecode_runtime: bytes
    # runtime pc -> (line, col, end_line, end_col) from vyper's source map
    pc_pos: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    # runtime pc -> vyper's description of a compiler-inserted check
    error_map: dict[int, str] = field(default_factory=dict)
    layout: dict[str, Any] = field(default_factory=dict)

    def source_line(self, pc: int) -> tuple[int, str] | None:
        """The (line number, text) of the source line that produced runtime pc, when known."""
        # vyper maps the instruction after a REVERT more often than the REVERT itself
        pos = self.pc_pos.get(pc) or self.pc_pos.get(pc + 1)
        if not pos or pos[0] is None or pos[0] < 1:
            return None
        try:
            lines = Path(self.path).read_text(encoding="utf-8").splitlines()
        except OSError:
            return None
        if pos[0] > len(lines):
            return None
        return pos[0], lines[pos[0] - 1].strip()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "source_hash": self.source_hash,
            "abi": self.abi,
            "bytecode": self.bytecode.hex(),
            "bytecode_runtime": self.bytecode_runtime.hex(),
            "pc_pos": {str(k): list(v) for k, v in self.pc_pos.items()},
            "error_map": {str(k): v for k, v in self.error_map.items()},
            "layout": self.layout,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Artifact":
        return cls(
            name=d["name"],
            path=d["path"],
            source_hash=d["source_hash"],
            abi=d["abi"],
            bytecode=bytes.fromhex(d["bytecode"]),
            bytecode_runtime=bytes.fromhex(d["bytecode_runtime"]),
            pc_pos={int(k): tuple(v) for k, v in d["pc_pos"].items()},
            error_map={int(k): v for k, v in d["error_map"].items()},
            layout=d.get("layout", {}),
        )


@dataclass
class CompileStats:
    """How many contracts a compile call built and how many it took from the cache."""

    compiled: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)


def _hex(code: str) -> bytes:
    return bytes.fromhex(code[2:] if code.startswith("0x") else code)


def _lineno(exc: VyperException) -> int | None:
    lineno = getattr(exc, "lineno", None)
    if lineno:
        return lineno
    for node in getattr(exc, "annotations", None) or ():
        if getattr(node, "lineno", None):
            return node.lineno
    return None


def _settings_key(evm_version: str, optimize: str) -> str:
    return f"vyper={VYPER_VERSION};evm={evm_version};opt={optimize};format={CACHE_FORMAT}"


def compile_source(path: Path, *, search_paths: list[Path], evm_version: str, optimize: str, source_hash: str) -> Artifact:
    """Compile one .vy file with vyper's Python API."""
    bundle = FilesystemInputBundle([*search_paths, Path(".")])
    settings = Settings(evm_version=evm_version, optimize=OptimizationLevel.from_string(optimize))
    try:
        file_input = bundle.load_file(path)
        out = vyper.compiler.compile_from_file_input(file_input, input_bundle=bundle, settings=settings, output_formats=list(OUTPUTS))
    except VyperException as e:
        lineno = _lineno(e)
        where = f"{path}:{lineno}" if lineno else str(path)
        raise CompileError(f"{where}: {type(e).__name__}: {str(e).strip()}", path=str(path), lineno=lineno) from None
    except Exception as e:  # vyper raises plain exceptions for some inputs (e.g. pragma conflicts)
        raise CompileError(f"{path}: {type(e).__name__}: {e}", path=str(path)) from None
    smap = out["source_map_runtime"]
    return Artifact(
        name=path.stem,
        path=str(path),
        source_hash=source_hash,
        abi=json.loads(json.dumps(out["abi"])),
        bytecode=_hex(out["bytecode"]),
        bytecode_runtime=_hex(out["bytecode_runtime"]),
        pc_pos={int(k): tuple(v) for k, v in smap.get("pc_pos_map", {}).items()},
        error_map={int(k): v for k, v in smap.get("error_map", {}).items()},
        layout=json.loads(json.dumps(out.get("layout", {}), default=str)),
    )


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def find_sources(contracts_dir: Path) -> list[Path]:
    """Every .vy file in the contracts folder and below it, sorted."""
    if not contracts_dir.is_dir():
        return []
    return sorted(p for p in contracts_dir.rglob("*.vy") if ".evmstate" not in p.parts)


def compile_project(
    contracts_dir: Path,
    build_dir: Path,
    *,
    evm_version: str = "prague",
    optimize: str = "gas",
    stats: CompileStats | None = None,
) -> dict[str, Artifact]:
    """Compile every .vy file under contracts_dir, taking unchanged ones from build_dir."""
    sources = find_sources(contracts_dir)
    names: dict[str, Path] = {}
    for p in sources:
        if p.stem in names:
            raise CompileError(
                f"{p}: a contract named {p.stem!r} already exists at {names[p.stem]}. "
                "Contracts are named after their file stem; rename one of them."
            )
        names[p.stem] = p
    texts = {p: p.read_bytes() for p in sources}
    # Any change to any source may change a contract that imports it, so every key
    # includes the hash of the whole folder as well as the file's own.
    folder = hashlib.sha256()
    for p in sources:
        folder.update(str(p.relative_to(contracts_dir)).encode() + b"\0" + texts[p] + b"\0")
    folder_hash = folder.hexdigest()
    settings_key = _settings_key(evm_version, optimize)
    artifacts: dict[str, Artifact] = {}
    for p in sources:
        source_hash = hashlib.sha256(texts[p]).hexdigest()
        key = hashlib.sha256(f"{source_hash}:{folder_hash}:{settings_key}".encode()).hexdigest()[:24]
        cache = build_dir / f"{p.stem}-{key}.json"
        artifact = None
        if cache.is_file():
            try:
                data = json.loads(cache.read_text(encoding="utf-8"))
                artifact = Artifact.from_dict(data)
            except (ValueError, KeyError, TypeError):
                artifact = None  # a damaged cache entry is rebuilt, never trusted
        if artifact is not None and artifact.path == str(p):
            if stats is not None:
                stats.cached.append(p.stem)
        else:
            artifact = compile_source(p, search_paths=[contracts_dir], evm_version=evm_version, optimize=optimize, source_hash=source_hash)
            _write_atomic(cache, json.dumps(artifact.to_dict()))
            for stale in build_dir.glob(f"{p.stem}-*.json"):
                if stale != cache:
                    stale.unlink(missing_ok=True)
            if stats is not None:
                stats.compiled.append(p.stem)
        artifacts[p.stem] = artifact
    return artifacts
