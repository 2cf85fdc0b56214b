"""What one compiled contract is: its ABI and code, and the maps from its code back to the Vyper source."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


# method_id("Name(types)"): how Vyper code builds a custom error for raw_revert
_ERROR_SIGNATURE = re.compile(r"""method_id\(\s*(["'])([A-Za-z_]\w*\([^"']*\))\1""")


def error_signatures(paths: Any) -> tuple[str, ...]:
    """The custom errors the sources build with method_id("Name(types)"), each once."""
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
    """One compiled contract: ABI, code, source positions of runtime and deploy code, storage layout, getters."""

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
    # every file compiled into it (the source and each resolved import): path -> sha256
    inputs: dict[str, str] = field(default_factory=dict)
    # the exposed functions that are public getters of storage variables, the contract's own or
    # its modules': function name -> {"slot": the variable's first slot, "type": its vyper type}
    getters: dict[str, dict[str, Any]] = field(default_factory=dict)
    vyper: str = ""  # the vyper release that compiled it
    # for a contract compiled elsewhere: its artifact's format ("Foundry", ...; precompiled.py), path its file
    origin: str = ""
    # what vyper warned of while compiling it: {"kind", "message", "path" (resolved), "lineno" (None when it gave none)}
    warnings: tuple[dict[str, Any], ...] = ()
    # vyper's code generator that built it: "legacy", or "venom" (experimental codegen), whose source
    # map places too few instructions for source lines (vyper issue #5141): see VENOM_NO_LINES
    codegen: str = "legacy"

    @property
    def venom(self) -> bool:
        return self.codegen == "venom"

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
        lines = self._lines(at, deploy)
        if lines is None or pos[0] > len(lines[1]):
            return None
        path, text = lines
        end = pos[2] if isinstance(pos[2], int) and pos[0] <= pos[2] <= len(text) else pos[0]
        return SourcePosition(_shown_path(path), pos[0], text[pos[0] - 1].strip(), end)

    def _lines(self, pc: int, deploy: bool) -> tuple[str, list[str]] | None:
        """The file the code at pc comes from (the source, or a module it imports) and its lines; None when it cannot be
        read."""
        source = (self.deploy_pc_source if deploy else self.pc_source).get(pc)
        path = self.sources.get(source, self.path) if source is not None else self.path
        try:
            return path, Path(path).read_text(encoding="utf-8").splitlines()
        except OSError:
            return None

    def function_at(self, pc: int, *, deploy: bool = False, ahead: int = 64) -> SourcePosition | None:
        """The `def` line of the function whose code follows pc (a check at a function's entry, before its body), when
        known.

        The first pc after it with a position is the function's first statement (or its def line);
        its def is the nearest line above that starts a top-level `def`.
        """
        for at in range(pc + 1, pc + 1 + ahead):
            found = self.position(at, deploy=deploy)
            if found is not None:
                break
        else:
            return None
        if found.text.startswith("def "):
            return found
        read = self._lines(at, deploy)
        lines = read[1] if read is not None else []
        for number in range(min(found.line - 1, len(lines)), 0, -1):
            if lines[number - 1].startswith("def "):
                return SourcePosition(found.path, number, lines[number - 1].strip(), number)
        return None

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
            "inputs": self.inputs,
            "getters": self.getters,
            "vyper": self.vyper, "origin": self.origin,
            "warnings": list(self.warnings),
            "codegen": self.codegen,
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
            inputs=d.get("inputs", {}),
            getters=d.get("getters", {}),
            vyper=d.get("vyper", ""), origin=d.get("origin", ""),
            warnings=tuple(d.get("warnings", ())),
            codegen=d.get("codegen", "legacy"),
        )


# why a Venom build's failures and coverage name no source line
VENOM_NO_LINES = (
    "built with Venom (experimental codegen), whose source map places too few instructions to name a line (vyper "
    "issue #5141)"
)


# evmstate's own sources (the actors' contract) are named from the package, wherever it is installed: a failure's
# identity and its report read the same on every machine
_PACKAGE = Path(__file__).resolve().parents[1]


def _shown_path(path: str) -> str:
    """path relative to the current folder when it is below it, as a user would type it; one of evmstate's own sources
    as evmstate/..."""
    p = Path(path)
    if p.is_absolute():
        for base, shown in ((_PACKAGE, "evmstate/"), (Path.cwd(), "")):
            try:
                return shown + p.relative_to(base).as_posix()
            except ValueError:
                continue
        return path
    return path
