"""EVM coverage mapped to Vyper source: branches taken and not taken, code executed, lines reached.

The backend records, per frame's code, every JUMPI's outcome and every jump destination (see
backend.Coverage). Code runs in basic blocks: a block entered at a jump destination, at pc 0,
or after a JUMPI that did not jump runs to its end, and on into the next block when it ends
without jumping or stopping. So those records give every pc executed, and the compiler's
source map turns pcs into lines. A branch is a JUMPI that a source line owns (an `if`, an
`assert`, a `raise`), counted twice, taken and not taken; the checks the compiler adds
(overflow, bounds, calldata) and the selector dispatch are left out of the report's branch
counts, but count for guidance like every other JUMPI.

Coverage is kept per deployment: the contract at an address is the one the project deployed or
attached there (Project.deployment_at), under its label when it has one, so two deployments of
one code, or two contracts with the same code, are never confused. Code the project does not
know of (made by a factory and never attached) is the contract whose code it is, when exactly
one contract's is. The report counts each source file once, merged over every contract compiled
from it (a module imported by three contracts is one file), and each deployment apart.
"""

from __future__ import annotations

import html
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..compiler.artifacts import VENOM_NO_LINES
from ..evm.base import INITCODE

if TYPE_CHECKING:
    from ..compiler.sources import Artifact

JUMPDEST, JUMP, JUMPI = 0x5B, 0x56, 0x57
PUSH1, PUSH32 = 0x60, 0x7F
# instructions after which execution never falls into the next instruction
ENDS = {0x00, JUMP, 0xF3, 0xFD, 0xFE, 0xFF}
# vyper's descriptions of the checks it writes itself: not branches of the source
_USER_CHECKS = ("user assert", "user revert", "user raise")

Line = tuple[str, int]  # (file, 1-based line)
# where a branch is in the source: (file, line, column, end line, end column) of the code that decides it;
# the same in every contract compiled from that file
Site = tuple[str, int, int, int, int]


def instructions(code: bytes) -> list[tuple[int, int, int | None]]:
    """(pc, opcode, pushed value or None) of every instruction, PUSH data skipped."""
    out: list[tuple[int, int, int | None]] = []
    i, n = 0, len(code)
    while i < n:
        op = code[i]
        if PUSH1 <= op <= PUSH32:
            size = op - PUSH1 + 1
            out.append((i, op, int.from_bytes(code[i + 1 : i + 1 + size], "big")))
            i += 1 + size
        else:
            out.append((i, op, None))
            i += 1
    return out


_TEXT: dict[str, tuple[int, list[str]]] = {}  # path -> (mtime, lines)


def _source_lines(path: str) -> list[str] | None:
    """The file's lines as they are now (read again when it changed), or None when it is gone or unreadable."""
    try:
        mtime = Path(path).stat().st_mtime_ns
    except OSError:
        return None
    cached = _TEXT.get(path)
    if cached is None or cached[0] != mtime:
        try:
            cached = _TEXT[path] = (mtime, Path(path).read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError):
            return None
    return cached[1]


def _holds_code(lines: list[str] | None, line: int) -> bool:
    """Whether the source line has something besides blanks and a comment."""
    if not lines:
        return True  # the file is gone: trust the compiler
    text = lines[line - 1].strip() if line <= len(lines) else ""
    return bool(text) and not text.startswith("#")


@dataclass
class CodeMap:
    """One piece of code (a contract's runtime or deploy code) cut into blocks, with their source lines."""

    name: str  # the contract
    deploy: bool
    blocks: dict[int, tuple[int, int | None]]  # start -> (end, the block it falls into, or None)
    block_lines: dict[int, frozenset[Line]]
    lines: frozenset[Line]  # every line some instruction of this code belongs to
    branches: dict[int, Site]  # JUMPI pc -> where in the source it branches (reported branches)

    @classmethod
    def build(cls, artifact: "Artifact", deploy: bool) -> "CodeMap":
        code = artifact.bytecode if deploy else artifact.bytecode_runtime
        pc_pos = artifact.deploy_pc_pos if deploy else artifact.pc_pos
        pc_source = artifact.deploy_pc_source if deploy else artifact.pc_source
        errors = artifact.deploy_error_map if deploy else artifact.error_map
        limit = (max(pc_pos) + 1) if deploy and pc_pos else len(code)
        texts: dict[str, Any] = {}

        def site_of(pc: int) -> Site | None:
            if artifact.venom:
                # Venom's source map places too few instructions: no line rather than a wrong one (VENOM_NO_LINES)
                return None
            pos = pc_pos.get(pc)
            if not pos or not isinstance(pos[0], int) or pos[0] < 1:
                return None
            source = pc_source.get(pc)
            path = artifact.sources.get(source, artifact.path) if source is not None else artifact.path
            # code vyper attributes to the whole module starts on its first line, often a comment
            lines = texts.get(path, texts)
            if lines is texts:
                lines = texts[path] = _source_lines(path)  # each file looked at once a build, not once an instruction
            if not _holds_code(lines, pos[0]):  # type: ignore[arg-type]
                return None
            rest = [p if isinstance(p, int) else -1 for p in pos[1:4]]
            column, end_line, end_column = rest + [-1] * (3 - len(rest))
            return (path, pos[0], column, end_line, end_column)

        blocks: dict[int, tuple[int, int | None]] = {}
        block_lines: dict[int, frozenset[Line]] = {}
        branches: dict[int, Site] = {}
        start, last_site = 0, None
        lines_here: set[Line] = set()
        ops = [op for op in instructions(code) if op[0] < limit]
        for index, (pc, op, _) in enumerate(ops):
            if op == JUMPDEST and pc != start:
                blocks[start] = (pc, pc)  # falls into the jump destination
                block_lines[start] = frozenset(lines_here)
                start, lines_here, last_site = pc, set(), None
            site = site_of(pc)
            if site is not None:
                lines_here.add(site[:2])
                last_site = site
            if op == JUMPI:
                # vyper maps the instructions that compute a check, not always the jump itself
                kind = errors.get(pc) or errors.get(pc - 1)
                if last_site is not None and (kind is None or kind.startswith(_USER_CHECKS)):
                    branches[pc] = last_site
            if op == JUMPI or op in ENDS:
                end = ops[index + 1][0] if index + 1 < len(ops) else pc + 1
                # after a JUMPI the next block runs only when it did not jump, which the hits record
                blocks[start] = (end, None)
                block_lines[start] = frozenset(lines_here)
                start, lines_here, last_site = end, set(), None
        if start < (ops[-1][0] + 1 if ops else 0):
            blocks[start] = (ops[-1][0] + 1, None)
            block_lines[start] = frozenset(lines_here)
        every = frozenset(line for ls in block_lines.values() for line in ls)
        return cls(artifact.name, deploy, blocks, block_lines, every, branches)

    def executed(self, hits: Iterable[int]) -> set[int]:
        """The blocks (by start pc) that the recorded jumps and branches show ran."""
        entries = {0}
        for h in hits:
            if h < 0:
                entries.add(~h)
            elif not h & 1:
                entries.add((h >> 1) + 1)  # a JUMPI that did not jump goes on with the next block
        ran: set[int] = set()
        blocks = self.blocks
        for entry in entries:
            at: int | None = entry
            while at is not None and at in blocks and at not in ran:
                ran.add(at)
                at = blocks[at][1]
        return ran

    def lines_reached(self, blocks: Iterable[int]) -> set[Line]:
        found: set[Line] = set()
        for b in blocks:
            found |= self.block_lines.get(b, frozenset())
        return found


# -- the collector ---------------------------------------------------------------------------
# (deployment, contract, deploy code): the deployment is its label, else its contract's name; for
# code no one contract has, ("0x<address>", "", deploy)
Identity = tuple[str, str, bool]
# address -> (label or contract name, artifact) of what is deployed there
Deployment = Callable[[bytes], "tuple[str, Artifact] | None"]


class Collector:
    """Everything the machines and tests of one evmstate run reached, per deployment's code."""

    def __init__(self, artifacts: dict[str, "Artifact"], deployment_at: Deployment | None = None) -> None:
        self.artifacts = artifacts
        self.deployment_at = deployment_at or (lambda address: None)
        self.hits: dict[Identity, set[int]] = {}
        self._maps: dict[tuple[str, bool], CodeMap] = {}
        self._by_code: dict[bytes, str | None] = {}
        self._known = len(artifacts)
        self.wanted = False  # a coverage report was asked for: record even where guidance is off

    def identify(self, key: bytes, get_code: Any) -> Identity:
        """Which deployment's runtime or deploy code a recorded key stands for."""
        deploy = key.startswith(INITCODE)
        address = key[len(INITCODE) :] if deploy else key
        code = get_code(address)
        found = self.deployment_at(address)
        if found is not None:
            label, artifact = found
            runtime = artifact.bytecode_runtime
            # what was registered there is still what runs there (a revert may have undone it)
            if artifact.name in self.artifacts and runtime and code.startswith(runtime):
                return (label, artifact.name, deploy)
        name = self._contract_of(code)
        return (name, name, deploy) if name is not None else ("0x" + address.hex(), "", deploy)

    def _contract_of(self, code: bytes) -> str | None:
        """The one contract whose runtime code this is (deployed code is the runtime code followed by the
        immutables' values); None when none is, or when several are (two sources with the same code)."""
        if len(self.artifacts) != self._known:  # a library module compiled since: matches may change
            self._by_code.clear()
            self._known = len(self.artifacts)
        if code in self._by_code:
            return self._by_code[code]
        best: list[str] = []
        for name, artifact in self.artifacts.items():
            runtime = artifact.bytecode_runtime
            if not runtime or not code.startswith(runtime):
                continue
            if best and len(runtime) > len(self.artifacts[best[0]].bytecode_runtime):
                best = []
            if not best or len(runtime) == len(self.artifacts[best[0]].bytecode_runtime):
                best.append(name)
        found = self._by_code[code] = best[0] if len(best) == 1 else None
        return found

    def code_map(self, identity: Identity) -> CodeMap | None:
        _, name, deploy = identity
        if name not in self.artifacts:
            return None
        found = self._maps.get((name, deploy))
        if found is None:
            found = self._maps[(name, deploy)] = CodeMap.build(self.artifacts[name], deploy)
        return found

    def add(self, identity: Identity, hits: set[int]) -> set[int]:
        """Merge one piece of code's hits; returns those never seen before in this run."""
        known = self.hits.get(identity)
        if known is None:
            self.hits[identity] = set(hits)
            return set(hits)
        new = hits - known
        known |= new
        return new

    def branches_hit(self) -> int:
        """Branch outcomes (taken or not) reached so far, of the branches the report counts."""
        return len(self.branch_ids())

    def branch_ids(self) -> frozenset[tuple[str, str, bool, int]]:
        """The branch outcomes reached so far that the report counts, as (deployment, contract, deploy code, 2*pc +
        taken).
        """
        found: set[tuple[str, str, bool, int]] = set()
        for identity, hits in self.hits.items():
            cmap = self.code_map(identity)
            if cmap is not None:
                found.update((*identity, h) for h in hits if h >= 0 and (h >> 1) in cmap.branches)
        return frozenset(found)

    def report(self, root: Path | None = None) -> "CoverageReport":
        return CoverageReport.build(self, root)


# -- the report ------------------------------------------------------------------------------

# (line, "column-end line:end column" of the code that decides it, outcome 0 not taken / 1 taken)
BranchKey = tuple[int, str, int]


@dataclass
class FileCoverage:
    """One source file, over every contract compiled from it: its lines that code was compiled from, those reached, and
    its branches.
    """

    path: str
    lines: dict[int, bool] = field(default_factory=dict)  # line -> reached
    branches: dict[BranchKey, bool] = field(default_factory=dict)  # -> reached
    contracts: list[str] = field(default_factory=list)  # the contracts compiled from it

    @property
    def lines_hit(self) -> int:
        return sum(self.lines.values())

    @property
    def branches_hit(self) -> int:
        return sum(self.branches.values())

    def merge(self, lines: dict[int, bool], branches: dict[BranchKey, bool]) -> None:
        for line, hit in lines.items():
            self.lines[line] = self.lines.get(line, False) or hit
        for key, hit in branches.items():
            self.branches[key] = self.branches.get(key, False) or hit

    def unreached(self) -> list[tuple[int, int]]:
        """Runs of lines compiled into code that never ran, as (first, last); lines in between that hold no code do not
        break a run.
        """
        ranges: list[tuple[int, int]] = []
        for line in sorted(self.lines):
            if self.lines[line]:
                continue
            if ranges and not any(self.lines.get(n) for n in range(ranges[-1][1] + 1, line)):
                ranges[-1] = (ranges[-1][0], line)
            else:
                ranges.append((line, line))
        return ranges


@dataclass
class ContractCoverage:
    """One deployment (or a contract never deployed): lines and branches of its code, constructor and imported modules
    included.
    """

    name: str  # the deployment's label, else its contract's name
    path: str
    lines_total: int
    lines_hit: int
    branches_total: int
    branches_hit: int
    unreached: list[tuple[str, int, int]]  # (file, first line, last line)
    ran: bool  # any of its code ran at all
    contract: str = ""  # the contract deployed; name when it has no label

    @property
    def shown_name(self) -> str:
        """How the report names it: "weth (Token)" for a labelled deployment, else the contract's name."""
        return self.name if self.name == self.contract or not self.contract else f"{self.name} ({self.contract})"

    @staticmethod
    def percent(hit: int, total: int) -> float:
        return 100.0 * hit / total if total else 100.0


def _branch_key(site: Site, outcome: int) -> BranchKey:
    return (site[1], f"{site[2]}-{site[3]}:{site[4]}", outcome)


def _reached(
    collector: Collector, identity: Identity
) -> tuple[dict[str, dict[int, bool]], dict[str, dict[BranchKey, bool]]]:
    """One deployment's code (runtime or deploy) per file: lines and branches, reached or not."""
    cmap = collector.code_map(identity)
    assert cmap is not None
    hits = collector.hits.get(identity)
    reached = cmap.lines_reached(cmap.executed(hits)) if hits is not None else set()
    lines: dict[str, dict[int, bool]] = {}
    for line in cmap.lines:
        lines.setdefault(line[0], {})[line[1]] = line in reached
    branches: dict[str, dict[BranchKey, bool]] = {}
    for pc, site in cmap.branches.items():
        for outcome in (0, 1):
            own = branches.setdefault(site[0], {})
            key = _branch_key(site, outcome)
            own[key] = own.get(key, False) or (hits is not None and 2 * pc + outcome in hits)
    return lines, branches


@dataclass
class CoverageReport:
    """Coverage of a run per source file (a module once) and per deployment, ready to print or write."""

    contracts: list[ContractCoverage]  # one per deployment, and one per contract never deployed
    files: dict[str, FileCoverage]
    root: Path | None = None
    # the contracts built with Venom, whose lines and branches are not reported (artifacts.VENOM_NO_LINES)
    unplaced: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, collector: Collector, root: Path | None = None) -> "CoverageReport":
        files: dict[str, FileCoverage] = {}
        deployed: dict[str, list[str]] = {}  # contract -> its deployments that ran
        for label, name, _ in collector.hits:
            if name in collector.artifacts and label not in deployed.setdefault(name, []):
                deployed[name].append(label)
        contracts = []
        for name in sorted(collector.artifacts):
            labels = sorted(deployed.get(name, []), key=lambda label: (label != name, label)) or [name]
            for label in labels:
                per_file: dict[str, FileCoverage] = {}
                for deploy in (False, True):
                    lines, branches = _reached(collector, (label, name, deploy))
                    for path in lines.keys() | branches.keys():
                        per_file.setdefault(path, FileCoverage(path)).merge(lines.get(path, {}), branches.get(path, {}))
                for path, f in per_file.items():
                    merged = files.setdefault(path, FileCoverage(path))
                    merged.merge(f.lines, f.branches)
                    if name not in merged.contracts:
                        merged.contracts.append(name)
                contracts.append(cls._row(collector, label, name, per_file))
        report = cls(contracts, {}, root, sorted(n for n, a in collector.artifacts.items() if a.venom))
        # the project's own files first, then modules of installed packages, each by the path shown
        report.files = dict(sorted(files.items(), key=lambda item: (not report.inside(item[0]), report.shown(item[0]))))
        return report

    @staticmethod
    def _row(collector: Collector, label: str, name: str, per_file: dict[str, FileCoverage]) -> ContractCoverage:
        artifact = collector.artifacts[name]
        order = sorted(per_file, key=lambda p: (p != artifact.path, p))
        return ContractCoverage(
            name=label,
            path=artifact.path,
            lines_total=sum(len(f.lines) for f in per_file.values()),
            lines_hit=sum(f.lines_hit for f in per_file.values()),
            branches_total=sum(len(f.branches) for f in per_file.values()),
            branches_hit=sum(f.branches_hit for f in per_file.values()),
            unreached=[(path, a, b) for path in order for a, b in per_file[path].unreached()],
            ran=(label, name, False) in collector.hits or (label, name, True) in collector.hits,
            contract=name,
        )

    def unplaced_text(self) -> str:
        """What the report says of the contracts whose lines it cannot give."""
        return f"no lines or branches for {', '.join(self.unplaced)}: {VENOM_NO_LINES}" if self.unplaced else ""

    def inside(self, path: str) -> bool:
        """Whether path is one of the project's own files (below its root)."""
        return self.root is not None and Path(path).resolve().is_relative_to(self.root.resolve())

    def shown(self, path: str) -> str:
        """path relative to the project root when it is below it, else as an import names it (snekmate/tokens/erc20.vy).
        """
        resolved = Path(path).resolve()
        bases = [self.root] if self.root is not None else []
        # a module from an installed package: relative to the deepest import folder holding it
        bases += sorted((Path(p) for p in sys.path if p), key=lambda p: -len(p.resolve().parts))
        for base in bases:
            try:
                return resolved.relative_to(base.resolve()).as_posix()
            except ValueError:
                continue
        return path

    def unreached_text(self, contract: ContractCoverage) -> str:
        """A contract's lines never reached as file:line ranges: "contracts/A.vy:12-14, 20, lib.vy:3"."""
        parts, last = [], None
        for path, a, b in contract.unreached:
            where = f"{self.shown(path)}:" if path != last else ""
            last = path
            parts.append(f"{where}{a}" if a == b else f"{where}{a}-{b}")
        return ", ".join(parts)

    def file_unreached_text(self, path: str) -> str:
        """A file's lines never reached, by any contract compiled from it: "contracts/A.vy:12-14, 20"."""
        ranges = [f"{a}" if a == b else f"{a}-{b}" for a, b in self.files[path].unreached()]
        return f"{self.shown(path)}:{', '.join(ranges)}" if ranges else ""

    # -- writers -------------------------------------------------------------------------

    def lcov(self) -> str:
        """The report in lcov's tracefile format (genhtml, editors' coverage gutters): one record per source file."""
        out = ["TN:evmstate"]
        for path, f in self.files.items():
            out.append(f"SF:{Path(path).resolve()}")
            blocks: dict[str, int] = {}
            for (line, site, outcome), hit in sorted(f.branches.items()):
                block = blocks.setdefault(f"{line}:{site}", len(blocks))
                out.append(f"BRDA:{line},{block},{outcome},{1 if hit else '-'}")
            out.append(f"BRF:{len(f.branches)}")
            out.append(f"BRH:{f.branches_hit}")
            for line in sorted(f.lines):
                out.append(f"DA:{line},{1 if f.lines[line] else 0}")
            out.append(f"LF:{len(f.lines)}")
            out.append(f"LH:{f.lines_hit}")
            out.append("end_of_record")
        return "\n".join(out) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": 2,
            "files": {
                self.shown(path): {
                    "contracts": list(f.contracts),
                    "lines_hit": f.lines_hit,
                    "lines_total": len(f.lines),
                    "branches_hit": f.branches_hit,
                    "branches_total": len(f.branches),
                    "lines": {str(line): hit for line, hit in sorted(f.lines.items())},
                    "branches": [
                        {"line": line, "branch": site, "taken": bool(outcome), "hit": hit}
                        for (line, site, outcome), hit in sorted(f.branches.items())
                    ],
                }
                for path, f in self.files.items()
            },
            "contracts": {
                c.shown_name: {
                    "deployment": c.name, "contract": c.contract, "path": self.shown(c.path), "ran": c.ran,
                    "lines": {"hit": c.lines_hit, "total": c.lines_total},
                    "branches": {"hit": c.branches_hit, "total": c.branches_total},
                    "unreached": [{"path": self.shown(p), "first": a, "last": b} for p, a, b in c.unreached],
                    **({"no_lines": VENOM_NO_LINES} if c.contract in self.unplaced else {}),
                }
                for c in self.contracts
            },
        }

    def json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def html(self) -> str:
        """One self-contained page: the tables, then each source file with its lines marked."""

        def row(name: str, lines: tuple[int, int], branches: tuple[int, int]) -> str:
            pct = ContractCoverage.percent
            return (
                f"<tr><td>{html.escape(name)}</td><td>{lines[0]}/{lines[1]}</td><td>{pct(*lines):.1f}%</td>"
                f"<td>{branches[0]}/{branches[1]}</td><td>{pct(*branches):.1f}%</td></tr>"
            )

        head = "<tr><th>{}</th><th>lines</th><th></th><th>branches</th><th></th></tr>"
        by_file = [
            row(self.shown(p), (f.lines_hit, len(f.lines)), (f.branches_hit, len(f.branches)))
            for p, f in self.files.items()
        ]
        by_contract = [
            row(c.shown_name, (c.lines_hit, c.lines_total), (c.branches_hit, c.branches_total)) for c in self.contracts
        ]
        sections = []
        for path, f in self.files.items():
            try:
                text = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError:
                continue
            partial = {line for (line, _, _), hit in f.branches.items() if not hit}
            body = []
            for n, source in enumerate(text, 1):
                cls = ""
                if n in f.lines:
                    cls = "hit" if f.lines[n] else "miss"
                    if f.lines[n] and n in partial:
                        cls = "part"
                body.append(
                    f'<tr class="{cls}"><td class="n">{n}</td><td><pre>{html.escape(source) or " "}</pre></td></tr>'
                )
            sections.append(
                f"<h2>{html.escape(self.shown(path))}</h2><p>lines {f.lines_hit}/{len(f.lines)}, "
                f"branches {f.branches_hit}/{len(f.branches)}"
                f' (in {html.escape(", ".join(f.contracts))})</p><table class="src">{"".join(body)}</table>'
            )
        style = (
            "body{font-family:sans-serif}pre{margin:0}td.n{color:#888;text-align:right;padding-right:1em}"
            "tr.hit{background:#dfd}tr.miss{background:#fdd}tr.part{background:#ffd}table.sum "
            "td,table.sum th{padding:0 1em}"
        )
        return (
            '<!DOCTYPE html><html><head><meta charset="utf-8"><title>evmstate '
            f"coverage</title><style>{style}</style></head><body>"
            "<h1>evmstate coverage</h1><p>green: reached; red: never reached; yellow: reached, "
            "with a branch never taken</p>"
            f'<h2>By source file</h2><table class="sum">{head.format("file")}{"".join(by_file)}</table>'
            f'<h2>By deployed contract</h2><table class="sum">{head.format("contract")}{"".join(by_contract)}</table>'
            f"{''.join(sections)}</body></html>\n"
        )

    def write(self, kind: str, path: Path) -> None:
        """Write the report as lcov, html or json."""
        text = {"lcov": self.lcov, "html": self.html, "json": self.json}[kind]()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
