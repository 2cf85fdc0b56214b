"""Rich rendering of the engine's events: a live line per running machine, failures, summaries.

Driven by events alone: rows are keyed by path::name, so several machines may run at once.
On a terminal the rows are redrawn by rich's refresh thread (the spinner and the clock keep
moving while a slow step or the compiler runs); elsewhere (CI logs, pipes) every line is
printed once, whole and unwrapped, with a progress line now and then for long machines.
"""

from __future__ import annotations

import functools
import re
import time
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.live import Live
from rich.table import Table
from rich.text import Text

from evmstate.engine.events import (
    CompileFinished,
    CompileStarted,
    ExampleFinished,
    FailureFound,
    LoadFailed,
    MachineFinished,
    MachineStarted,
    NOT_SHRUNK,
    NothingFound,
    RunFinished,
    RunStarted,
    RunSummary,
    ShrinkProgress,
    StoreWarning,
)
from evmstate.runner import differential_lines, failure_text

from .signals import reported, stopped_by
from .texts import BUDGETS, count, late_progress, longer_search, optimum_lines, seed_line, shrink_text

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
CTRL_C_NOTE = "Ctrl-C keeps the shortest failing program found so far"


def spinner(now: float) -> str:
    """The spinner's frame at a moment: it turns with the clock, not with the events."""
    return SPINNER[int(now * 10) % len(SPINNER)]


class Row:
    """One machine or property test as the display knows it from events."""

    def __init__(self, name: str, path: str, kind: str, index: int = 0, total: int = 0, max_examples: int = 0) -> None:
        self.name, self.path, self.kind = name, path, kind
        self.index, self.total, self.max_examples = index, total, max_examples
        self.examples = 0
        self.runs = 0
        self.steps = 0
        self.started = time.perf_counter()
        self.elapsed = 0.0  # as the last event said
        self.failing = False
        self.phase = "searching"  # then "shrinking", "removing steps"
        self.best: int | None = None
        self.branches: int | None = None  # branch outcomes reached, when coverage is recorded
        self.shrink_runs = 0
        self.shrink_elapsed = 0.0
        self.status: str | None = None  # set when finished
        self.rejected = 0  # runs thrown away by assume() or reject(), as the finished event says
        self.optimum: dict[str, int] = {}  # the best value of each optimize method so far

    @property
    def label(self) -> str:
        where = f"[{self.index}/{self.total}] " if self.total else ""
        return f"{where}{self.path}::{self.name}"

    def examples_text(self) -> str:
        return (
            f"examples {self.examples}/{self.max_examples}" if self.max_examples else count(self.examples, "example")
        )

    def rate(self) -> float:
        return self.steps / self.elapsed if self.elapsed > 0 else 0.0

    def progress(self, now: float | None = None) -> list[str]:
        """The figures of a running machine, one per segment: the phase first."""
        elapsed = (now - self.started) if now is not None else self.elapsed
        parts = [self.phase, self.examples_text()]
        if self.phase == "searching":
            if self.kind == "machine":
                parts.append(count(self.steps, "step"))
            if self.branches is not None:
                parts.append(f"{self.branches} branch{'' if self.branches == 1 else 'es'} hit")
            parts += [f"best {name} {value}" for name, value in self.optimum.items()]
        elif self.best is not None:
            parts += [f"best {count(self.best, 'step')}", f"{self.shrink_runs} runs tried"]
        if self.kind == "machine":
            parts.append(f"{self.rate():.0f} steps/s")
        parts.append(f"{elapsed:.1f}s")
        return parts

    def live(self, now: float) -> list[Text]:
        """The row while it runs: spinner, name and figures; while shrinking, a line on Ctrl-C under it."""
        t = Text()
        t.append(f"{spinner(now)} ", style="red" if self.failing else "yellow")
        t.append(self.label)
        t.append("  " + ", ".join(self.progress(now)), style="dim")
        if not self.failing:
            return [t]
        return [t, Text(f"  {CTRL_C_NOTE}", style="yellow")]

    def summary(self) -> list[str]:
        """The figures of a finished machine."""
        parts = []
        if self.status == "interrupted":
            parts.append("interrupted")
        parts.append(self.examples_text())
        if self.rejected and self.status != "failed":
            parts.append(f"{count(self.rejected, 'run')} rejected by assume()/reject()")
        shrink = self.runs - self.examples if self.status == "failed" else 0
        if shrink > 0:
            parts.append(count(shrink, "shrink run"))
        if self.kind == "machine":
            parts += [count(self.steps, "step"), f"{self.rate():.0f} steps/s"]
        parts.append(f"{self.elapsed:.1f}s")
        return parts

    def final(self) -> Text:
        mark, style = {"passed": ("✓", "green"), "interrupted": ("!", "yellow")}.get(self.status or "", ("✗", "red"))
        t = Text()
        t.append(f"{mark} ", style=style)
        t.append(self.label)
        t.append("  " + ", ".join(self.summary()), style="dim")
        return t


class Handler:
    """Feeds each event to the method named for its type, schemathesis's way: CompileFinished goes to
    _on_compile_finished; an event without one is ignored."""

    def __call__(self, event: Any) -> None:
        if isinstance(event, MachineFinished) and event.status == "failed":
            reported["failure"] = True
        method = getattr(self, _method_name(type(event)), None)
        if method is not None:
            method(event)


@functools.lru_cache(maxsize=None)
def _method_name(kind: type) -> str:
    return "_on_" + re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()


class _Board:
    """What the live display shows: the compiler while it runs, then every running row, redrawn on each refresh."""

    def __init__(self, renderer: "Renderer") -> None:
        self.renderer = renderer

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        now = time.perf_counter()
        r = self.renderer
        lines: list[Text] = []
        if r.compiling is not None:
            lines.append(
                Text(f"{spinner(now)} compiling {r.compiling[0]}  {now - r.compiling[1]:.1f}s", style="yellow")
            )
        for row in list(r.rows.values()):
            if row.status is None:
                lines += row.live(now)
        for line in lines:
            line.no_wrap, line.overflow = True, "ellipsis"
        yield Group(*lines)


class Renderer(Handler):
    """Feeds engine events to the console; live rows on a terminal, plain lines elsewhere.

    progress_every: seconds between the progress lines of a long machine when not on a terminal.
    """

    def __init__(
        self, console: Console, *, quiet: bool = False, verbose: bool = False, progress_every: float = 30.0
    ) -> None:
        self.console = console
        self.quiet = quiet
        self.verbose = verbose
        self.progress_every = progress_every
        self.rows: dict[tuple[str, str], Row] = {}
        self.live: Live | None = None
        self.compiling: tuple[str, float] | None = None
        self._printed: dict[tuple[str, str], float] = {}  # when each row's last progress line was printed
        self._told: set[str] = set()  # the store warnings printed or held, each once
        self._held: list[str] = []  # store warnings met while a machine ran: printed after its report

    def __enter__(self) -> "Renderer":
        if self.console.is_terminal and not self.quiet:
            self.live = Live(_Board(self), console=self.console, refresh_per_second=10, transient=True)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)
            self.live = None

    @property
    def current(self) -> Row | None:
        """The row that started last and is still running."""
        running = [row for row in self.rows.values() if row.status is None]
        return running[-1] if running else None

    def _row(self, name: str, path: str) -> Row | None:
        row = self.rows.get((path, name))
        if row is None and not path:  # an event from a caller that does not give paths
            row = next((r for (p, n), r in self.rows.items() if n == name and r.status is None), None)
        return row

    def _plain(self, text: Text | str) -> None:
        self.console.print(text, soft_wrap=True)

    def _tick(self, row: Row) -> None:
        """Off a terminal, a progress line every progress_every seconds of a long machine."""
        if self.live is not None or self.quiet:
            return
        now = time.perf_counter()
        key = (row.path, row.name)
        if now - self._printed.setdefault(key, row.started) >= self.progress_every:
            self._printed[key] = now
            self._plain(Text(f"… {row.label}  " + ", ".join(row.progress(now)), style="dim"))

    def _on_run_started(self, event: RunStarted) -> None:
        if event.settings:
            self._plain(Text(f"settings: {event.settings}"))
        self._plain(seed_line(event))

    def _on_compile_started(self, event: CompileStarted) -> None:
        self.compiling = (event.folder, time.perf_counter())

    def _on_compile_finished(self, event: CompileFinished) -> None:
        self.compiling = None
        if not self.quiet:
            cached = f" ({event.cached} from the build cache)" if event.cached else ""
            errors = f", {count(event.errors, 'contract')} failed to compile" if event.errors else ""
            self._plain(
                Text(
                    f"compiled {count(event.contracts, 'contract')} in {event.seconds:.1f}s{cached}{errors}",
                    style="dim",
                )
            )
            if event.note:
                self._plain(Text(event.note, style="dim"))
        for warning in event.warnings:  # -q too: vyper's warnings are the user's to act on
            self._plain(Text(str(warning), style="yellow"))

    def _on_machine_started(self, event: MachineStarted) -> None:
        self.rows[(event.path, event.name)] = Row(
            event.name, event.path, event.kind, event.index, event.total, event.max_examples
        )
        for warning in event.warnings:
            self._plain(Text(f"warning: {warning}", style="yellow"))

    def _on_example_finished(self, event: ExampleFinished) -> None:
        row = self._row(event.name, event.path)
        if row is None:
            return
        row.examples, row.steps, row.elapsed, row.runs = (
            event.examples, event.steps, event.elapsed, event.runs or event.examples,
        )
        row.failing = event.shrinking
        if event.branches is not None:
            row.branches = event.branches
        if event.best:
            row.optimum = event.best
        if row.failing and row.phase == "searching":
            row.phase = "shrinking"
        self._tick(row)

    def _on_failure_found(self, event: FailureFound) -> None:
        row = self._row(event.name, event.path)
        if row is None:
            return
        row.failing, row.phase, row.examples = True, "shrinking", event.examples
        if self.live is None and not self.quiet:
            self._plain(
                f"{row.label}: falsified at example {row.examples_text().removeprefix('examples ')}; shrinking "
                f"({CTRL_C_NOTE})"
            )

    def _on_shrink_progress(self, event: ShrinkProgress) -> None:
        row = self._row(event.name, event.path)
        if row is None:
            return
        row.failing = True
        row.best, row.shrink_runs, row.shrink_elapsed, row.phase = event.steps, event.runs, event.elapsed, event.phase
        if event.phase != "shrinking":
            row.elapsed = time.perf_counter() - row.started  # no runs finish during this phase
        self._tick(row)

    def _on_machine_finished(self, event: MachineFinished) -> None:
        row = self.rows.get((event.path, event.name)) or Row(
            event.name, event.path, event.kind, max_examples=event.max_examples
        )
        row.examples, row.steps, row.elapsed, row.status = event.examples, event.steps, event.elapsed, event.status
        row.runs = event.runs or event.examples
        row.max_examples = event.max_examples or row.max_examples
        row.rejected = event.rejected
        self.finished(event, row)
        self._flush()

    def _on_store_warning(self, event: StoreWarning) -> None:
        """A store that failed (-q too): once, and after the report of the machine that met it, so a failure is shown
        first."""
        if event.message in self._told:
            return
        self._told.add(event.message)
        self._held.append(event.message)
        if self.current is None:
            self._flush()

    def _flush(self) -> None:
        for message in self._held:
            self._plain(Text(f"warning: {message}", style="yellow"))
        self._held.clear()

    def _on_load_failed(self, event: LoadFailed) -> None:
        self._plain(Text(f"ERROR {event.path}", style="bold red"))
        self._plain(Text(event.message))

    def _on_nothing_found(self, event: NothingFound) -> None:
        self._plain(Text(event.message))

    def _on_run_finished(self, event: RunFinished) -> None:
        """The end: the gas report, the coverage, then the summary line (none when nothing was found to run)."""
        summary = event.summary
        self._flush()
        if summary.gas is not None:
            self._gas(summary)
        if summary.coverage is not None:
            self._coverage(summary)
        if summary.nothing is None:
            self._summary(summary, event.written)

    def finished(self, event: MachineFinished, row: Row) -> None:
        if event.status in ("passed", "interrupted"):
            if not self.quiet:
                self._plain(row.final())
                if event.still_rising:
                    self._plain(
                        Text(
                            f"  still reaching new code: {late_progress(event)} first reached in the last quarter of "
                            "its runs",
                            style="yellow",
                        )
                    )
        elif event.status == "error":
            self._plain(Text(f"ERROR {event.path}::{event.name}", style="bold red"))
            self._plain(Text(event.error or ""))
            return
        else:
            self._failed(event, row)
        for line in optimum_lines(event.optima):
            self._plain(Text(line, style="dim" if line.startswith("    ") else "cyan"))
        for line in differential_lines(event.differential):
            self._plain(Text(line, style="dim" if line.startswith(("gas", "  ")) else "yellow"))
        if event.rules and not self.quiet:
            self._rules(event)
        if self.verbose and event.statistics:
            self._plain(Text("Hypothesis statistics:", style="dim"))
            for key, value in event.statistics.items():
                self._plain(Text(f"  {key}: {value}", style="dim"))

    def _failed(self, event: MachineFinished, row: Row) -> None:
        """A failure: its program, how it was shrunk and how minimal it is, and how to replay it."""
        self._plain(row.final())
        self._plain(Text(f"FAILED {event.path}::{event.name}", style="bold red"))
        assert event.failure is not None
        self._plain(Text(failure_text(event.failure)))
        failure = event.failure
        if failure.shrink is not None and failure.stopped != NOT_SHRUNK:
            self._plain(
                Text(
                    shrink_text(failure.shrink, event.kind, minimal=not (failure.interrupted or failure.stopped)),
                    style="dim",
                )
            )
        if failure.interrupted:
            self._plain(
                Text("interrupted while shrinking: this is the shortest failing program found so far", style="yellow")
            )
        elif failure.stopped and event.failure_id and failure.stopped.startswith(BUDGETS):
            self._plain(
                Text(
                    f"not minimal: shrinking stopped at {failure.stopped}; `evmstate shrink {event.failure_id}` "
                    "continues",
                    style="yellow",
                )
            )
        elif failure.stopped == NOT_SHRUNK:
            self._plain(Text(f"not shrunk: {NOT_SHRUNK} (add it to get the shortest program)", style="yellow"))
        elif failure.stopped:
            self._plain(
                Text(
                    f"shrinking stopped by {failure.stopped}: this is the shortest failing program found so far, "
                    "and it may not be minimal",
                    style="yellow",
                )
            )
        if event.failure_id:
            self._plain(f"replay with: evmstate replay {event.failure_id}")
        if self.verbose and event.failure.traceback:
            self._plain(Text("\nTraceback (user code):\n" + event.failure.traceback, style="dim"))

    def _rules(self, event: MachineFinished, warnings: bool = True) -> None:
        """Each rule's calls and reverts, the filters that skipped a rule, and the run's warnings (unless warnings is
        False)."""
        c = self.console
        table = Table(title=None, show_edge=False, box=None, pad_edge=False)
        table.add_column("rule", overflow="fold")
        table.add_column("calls", justify="right")
        table.add_column("reverted", justify="right")
        table.add_column("expected", justify="right")
        for name, s in event.rules.items():
            # reverted: its transactions that reverted, however it caught them; expected: inside reverts()
            table.add_row(name, str(s.calls), str(s.transactions_reverted), str(s.reverts))
        c.print(table)
        for name, s in event.rules.items():
            for arg, fs in s.filters.items():
                self._plain(
                    Text(
                        f"  {name}({arg}=<filtered>): enabled at {fs.enabled} steps, skipped at {fs.skipped} for "
                        "lack of a matching value",
                        style="dim",
                    )
                )
        for warning in event.run_warnings if warnings else ():
            self._plain(Text(f"warning: {warning}", style="yellow"))

    def _gas(self, summary: RunSummary) -> None:
        """The gas report: per contract function, calls and min / mean / median / max gas of those that succeeded."""
        stats = summary.gas
        assert stats is not None
        if not stats.functions:
            self._plain("gas: no contract was called")
            return
        table = Table(title=None, show_edge=False, box=None, pad_edge=False)
        for column in ("contract.function", "calls", "reverted", "min", "mean", "median", "max"):
            table.add_column(column, justify="left" if column == "contract.function" else "right", overflow="fold")
        for label in sorted(stats.functions):
            f = stats.functions[label]
            table.add_row(
                label, str(f.calls), str(f.reverted), str(f.min), f"{f.mean:.0f}", f"{f.median:.0f}", str(f.max)
            )
        self._plain(Text("gas used per call (of calls that did not revert):", style="bold"))
        self.console.print(table)

    def _coverage(self, summary: RunSummary) -> None:
        """The coverage: per source file (a module once, over every contract compiled from it), per deployed contract,
        then the lines never reached, per file as file:line ranges."""
        report = summary.coverage
        assert report is not None

        def table(head: str, rows: list[tuple[str, int, int, int, int]]) -> Table:
            t = Table(title=None, show_edge=False, box=None, pad_edge=False)
            for column in (head, "lines", "%", "branches", "%"):
                t.add_column(column, justify="left" if column == head else "right", overflow="fold")
            for name, lh, lt, bh, bt in rows:
                t.add_row(
                    name, f"{lh}/{lt}", f"{100.0 * lh / lt if lt else 100.0:.1f}%", f"{bh}/{bt}",
                    f"{100.0 * bh / bt if bt else 100.0:.1f}%",
                )
            return t

        files = [
            (report.shown(p), f.lines_hit, len(f.lines), f.branches_hit, len(f.branches))
            for p, f in report.files.items()
        ]
        self._plain(
            Text(
                "coverage by source file (a module once, over every contract compiled from it; constructors included):",
                style="bold",
            )
        )
        self.console.print(table("file", files))
        contracts = [
            (c.shown_name, c.lines_hit, c.lines_total, c.branches_hit, c.branches_total)
            for c in report.contracts
            if c.ran
        ]
        if contracts:
            self._plain(
                Text("coverage by deployed contract (its source and the modules compiled into it):", style="bold")
            )
            self.console.print(table("contract", contracts))
        idle = [c.shown_name for c in report.contracts if not c.ran]
        if idle:
            self._plain(Text(f"contracts whose code never ran: {', '.join(idle)}"))
        unreached = [text for path in report.files if (text := report.file_unreached_text(path))]
        if unreached:
            self._plain(Text("lines never reached:", style="bold"))
            for text in unreached:
                self._plain(Text(f"  {text}"))
        if report.unplaced:
            self._plain(Text(report.unplaced_text()))

    def _summary(self, summary: RunSummary, written: tuple[str, ...] = ()) -> None:
        passed = sum(r.status == "passed" for r in summary.results)
        failed = sum(r.status == "failed" for r in summary.results)
        errors = sum(r.status == "error" for r in summary.results) + sum(e.counted for e in summary.load_errors)
        style = "green" if summary.exit_code == 0 else "red"
        parts = [f"{passed} passed", f"{failed} failed"]
        if errors:
            parts.append(f"{errors} error{'s' if errors != 1 else ''}")
        if summary.interrupted:
            finished = sum(r.status != "interrupted" for r in summary.results)
            where = summary.stopped_in or "the run"
            for r in summary.results:
                if r.status == "interrupted":
                    where = f"{r.path}::{r.name} at example {r.examples}/{r.max_examples}"
            kept = " (the failure found is kept)" if failed else ""
            self._plain(
                Text(
                    f"interrupted by {stopped_by()} in {where}: {finished} of {summary.total} machines and tests "
                    f"finished{kept}",
                    style="yellow",
                )
            )
        for path in written:
            self._plain(f"wrote {path}")
        for r in summary.results:  # --keep-going: each failure with the runs that hit it
            if r.failure is not None and r.failure_id in r.hits:
                what = f"invariant {r.failure.invariant}" if r.failure.invariant else r.failure.error_type
                hits = r.hits[r.failure_id]
                steps = f"{r.failure.steps} step{'s' if r.failure.steps != 1 else ''}, " if r.kind == "machine" else ""
                runs = f"{hits} {'run' if r.kind == 'machine' else 'example'}{'s' if hits != 1 else ''}"
                line = f"  {r.failure_id}  {r.path}::{r.name}: {what}, {steps}hit by {runs}"
                self._plain(Text(line, style="dim"))
        rising = [r for r in summary.results if r.still_rising]
        if rising:
            parts.append(
                f"{len(rising)} still reaching new code when the budget ran out: search longer with "
                f"{longer_search(rising)}"
            )
        self._plain(Text(", ".join(parts), style=f"bold {style}"))
