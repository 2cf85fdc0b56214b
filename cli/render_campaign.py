"""Rendering fuzzing campaigns (runs over several workers use the one Renderer: it shows every running row)."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from evmstate.engine.events import MachineFinished
from evmstate.scale.events import CampaignFinished, CampaignProgress, CampaignStarted, CampaignSummary, FailureReplaced
from evmstate.scale.events import FailureTally, ItemTotals

from .render import Renderer, Row
from .texts import optimum_lines
from .signals import stopped_by


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


class CampaignRenderer(Renderer):
    """A campaign: a live status line, each failure as it comes, a summary at the end."""

    # without a terminal, a status line this often
    PLAIN_EVERY = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_plain = time.monotonic()

    def _on_campaign_started(self, event: CampaignStarted) -> None:
        budget = f"for {_duration(event.budget)}" if event.budget is not None else "until Ctrl-C"
        what = event.items[0] if len(event.items) == 1 else f"{len(event.items)} machines and tests"
        on = f", on {event.backend}" if event.backend != "pyevm" else ""
        self.console.print(f"fuzzing {what} {budget} on {event.workers}{on}")

    def _on_campaign_progress(self, event: CampaignProgress) -> None:
        line = progress_text(event)
        if self.live is not None:
            self.live.update(Text(line, style="dim"))
        elif not self.quiet and time.monotonic() - self._last_plain >= self.PLAIN_EVERY:
            self._last_plain = time.monotonic()
            self.console.print(Text(line, style="dim"))

    def _on_campaign_finished(self, event: CampaignFinished) -> None:
        """The end: the summary (none when nothing was found to fuzz)."""
        if self.live is not None:
            self.live.update(Text(""))
        if event.summary.nothing is None:
            self._campaign_summary(event.summary)
        for path in event.written:
            self._plain(f"wrote {path}")

    def _on_failure_replaced(self, event: FailureReplaced) -> None:
        saved = (
            f"record {event.new_id} holds it now"
            if event.new_id == event.old_id
            else f"{event.new_id} replaces {event.old_id}"
        )
        self._plain(
            Text(f"{event.key}: another shard shrank the same failure to {event.steps} steps; {saved}", style="yellow")
        )
        for line in event.program:
            self._plain(Text(f"  {line}"))
        self._plain(Text(f"replay with: evmstate replay {event.new_id}", style="dim"))

    def _rules(self, event: MachineFinished, warnings: bool = True) -> None:
        """A shard's rules, said to be that shard's; its warnings about rules only when it passed: a shard that failed
        may have made a few runs, too few to say that a rule never changed the state."""
        runs = "1 run" if event.examples == 1 else f"{event.examples} runs"
        self._plain(Text(f"the rules in this shard ({runs}):", style="dim"))
        super()._rules(event, warnings=warnings and event.status == "passed")

    def _on_machine_finished(self, event: MachineFinished) -> None:
        row = Row(event.name, event.path, event.kind)
        row.examples, row.steps, row.elapsed, row.status = event.examples, event.steps, event.elapsed, event.status
        self.finished(event, row)

    def _campaign_summary(self, summary: CampaignSummary) -> None:
        c = self.console
        rate = summary.steps / summary.elapsed if summary.elapsed > 0 else 0.0
        stopped = f" (stopped by {stopped_by()})" if summary.interrupted else ""
        c.print(
            Text(
                f"{_duration(summary.elapsed)}{stopped}: {summary.shards} shards, {summary.examples} runs, "
                f"{summary.steps} steps ({rate:.0f} steps/s)"
            )
        )
        if summary.branches is not None:
            c.print(Text(f"branches hit: {len(summary.branches)}"))
        if not self.quiet:
            for key, t in summary.items.items():
                corpus = f"; the last shard's corpus: {t.corpus}" if t.corpus is not None else ""
                line = f"  {key}: {item_status(t)}, {t.shards} shards, {t.examples} runs, {t.steps} steps{corpus}"
                c.print(Text(line, style="dim"))
                for tally in t.failures.values():
                    c.print(Text(f"    {failure_line(tally)}", style="dim"))
                if self.verbose and t.loop is not None:
                    c.print(Text(f"    evmstate's own loop (the last shard): {t.loop}", style="dim"))
                if t.status == "running":  # passed so far: what it never tested
                    for name in t.unexercised:
                        what = t.canaries[name].what or "the state it checks"
                        text = f"    warning: {name} was checked but never on {what}: it passed without testing"
                        text += " anything"
                        c.print(Text(text, style="yellow"))
        for key, found in summary.optima.items():
            c.print(Text(f"{key}:", style="cyan"))
            for line in optimum_lines(found.values()):
                self._plain(Text(f"  {line}", style="dim" if line.startswith("    ") else "cyan"))
        errors = len(summary.errors) + len(summary.load_errors)
        parts = [f"{len(summary.failures)} failure{'s' if len(summary.failures) != 1 else ''} found"]
        if errors:
            parts.append(f"{errors} error{'s' if errors != 1 else ''}")
        style = "red" if summary.failures or errors else "green"
        c.print(Text(", ".join(parts), style=f"bold {style}"))


def _runs(n: int) -> str:
    return f"{n} run{'s' if n != 1 else ''}"


def _hits(n: int) -> str:
    """Hits over several failures: a run that met two counts under each."""
    return f"{n} hit{'s' if n != 1 else ''}"


def _found(after: float | None, runs: int | None) -> str:
    return f"found {_duration(after)} in, after {_runs(runs or 0)}" if after is not None else ""


def item_status(t: ItemTotals) -> str:
    """A machine's state on the summary: no failure, never ran, error, or its failures with the runs that hit them and
    when the first was found."""
    status = t.status if t.status != "running" else "no failure" if t.shards else "never ran"
    if t.failures:
        n = len(t.failures)
        status += f": {n} distinct failure{'s' if n != 1 else ''}, {_hits(t.hits)}"
    if t.found_after is not None:
        found = _found(t.found_after, t.runs_before)
        status += f" (the first {found})" if len(t.failures) > 1 else f" ({found})"
    return status


def failure_line(t: FailureTally) -> str:
    """One distinct failure of a machine: its record, what and where, its program's length, the runs that hit it and
    when it was found."""
    where = t.identity.where.splitlines()[0] if t.identity.where else t.identity.detail
    steps = f"{t.steps} step{'s' if t.steps != 1 else ''}"
    found = _found(t.found_after, t.runs_before)
    at = f" at {where}" if where else ""
    return (
        f"{t.id}  {t.identity.kind} {t.identity.name}{at}: {steps}, hit by "
        f"{_runs(t.hits)}{f', {found}' if found else ''}"
    )


def progress_text(p: CampaignProgress) -> str:
    left = f", {_duration(max(0.0, p.budget - p.elapsed))} left" if p.budget is not None else ""
    if p.budget is not None and p.elapsed >= p.budget and p.running:
        # no shard starts a run any more; a failure being shrunk is finished first
        left = f", time is up: {p.shrinking} shrinking a failure" if p.shrinking else ", time is up: shards ending"
    branches = f", {p.branches} branches" if p.branches is not None else ""
    best = "".join(f", best {name} {value}" for name, value in p.best.items())
    return (
        f"{_duration(p.elapsed)}{left}: {p.shards} shards ({p.running} running), {p.examples} runs, "
        f"{p.steps} steps, {p.steps_per_second:.0f} steps/s{branches}, {p.failures} "
        f"failure{'s' if p.failures != 1 else ''}"
        + (f" ({_hits(p.hits)})" if p.hits > p.failures else "")
        + best
    )
