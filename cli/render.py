"""Rich rendering of the engine's events: a live spinner per machine, failures, summaries."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from evmstate.reports import failure_text
from evmstate.runner import (
    ExampleFinished,
    FailureFound,
    LoadFailed,
    MachineFinished,
    MachineStarted,
    NothingFound,
    RunStarted,
    RunSummary,
    ShrinkProgress,
    ShrinkReport,
)

SPINNER = "|/-\\"


class _Row:
    def __init__(self, name: str, path: str, kind: str) -> None:
        self.name, self.path, self.kind = name, path, kind
        self.examples = 0
        self.steps = 0
        self.started = time.perf_counter()
        self.elapsed = 0.0
        self.shrinking = False
        self.best: int | None = None
        self.shrink_runs = 0
        self.shrink_elapsed = 0.0
        self.phase = "shrinking"
        self.status: str | None = None

    def text(self) -> Text:
        if self.status == "passed":
            mark, style = "✓", "green"
        elif self.status in ("failed", "error"):
            mark, style = "✗", "red"
        else:
            mark, style = SPINNER[self.examples % len(SPINNER)], ("red" if self.shrinking else "yellow")
        rate = self.steps / self.elapsed if self.elapsed > 0 else 0.0
        what = ""
        if self.shrinking and self.status is None:
            what = self.phase
            if self.best is not None:
                what += f" {self.shrink_elapsed:.1f}s: best {self.best} steps, {self.shrink_runs} runs tried"
        t = Text()
        t.append(f"{mark} ", style=style)
        t.append(f"{self.path}::{self.name}")
        t.append(f"  {self.examples} examples, {self.steps} steps, {rate:.0f} steps/s, {self.elapsed:.1f}s {what}".rstrip(), style="dim")
        return t


class Renderer:
    """Feeds engine events to the console; live rows on a terminal, plain lines elsewhere."""

    def __init__(self, console: Console, *, quiet: bool = False, verbose: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self.verbose = verbose
        self.rows: dict[tuple[str, str], _Row] = {}
        self.live: Live | None = None
        self.current: _Row | None = None

    def __enter__(self) -> "Renderer":
        if self.console.is_terminal and not self.quiet:
            self.live = Live(console=self.console, refresh_per_second=8, transient=True)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)
            self.live = None

    def _refresh(self) -> None:
        if self.live is not None and self.current is not None:
            self.live.update(self.current.text())

    def __call__(self, event: Any) -> None:
        if isinstance(event, RunStarted):
            self.console.print(f"seed: {event.seed} — rerun with --seed {event.seed}")
        elif isinstance(event, MachineStarted):
            row = self.current = _Row(event.name, event.path, event.kind)
            self.rows[(event.path, event.name)] = row
            self._refresh()
        elif isinstance(event, ExampleFinished) and self.current is not None:
            self.current.examples, self.current.steps, self.current.elapsed = event.examples, event.steps, event.elapsed
            self.current.shrinking = event.shrinking
            self._refresh()
        elif isinstance(event, FailureFound) and self.current is not None:
            self.current.shrinking = True
            if self.live is None and not self.quiet:
                self.console.print(f"{self.current.path}::{event.name}: falsified after {event.examples} examples, shrinking")
            self._refresh()
        elif isinstance(event, ShrinkProgress) and self.current is not None:
            row = self.current
            row.best, row.shrink_runs, row.shrink_elapsed, row.phase = event.steps, event.runs, event.elapsed, event.phase
            if event.phase != "shrinking":
                row.elapsed = time.perf_counter() - row.started  # no runs finish during this phase
            self._refresh()
        elif isinstance(event, MachineFinished):
            row = self.rows.get((event.path, event.name)) or _Row(event.name, event.path, event.kind)
            row.examples, row.steps, row.elapsed, row.status = event.examples, event.steps, event.elapsed, event.status
            self.current = None
            if self.live is not None:
                self.live.update(Text(""))
            self.finished(event, row)
        elif isinstance(event, LoadFailed):
            self.console.print(Text(f"ERROR {event.path}", style="bold red"))
            self.console.print(Text(event.message), soft_wrap=True)
        elif isinstance(event, NothingFound):
            self.console.print(Text(event.message), soft_wrap=True)

    def finished(self, event: MachineFinished, row: _Row) -> None:
        c = self.console
        if event.status == "passed":
            if not self.quiet:
                c.print(row.text())
        elif event.status == "error":
            c.print(Text(f"ERROR {event.path}::{event.name}", style="bold red"))
            c.print(Text(event.error or ""), soft_wrap=True)
            return
        else:
            c.print(row.text())
            c.print(Text(f"FAILED {event.path}::{event.name}", style="bold red"))
            assert event.failure is not None
            c.print(Text(failure_text(event.failure)), soft_wrap=True)
            if event.failure.shrink is not None:
                c.print(Text(shrink_text(event.failure.shrink), style="dim"))
            if event.failure.interrupted:
                c.print(Text("interrupted while shrinking: this is the shortest failing program found so far", style="yellow"))
            if event.failure_id:
                c.print(f"replay with: evmstate replay {event.failure_id}")
            if self.verbose and event.failure.traceback:
                c.print(Text("\nTraceback (user code):\n" + event.failure.traceback, style="dim"))
        if event.rules and not self.quiet:
            table = Table(title=None, show_edge=False, box=None, pad_edge=False)
            table.add_column("rule")
            table.add_column("calls", justify="right")
            table.add_column("reverts caught", justify="right")
            for name, s in event.rules.items():
                table.add_row(name, str(s.calls), str(s.reverts))
            c.print(table)
            for name, s in event.rules.items():
                for arg, fs in s.filters.items():
                    c.print(Text(f"  {name}({arg}=<filtered>): enabled at {fs.enabled} steps, skipped at {fs.skipped} for lack of a matching value", style="dim"))
            for name in event.never_run:
                c.print(Text(f"warning: {event.name}.{name} never ran: its precondition never held or its bundle stayed empty", style="yellow"))
        if self.verbose and event.statistics:
            c.print(Text("Hypothesis statistics:", style="dim"))
            for key, value in event.statistics.items():
                c.print(Text(f"  {key}: {value}", style="dim"))

    def summary(self, summary: RunSummary) -> None:
        passed = sum(r.status == "passed" for r in summary.results)
        failed = sum(r.status == "failed" for r in summary.results)
        errors = sum(r.status == "error" for r in summary.results) + len(summary.load_errors)
        style = "green" if summary.exit_code == 0 else "red"
        parts = [f"{passed} passed", f"{failed} failed"]
        if errors:
            parts.append(f"{errors} errors")
        self.console.print(Text(", ".join(parts), style=f"bold {style}"))


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def shrink_text(r: ShrinkReport) -> str:
    """One line on how the reported program was shrunk, and how long it took."""
    # Hypothesis does not shrink again a saved example that replays exactly: then only the
    # deletion pass ran
    saved = "replayed a saved example; " if r.replayed else ""
    work = f"{_count(r.runs, 'run')}, {_count(r.replays, 'replay')} removing steps"
    return f"{saved}shrunk from {r.first_steps} to {_count(r.steps, 'step')} in {r.seconds:.1f}s ({work})"
