"""The only module that imports vyper: compiles sources and caches artifacts on disk."""

from __future__ import annotations

import hashlib
import json
import os
import re
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
OUTPUTS = ("abi", "bytecode", "bytecode_runtime", "source_map", "source_map_runtime", "layout")
CACHE_FORMAT = 2
# method_id("Name(types)"): how Vyper code builds a custom error for raw_revert
_ERROR_SIGNATURE = re.compile(r"""method_id\(\s*(["'])([A-Za-z_]\w*\([^"']*\))\1""")


@dataclass(frozen=True)
class SourcePosition:
    """Where a pc comes from: the file, the line (1-based) and its text, the statement's last line."""

    path: str
    line: int
    text: str
    end_line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


@dataclass(frozen=True)
class Artifact:
    """One compiled contract: ABI, code, source positions of runtime and deploy code, storage layout."""

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
    # the same two maps for the deploy (constructor) code
    deploy_pc_pos: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    deploy_error_map: dict[int, str] = field(default_factory=dict)
    # pc -> index into sources, only for pcs whose code comes from an imported module
    pc_source: dict[int, int] = field(default_factory=dict)
    deploy_pc_source: dict[int, int] = field(default_factory=dict)
    sources: dict[int, str] = field(default_factory=dict)  # vyper's source id -> file
    # custom errors the sources build with method_id("Name(types)"), for decoding raw_revert data
    error_signatures: tuple[str, ...] = ()

    def position(self, pc: int, *, deploy: bool = False, walk_back: int = 0) -> SourcePosition | None:
        """The source line that produced pc, when known.

        walk_back lets a pc without a position take the nearest mapped pc up to that many
        bytes before it (vyper maps the instructions that compute a check, not always the jump).
        """
        pc_pos = self.deploy_pc_pos if deploy else self.pc_pos
        pos = None
        for at in (pc, *(range(pc - 1, max(pc - walk_back, 0) - 1, -1))):
            pos = pc_pos.get(at)
            if pos and pos[0] is not None and pos[0] >= 1:
                break
            pos = None
        if pos is None:
            return None
        source = (self.deploy_pc_source if deploy else self.pc_source).get(at)
        path = self.sources.get(source, self.path) if source is not None else self.path
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError:
            return None
        if pos[0] > len(lines):
            return None
        end = pos[2] if isinstance(pos[2], int) and pos[0] <= pos[2] <= len(lines) else pos[0]
        return SourcePosition(_shown_path(path), pos[0], lines[pos[0] - 1].strip(), end)

    def source_line(self, pc: int) -> tuple[int, str] | None:
        """The (line number, text) of the source line that produced runtime pc, when known."""
        # vyper maps the instruction after a REVERT more often than the REVERT itself
        found = self.position(pc) or self.position(pc + 1)
        return (found.line, found.text) if found else None

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
            "deploy_pc_pos": {str(k): list(v) for k, v in self.deploy_pc_pos.items()},
            "deploy_error_map": {str(k): v for k, v in self.deploy_error_map.items()},
            "pc_source": {str(k): v for k, v in self.pc_source.items()},
            "deploy_pc_source": {str(k): v for k, v in self.deploy_pc_source.items()},
            "sources": {str(k): v for k, v in self.sources.items()},
            "error_signatures": list(self.error_signatures),
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
            deploy_pc_pos={int(k): tuple(v) for k, v in d["deploy_pc_pos"].items()},
            deploy_error_map={int(k): v for k, v in d["deploy_error_map"].items()},
            pc_source={int(k): v for k, v in d["pc_source"].items()},
            deploy_pc_source={int(k): v for k, v in d["deploy_pc_source"].items()},
            sources={int(k): v for k, v in d["sources"].items()},
            error_signatures=tuple(d["error_signatures"]),
        )


def _shown_path(path: str) -> str:
    """path relative to the current folder when it is below it, as a user would type it."""
    p = Path(path)
    if p.is_absolute():
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            return path
    return path


def _source_maps(smap: dict[str, Any], main_source: int, limit: int | None = None) -> tuple[dict[int, Any], dict[int, str], dict[int, int]]:
    """(pc -> position, pc -> check description, pc -> source id of imported code) from one vyper source map.

    limit drops pcs at or past it.
    """
    keep = (lambda pc: pc < limit) if limit is not None else (lambda pc: True)
    pc_pos = {int(k): tuple(v) for k, v in smap.get("pc_pos_map", {}).items() if keep(int(k))}
    errors = {int(k): v for k, v in smap.get("error_map", {}).items() if keep(int(k))}
    sources = {int(k): v[0] for k, v in smap.get("pc_ast_map", {}).items() if keep(int(k)) and v and v[0] != main_source and v[0] >= 0}
    return pc_pos, errors, sources


def _loaded_sources(bundle: Any, main_source: int, main_path: Path) -> dict[int, str]:
    """Every file vyper read for one compile (the contract and its imports), by source id."""
    found = {main_source: str(main_path)}
    # vyper's input bundle numbers each file it loads; imported modules are among them
    for resolved, source_id in getattr(bundle, "_source_ids", {}).items():
        found.setdefault(source_id, str(resolved))
    return found


def _error_signatures(paths: Any) -> tuple[str, ...]:
    found: list[str] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in _ERROR_SIGNATURE.finditer(text):
            if m.group(2).replace(" ", "") not in found:
                found.append(m.group(2).replace(" ", ""))
    return tuple(found)


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
    bytecode, runtime = _hex(out["bytecode"]), _hex(out["bytecode_runtime"])
    main = file_input.source_id
    pc_pos, error_map, pc_source = _source_maps(out["source_map_runtime"], main)
    # the deploy map also covers the runtime code that the initcode copies out of itself
    initcode_size = bytecode.find(runtime) if runtime else len(bytecode)
    deploy_pc_pos, deploy_error_map, deploy_pc_source = _source_maps(out["source_map"], main, limit=initcode_size if initcode_size >= 0 else len(bytecode))
    sources = _loaded_sources(bundle, main, path)
    return Artifact(
        name=path.stem,
        path=str(path),
        source_hash=source_hash,
        abi=json.loads(json.dumps(out["abi"])),
        bytecode=bytecode,
        bytecode_runtime=runtime,
        pc_pos=pc_pos,
        error_map=error_map,
        layout=json.loads(json.dumps(out.get("layout", {}), default=str)),
        deploy_pc_pos=deploy_pc_pos,
        deploy_error_map=deploy_error_map,
        pc_source=pc_source,
        deploy_pc_source=deploy_pc_source,
        sources=sources,
        error_signatures=_error_signatures(sources.values()),
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
