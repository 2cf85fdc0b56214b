"""Rendering what is done with saved failures (replay, shrink, the list, prune) and the compile listing."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from evmstate import config as config_mod
from evmstate.engine.events import (
    FailurePruned, ReplayFinished, ReplayStarted, ReplayStep, SavedFailure, ShrinkFinished, ShrinkStarted,
)
from evmstate.runner import Compiled, numbered

from .render import Handler
from .texts import count, shrink_text
from .signals import stopped_by


class ReplayRenderer(Handler):
    """`evmstate replay`: each step as it is replayed, then the verdict."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def _on_replay_started(self, event: ReplayStarted) -> None:
        self.console.print(f"replaying {event.id}: {event.path}::{event.name}")
        if event.interrupted:
            self.console.print(
                Text(
                    "saved from a run stopped by Ctrl-C while shrinking: the program may not be the shortest",
                    style="yellow",
                )
            )
        elif event.stopped:
            self.console.print(
                Text(
                    f"saved when shrinking was stopped by {event.stopped}: the program may not be the shortest",
                    style="yellow",
                )
            )

    def _on_replay_step(self, step: ReplayStep) -> None:
        c = self.console
        c.print(Text(numbered(step.index, step.line)))
        for line in step.chain:
            c.print(Text(f"     {line}", style="dim"))
        if step.return_value is not None:
            c.print(Text(f"     -> {step.return_value}", style="dim"))
        for e in step.events:
            c.print(Text(f"     event {e}", style="dim"))
        for r in step.reverts:
            c.print(Text(f"     reverted as expected: {r}", style="dim"))
        if step.error:
            where = f"invariant {step.invariant} failed: " if step.invariant else ""
            c.print(Text(f"     {where}{step.error}", style="red"))

    def _on_replay_finished(self, event: ReplayFinished) -> None:
        result = event.result
        if result.changed:
            self.console.print(
                Text("sources changed since the failure was recorded: " + ", ".join(result.changed), style="yellow")
            )
        if result.verdict in ("reaches", "falls short"):
            reached = "no value" if result.value is None else f"{result.value}"
            how = "reaches the saved value" if result.verdict == "reaches" else "falls short of the saved value"
            style = "bold green" if result.verdict == "reaches" else "bold yellow"
            self.console.print(Text(f"{how}: {event.id} reaches {reached} (saved: {result.saved})", style=style))
        elif result.verdict == "fixed":
            self.console.print(Text(f"fixed: {event.id} no longer fails", style="bold green"))
        elif result.verdict == "still fails":
            self.console.print(Text(f"still fails: {result.error_type}: {result.message}", style="bold red"))
        else:
            self.console.print(
                Text(
                    f"fails differently: {result.error_type}: {result.message}\n  recorded: {event.recorded}",
                    style="bold red",
                )
            )


class ShrinkRenderer(Handler):
    """`evmstate shrink`: the record shrunk, then the shorter program saved, or why nothing was saved."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def _on_shrink_started(self, event: ShrinkStarted) -> None:
        self.console.print(f"shrinking {event.id}: {event.path}::{event.name}, {count(event.steps, 'step')}")

    def _on_shrink_finished(self, event: ShrinkFinished) -> None:
        c = self.console
        if event.verdict == "fixed":
            c.print(Text(f"fixed: {event.id} no longer fails", style="bold green"))
            return
        if event.verdict == "fails differently":
            c.print(Text(f"fails differently: {event.message}\n  recorded: {event.recorded}", style="bold red"))
            return
        c.print(Text(f"\nFalsifying example ({event.steps} step{'s' if event.steps != 1 else ''}):"))
        for line in event.program:
            c.print(Text(line))
        if event.report is not None:
            c.print(
                Text(
                    shrink_text(event.report, minimal=event.verdict != "stopped" and not event.interrupted), style="dim"
                )
            )
        if event.interrupted:
            c.print(
                Text(
                    f"interrupted by {stopped_by()} while shrinking: this is the shortest failing program found so "
                    f"far; `evmstate shrink {event.new_id}` continues",
                    style="yellow",
                )
            )
        elif event.verdict == "stopped":
            c.print(
                Text(
                    f"not minimal: shrinking stopped at {event.stopped}; `evmstate shrink {event.new_id}` continues",
                    style="yellow",
                )
            )
        elif event.verdict == "minimal":
            tried = f" ({', '.join(event.report.tried)})" if event.report is not None and event.report.tried else ""
            c.print(
                Text(
                    f"nothing more could go: a round of the passes{tried} changed nothing; the saved program was "
                    "already as short as these passes make it",
                    style="dim",
                )
            )
        if event.unsaved is not None:
            c.print(Text(f"warning: {event.unsaved}", style="yellow"), soft_wrap=True)
            c.print(Text(f"the saved record {event.id} is as it was", style="dim"))
        c.print(f"replay with: evmstate replay {event.new_id}")


def failures_table(console: Console, failures: list[SavedFailure], check: bool) -> None:
    """`evmstate failures`: one row per saved failure (with --check, whether it still fails)."""
    if not failures:
        console.print("no saved failures")
        return
    table = Table(box=None, show_edge=False, pad_edge=False)
    for col in ("id", "machine", "error", "age", "sources", *(("replay",) if check else ())):
        table.add_column(col, overflow="fold")
    for f in failures:
        age = _age(f.created) if f.created is not None else "-"
        # as text, not markup: a message may hold "[fuzz]" or "balances[accounts]"
        cells = (f.id, f.machine, f.error, age, f.sources, *((f.replay,) if check else ()))
        table.add_row(*(Text(cell) for cell in cells))
    console.print(table)


def _age(created: float) -> str:
    seconds = max(0, int(time.time() - created))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


class PruneRenderer(Handler):
    """`evmstate failures prune`: each failure removed or kept as it is checked, then the counts."""

    def __init__(self, console: Console, dry_run: bool) -> None:
        self.console, self.dry_run = console, dry_run
        self.removed = self.kept = 0

    def _on_failure_pruned(self, event: FailurePruned) -> None:
        if event.removed:
            self.console.print(Text(f"{'would remove' if self.dry_run else 'removed'} {event.id} ({event.shown})"))
            self.removed += 1
        else:
            self.console.print(Text(f"kept {event.id} ({event.shown})"))
            self.kept += 1

    def counts(self) -> None:
        self.console.print(f"{'would remove' if self.dry_run else 'removed'} {self.removed}, kept {self.kept}")


def compile_listing(console: Console, compiled: Compiled) -> None:
    """`evmstate compile`: each contract (size, where it came from, its functions), then the modules, vyper's warnings
    and errors."""
    build = compiled.build
    for name in build.sources:
        art = build.artifacts.get(name)
        origin = "precompiled" if art is not None and art.origin else "cached" if name in build.cached else "compiled"
        if art is None:
            console.print(Text(f"{name:20s} {'error':>12s}  {origin:8s}  does not compile (below)"))
            continue
        fns = sorted({e["name"] for e in art.abi if e.get("type") == "function"})  # an overload by arity once
        release = f"  (vyper {art.vyper}, as its pragma pins)" if art.vyper not in ("", compiled.vyper) else ""
        if art.origin:
            release = f"  ({art.origin}: {config_mod.shown(Path(art.path))})"
        console.print(Text(f"{name:20s} {len(art.bytecode_runtime):6d} bytes  {origin:8s}  {', '.join(fns)}{release}"))
    if compiled.note:
        console.print(Text(compiled.note, style="dim"))
    for m in build.modules:
        if m.importers:
            note = f"imported by {', '.join(m.importers)}"
            if m.name in build.artifacts and m.in_project:
                note += "; also deployable on its own"
        else:
            note = m.reason
        console.print(Text(f"module {m.name:13s} {m.shown}  {note}"))
    for warning in build.warnings:
        console.print(Text(str(warning), style="yellow"), soft_wrap=True)
    if build.cache_error is not None:
        console.print(Text(f"warning: {build.cache_error}", style="yellow"), soft_wrap=True)
    for name, error in build.errors.items():
        console.print(Text(f"\nerror: contract {name!r} does not compile:\n{error}", style="red"))
