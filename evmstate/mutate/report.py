"""What `evmstate mutate` found, per mutant, per function and per contract: as data, JSON and an HTML page.

A mutant is killed (a machine or test failed on it: the report names the invariant or rule and
the program's length), survived (every judge passed: what the invariants do not check), not
covered (no judge's run reaches its line, so it was neither compiled nor run), dropped (it does
not compile, or its code is the real code's or another mutant's) or an error (evmstate failed, or a
judge's own code went wrong on it: a mistake of the machine is never a kill).
The score is killed / (killed + survived + not covered).
"""

from __future__ import annotations

import html
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..engine.events import (
    CompileFinished, CompileStarted, ExitCode, LoadFailed, NothingFound, RunStarted, StoreWarning,
)
from .tasks import Kill

STATUSES = ("killed", "survived", "not covered", "dropped", "error")
FORMAT = 1


@dataclass(frozen=True)
class MutantOutcome:
    """One mutant and how it fared."""

    id: str
    source: str  # the file, as the report names it
    group: str  # its contract, or the module's path
    function: str  # "" at module level
    line: int
    operator: str
    before: str
    after: str
    status: str  # one of STATUSES
    # dropped: equivalent, duplicate of <id>, does not compile: ...; not covered: why; error: what failed
    reason: str = ""
    kill: Kill | None = None
    seconds: float = 0.0  # judging it
    compile_seconds: float = 0.0  # CPU seconds compiling it
    cached: bool = False  # its verdict came from .evmstate/mutants
    judges: tuple[str, ...] = ()
    broken: bool = False  # error: a judge's own code went wrong on it (a mistake of the machine), not evmstate

    @property
    def diff(self) -> str:
        return f"{self.before}  →  {self.after or '(removed)'}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "contract": self.group,
            "function": self.function,
            "line": self.line,
            "operator": self.operator,
            "before": self.before,
            "after": self.after,
            "status": self.status,
            "reason": self.reason,
            "killed_by": self.kill.to_dict() if self.kill is not None else None,
            "seconds": round(self.seconds, 3),
            "compile_seconds": round(self.compile_seconds, 3),
            "cached": self.cached,
            "judges": list(self.judges),
            "broken_machine": self.broken,
        }


@dataclass(frozen=True)
class JudgeOutcome:
    """A machine or test on the real code: passed (it judges mutants), failed or error (it judges none)."""

    key: str
    status: str
    message: str = ""
    seconds: float = 0.0
    cached: bool = False


def counts(outcomes: Iterable[MutantOutcome]) -> dict[str, int]:
    found = Counter(o.status for o in outcomes)
    return {s: found.get(s, 0) for s in STATUSES}


def score(found: dict[str, int]) -> float | None:
    """killed / (killed + survived + not covered); None when there is nothing to score."""
    judged = found["killed"] + found["survived"] + found["not covered"]
    return found["killed"] / judged if judged else None


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


@dataclass
class MutationReport:
    """Everything a run of `evmstate mutate` found."""

    seed: int
    budget: dict[str, Any]
    sources: list[str] = field(default_factory=list)
    mutants: list[MutantOutcome] = field(default_factory=list)
    judges: list[JudgeOutcome] = field(default_factory=list)
    elapsed: float = 0.0
    workers: str = ""
    interrupted: bool = False
    coverage: bool = True  # whether lines no run reaches could be told (py-evm)
    timing: dict[str, float] = field(default_factory=dict)
    nothing: str | None = None  # why nothing was mutated

    @property
    def counts(self) -> dict[str, int]:
        return counts(self.mutants)

    @property
    def score(self) -> float | None:
        return score(self.counts)

    def by_status(self, status: str) -> list[MutantOutcome]:
        return [m for m in self.mutants if m.status == status]

    def table(self) -> list[tuple[str, str, dict[str, int]]]:
        """(contract, function, counts) for every contract (function "") and, under it, each of its functions."""
        rows: list[tuple[str, str, dict[str, int]]] = []
        groups: dict[str, list[MutantOutcome]] = {}
        for m in self.mutants:
            groups.setdefault(m.group, []).append(m)
        for group in sorted(groups):
            rows.append((group, "", counts(groups[group])))
            functions: dict[str, list[MutantOutcome]] = {}
            for m in groups[group]:
                functions.setdefault(m.function, []).append(m)
            for function in sorted(functions, key=lambda f: min(m.line for m in functions[f])):
                rows.append((group, function or "(module level)", counts(functions[function])))
        return rows

    def killers(self) -> list[tuple[str, int]]:
        """The invariants, rules and tests that killed mutants, with how many each, most first."""
        found = Counter(m.kill.by for m in self.mutants if m.kill is not None)
        return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))

    def to_dict(self) -> dict[str, Any]:
        found = self.counts
        return {
            "format": FORMAT,
            "seed": self.seed,
            "budget": self.budget,
            "score": self.score,
            "counts": found,
            "elapsed": round(self.elapsed, 3),
            "workers": self.workers,
            "interrupted": self.interrupted,
            "coverage": self.coverage,
            "timing": {k: round(v, 3) for k, v in self.timing.items()},
            "sources": self.sources,
            "judges": [
                {
                    "id": j.key, "status": j.status, "message": j.message, "seconds": round(j.seconds, 3),
                    "cached": j.cached,
                }
                for j in self.judges
            ],
            "table": [{"contract": g, "function": f or None, **c, "score": score(c)} for g, f, c in self.table()],
            "mutants": [m.to_dict() for m in self.mutants],
        }

    def json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def exit_code(self, min_score: float | None = None) -> ExitCode:
        """Nothing to mutate, Ctrl-C, no judge passes on the real code, a mutant evmstate failed to judge (3), one a
        judge broke on (2), a score below min_score (percent), else OK.
        """
        if self.nothing is not None:
            return ExitCode.NOTHING_FOUND
        if self.interrupted:
            return ExitCode.INTERRUPTED
        if self.judges and not any(j.status == "passed" for j in self.judges):
            return ExitCode.USAGE_ERROR
        if any(m.status == "error" and not m.broken for m in self.mutants):
            return ExitCode.INTERNAL_ERROR
        if any(m.status == "error" for m in self.mutants):
            return ExitCode.USAGE_ERROR  # a machine that broke on a mutant: fix it
        if min_score is not None and (self.score is None or 100 * self.score < min_score):
            return ExitCode.FAILED
        return ExitCode.OK

    def write_json(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.json(), encoding="utf-8")

    def write_html(self, path: Path, root: Path | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.html(root), encoding="utf-8")

    # -- the page ----------------------------------------------------------------------------

    def html(self, root: Path | None = None) -> str:
        """One self-contained page: the table, the survivors by function, then each source with its mutants under their
        lines.
        """
        rows = []
        for group, function, c in self.table():
            name = html.escape(function) if function else f"<b>{html.escape(group)}</b>"
            cells = "".join(f"<td>{c[s]}</td>" for s in STATUSES)
            rows.append(
                f'<tr class="{"fn" if function else "group"}"><td>{name}</td>{cells}<td>{percent(score(c))}</td></tr>'
            )
        head = "".join(f"<th>{s}</th>" for s in STATUSES)
        survivors = self._survivors_html()
        sections = [self._source_html(source, root) for source in self.sources]
        style = (
            "body{font-family:sans-serif}pre{margin:0}td.n{color:#888;text-align:right;padding-right:1em}"
            "tr.survived{background:#fdd}tr.killed{background:#dfd}tr.uncovered{background:#eee}tr.mixed{background:#ffd}"
            "table.sum td,table.sum th{padding:0 1em}tr.group td{border-top:1px solid #ccc}ul.m{margin:0;font-size:90%}"
        )
        found = self.counts
        summary = (
            f"score {percent(self.score)}: {found['killed']} killed, {found['survived']} survived, "
            f"{found['not covered']} not covered, {found['dropped']} dropped"
        )
        return (
            '<!DOCTYPE html><html><head><meta charset="utf-8"><title>evmstate '
            f"mutants</title><style>{style}</style></head><body>"
            f"<h1>evmstate mutants</h1><p>{html.escape(summary)}</p>"
            "<p>red: a mutant of this line survived; green: every mutant of it was killed; grey: "
            "no run reached it; yellow: some of each</p>"
            f'<table class="sum"><tr><th></th>{head}<th>score</th></tr>{"".join(rows)}</table>'
            f"{survivors}{''.join(sections)}</body></html>\n"
        )

    def _survivors_html(self) -> str:
        alive = self.by_status("survived")
        if not alive:
            return "<h2>No mutant survived</h2>"
        items = []
        for (source, function), group in grouped(alive):
            lines = "".join(
                f"<li><code>{m.line}: {html.escape(m.diff)}</code> <small>({html.escape(m.operator)})</small></li>"
                for m in group
            )
            items.append(
                f"<li>{html.escape(source)} <b>{html.escape(function or '(module level)')}</b><ul>{lines}</ul></li>"
            )
        return f"<h2>Survived: what the invariants do not check</h2><ul>{''.join(items)}</ul>"

    def _source_html(self, source: str, root: Path | None) -> str:
        path = Path(source) if Path(source).is_absolute() or root is None else root / source
        try:
            text = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            text = []
        on_line: dict[int, list[MutantOutcome]] = {}
        for m in self.mutants:
            if m.source == source:
                on_line.setdefault(m.line, []).append(m)
        body = []
        for n, line in enumerate(text, 1):
            found = on_line.get(n, [])
            statuses = {m.status for m in found if m.status != "dropped"}
            cls = ""
            if statuses == {"killed"}:
                cls = "killed"
            elif statuses == {"not covered"}:
                cls = "uncovered"
            elif statuses == {"survived"}:
                cls = "survived"
            elif statuses:
                cls = "mixed"
            notes = "".join(f"<li>{html.escape(_note(m))}</li>" for m in found)
            listed = f"<ul class=\"m\">{notes}</ul>" if notes else ""
            body.append(
                f'<tr class="{cls}"><td class="n">{n}</td><td><pre>{html.escape(line) or " "}</pre>{listed}</td></tr>'
            )
        return f"<h2>{html.escape(source)}</h2><table class=\"src\">{''.join(body)}</table>"


def _note(m: MutantOutcome) -> str:
    what = f"{m.operator}: {m.after or '(removed)'}"
    if m.status == "killed" and m.kill is not None:
        return f"{what} — killed by {m.kill.by} ({m.kill.stage}, {m.kill.steps} step{'' if m.kill.steps == 1 else 's'})"
    if m.reason:
        return f"{what} — {m.status}: {m.reason}"
    return f"{what} — {m.status}"


def grouped(outcomes: list[MutantOutcome]) -> list[tuple[tuple[str, str], list[MutantOutcome]]]:
    """Outcomes grouped by (source, function), in the order of the sources and of their lines."""
    groups: dict[tuple[str, str], list[MutantOutcome]] = {}
    for m in sorted(outcomes, key=lambda m: (m.source, m.line)):
        groups.setdefault((m.source, m.function), []).append(m)
    return list(groups.items())


# -- events: how the report is built -----------------------------------------------------------


@dataclass(frozen=True)
class MutateStarted:
    """Emitted once the mutants are made: the sources, how many mutants, the machines and tests that deploy them."""

    sources: tuple[str, ...]
    mutants: int
    judges: tuple[str, ...]


@dataclass(frozen=True)
class BaselineFinished:
    """Emitted when a machine or test has run on the real code (or its outcome came from the cache)."""

    outcome: JudgeOutcome


@dataclass(frozen=True)
class MutantFinished:
    """Emitted as each mutant's outcome is known: done of total so far."""

    outcome: MutantOutcome
    done: int
    total: int


@dataclass(frozen=True)
class MutateFinished:
    """Emitted once at the end, after Ctrl-C and when nothing was mutated too: the report, the files written, how the
    command ends.
    """

    report: MutationReport
    written: tuple[str, ...] = ()
    exit_code: ExitCode = ExitCode.OK
    min_score: float | None = None  # --min-score, in percent


MutateEvent = (
    RunStarted | CompileStarted | CompileFinished | LoadFailed | NothingFound | StoreWarning | MutateStarted
    | BaselineFinished | MutantFinished | MutateFinished
)
