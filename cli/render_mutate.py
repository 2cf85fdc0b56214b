"""Rendering `evmstate mutate`: a progress bar while mutants are judged, then the report, survivors first."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from evmstate.engine.events import CompileFinished, ExitCode, LoadFailed, NothingFound, RunStarted, StoreWarning
from evmstate.mutate.report import (
    STATUSES, BaselineFinished, MutantFinished, MutateFinished, MutateStarted, MutationReport, grouped, percent, score,
)

from .render import Handler
from .signals import stopped_by

# without a terminal, a progress line this often
PLAIN_EVERY = 30.0


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def kill_text(kill: Any) -> str:
    """What killed a mutant: "ERC20Machine.invariant_balances (search, 3 steps)"."""
    how = {"saved failure": "a saved failure", "corpus": "the corpus replayed", "search": "search"}.get(
        kill.stage, kill.stage
    )
    steps = f", {_count(kill.steps, 'step')}" if kill.kind != "error" else f": {kill.error}"
    return f"{kill.by} ({how}{steps})"


class MutateRenderer(Handler):
    """Feeds the mutation run's events to the console: a bar on a terminal, a line now and then elsewhere."""

    def __init__(self, console: Console, *, quiet: bool = False, verbose: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self.verbose = verbose
        self.progress: Progress | None = None
        self.task: Any = None
        self.total = 0
        self._last_plain = time.monotonic()

    def __enter__(self) -> "MutateRenderer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop_bar()

    def _plain(self, text: Text | str) -> None:
        if self.progress is not None:
            self.progress.console.print(text, soft_wrap=True)
        else:
            self.console.print(text, soft_wrap=True)

    def _stop_bar(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def _on_run_started(self, event: RunStarted) -> None:
        if event.settings:
            self._plain(Text(f"settings: {event.settings}"))
        self._plain(f"seed: {event.seed} — rerun with --seed {event.seed}")

    def _on_compile_finished(self, event: CompileFinished) -> None:
        if not self.quiet:
            cached = f" ({event.cached} from the build cache)" if event.cached else ""
            self._plain(
                Text(f"compiled {_count(event.contracts, 'contract')} in {event.seconds:.1f}s{cached}", style="dim")
            )
        for warning in event.warnings:  # -q too: vyper's warnings are the user's to act on
            self._plain(Text(str(warning), style="yellow"))

    def _on_store_warning(self, event: StoreWarning) -> None:
        self._plain(Text(f"warning: {event.message}", style="yellow"))

    def _on_mutate_started(self, event: MutateStarted) -> None:
        self.total = event.mutants
        judges = event.judges[0] if len(event.judges) == 1 else f"{len(event.judges)} machines and tests"
        self._plain(f"mutating {', '.join(event.sources)}: {_count(event.mutants, 'mutant')}, judged by {judges}")
        if self.console.is_terminal and not self.quiet:
            self.progress = Progress(
                TextColumn("mutants"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                TimeElapsedColumn(), console=self.console, transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("", total=event.mutants)

    def _on_baseline_finished(self, event: BaselineFinished) -> None:
        o = event.outcome
        if o.status != "passed":
            path, _, name = o.key.partition("::")
            what = "failed" if o.status == "failed" else "ended in an error"
            self._plain(
                Text(
                    f"{o.key} {what} on the real contracts, so it judges no mutant: {o.message} (`evmstate run {path} "
                    f"-k {name}` shows it)",
                    style="yellow",
                )
            )
        elif self.verbose:
            self._plain(
                Text(
                    f"{o.key} passes on the real "
                    f"contracts{' (kept from the last run)' if o.cached else f' in {o.seconds:.1f}s'}",
                    style="dim",
                )
            )

    def _on_load_failed(self, event: LoadFailed) -> None:
        self._plain(Text(f"ERROR {event.path}", style="bold red"))
        self._plain(Text(event.message))

    def _on_nothing_found(self, event: NothingFound) -> None:
        self._plain(Text(event.message))

    def _on_mutant_finished(self, event: MutantFinished) -> None:
        o = event.outcome
        if self.progress is not None:
            self.progress.update(self.task, completed=event.done, description=f"last: {o.status}")
        elif not self.quiet and (self.verbose or time.monotonic() - self._last_plain >= PLAIN_EVERY):
            self._last_plain = time.monotonic()
            self._plain(Text(f"… {event.done}/{event.total} mutants judged", style="dim"))
        if self.verbose:
            self._plain(
                Text(
                    f"  {o.id} {o.source}:{o.line} {o.operator}: {o.status}{' (kept)' if o.cached else ''}", style="dim"
                )
            )

    def _on_mutate_finished(self, event: MutateFinished) -> None:
        """The end: the report, the files written, and why the command fails, if it does (nothing when nothing was
        mutated)."""
        self._stop_bar()
        report = event.report
        if report.nothing is not None:
            return
        self.report(report)
        for path in event.written:
            self.console.print(f"wrote {path}")
        if event.exit_code == ExitCode.USAGE_ERROR:
            self.console.print(
                Text(
                    "error: no machine or test that deploys these contracts passes on the real contracts, so none "
                    "judged a mutant: fix them first",
                    style="bold red",
                )
            )
        elif event.exit_code == ExitCode.FAILED:
            self.console.print(Text(f"the mutation score is below --min-score {event.min_score:g}%", style="bold red"))

    # -- the report --------------------------------------------------------------------------

    def report(self, report: MutationReport) -> None:
        """Survivors first, grouped by function; then the not covered, the killed (-v: each), the table, the score."""
        alive = report.by_status("survived")
        if alive:
            self._plain(
                Text(
                    f"survived: {len(alive)} mutant{'s' if len(alive) != 1 else ''} no invariant or rule noticed",
                    style="bold red",
                )
            )
            self._list(alive, lambda m: f"({m.operator})")
        uncovered = report.by_status("not covered")
        if uncovered:
            self._plain(
                Text(
                    f"not covered: {len(uncovered)} mutant{'s' if len(uncovered) != 1 else ''} on lines no run reached",
                    style="bold yellow",
                )
            )
            if self.verbose or len(uncovered) <= 10:
                self._list(uncovered, lambda m: f"({m.reason})" if m.reason else "")
        errors = report.by_status("error")
        if errors:
            self._plain(
                Text(
                    f"errors: {len(errors)} mutant{'s' if len(errors) != 1 else ''} could not be judged",
                    style="bold red",
                )
            )
            self._list(errors, lambda m: m.reason.splitlines()[0] if m.reason else "")
        killed = report.by_status("killed")
        if killed and self.verbose:
            self._plain(Text("killed:", style="bold green"))
            self._list(killed, lambda m: f"killed by {kill_text(m.kill)}" if m.kill else "")
        if killed and not self.quiet:
            self._plain(Text("killed by:", style="bold"))
            for by, n in report.killers():
                self._plain(Text(f"  {by}: {n}"))
        if self.verbose:
            for m in report.by_status("dropped"):
                self._plain(Text(f"  dropped {m.source}:{m.line} {m.diff}: {m.reason}", style="dim"))
        self.table(report)

    def _list(self, outcomes: list[Any], note: Any) -> None:
        for (source, function), group in grouped(outcomes):
            self._plain(Text(f"  {source} {function or '(module level)'}"))
            for m in group:
                extra = note(m)
                self._plain(Text(f"    {m.line}: {m.diff}" + (f"  {extra}" if extra else "")))

    def table(self, report: MutationReport) -> None:
        table = Table(title=None, show_edge=False, box=None, pad_edge=False)
        table.add_column("contract / function", overflow="fold")
        for s in STATUSES:
            table.add_column(s, justify="right")
        table.add_column("score", justify="right")
        for group, function, c in report.table():
            name = f"  {function}" if function else group
            table.add_row(name, *(str(c[s]) for s in STATUSES), percent(score(c)))
        self.console.print(table)
        found = report.counts
        judged = found["killed"] + found["survived"] + found["not covered"]
        style = "green" if not found["survived"] and not found["not covered"] else "yellow"
        dropped = f", {found['dropped']} dropped" if found["dropped"] else ""
        kept = sum(1 for m in report.mutants if m.cached)
        cached = f", {kept} verdicts kept from the last run" if kept else ""
        where = {"none needed": "no worker needed", "this process": "in this process"}.get(
            report.workers, f"on {report.workers}"
        )
        line = (
            f"mutation score {percent(report.score)}: {found['killed']} of {judged} killed{dropped}{cached}, in "
            f"{report.elapsed:.1f}s ({where})"
        )
        if report.interrupted:
            line += f" (interrupted by {stopped_by()}: the mutants judged so far)"
        self._plain(Text(line, style=f"bold {style}"))
