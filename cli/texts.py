"""The one-line texts the renderers print: counts, the seed line, how a program was shrunk, the optima, and the
command that searches longer."""

from __future__ import annotations

from typing import Any

from evmstate.engine.events import MachineFinished, RunStarted, ShrinkReport


def count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def optimum_lines(optima: Any) -> list[str]:
    """Each optimize method's best value, the shortest program found reaching it, and how to replay it."""
    lines = []
    for o in optima:
        steps = count(len(o.recorded), "step")
        steps += f", shrunk from {o.found_steps}" if o.found_steps != len(o.recorded) else ""
        steps += f"; shrinking stopped by {o.stopped}" if o.stopped else ""
        when = f"first reached after {count(o.runs, 'run')} ({o.seconds:.1f}s)"
        lines.append(f"{o.name}: best {o.value}, {when}, by ({steps}):")
        lines += [f"    {line}" for line in o.program]
        if o.record_id:
            lines.append(f"  replay with: evmstate replay {o.record_id}")
    return lines


def seed_line(event: RunStarted) -> str:
    """The seed that reruns the search, and what else decides it: saved examples replayed first, or --fresh."""
    if event.fresh:
        return (
            f"seed: {event.seed} — rerun with --seed {event.seed} --fresh (no saved examples are read or written: the "
            "seed alone decides the search)"
        )
    line = f"seed: {event.seed} — rerun with --seed {event.seed}"
    if event.replayed_first:
        line += f"; {event.replayed_first} are replayed first (--fresh: the seed alone decides the search)"
    return line


# what the summary suggests to a run whose coverage was still rising: a campaign of a few minutes
LONGER = "5m"


def late_progress(event: MachineFinished) -> str:
    """What a passing run still reached in its last quarter: '2 branches', '1 new kind of state (...)', or both."""
    parts = []
    if event.late_branches:
        parts.append(f"{event.late_branches} branch{'' if event.late_branches == 1 else 'es'}")
    if event.late_stages:
        kinds = "1 new kind" if event.late_stages == 1 else f"{event.late_stages} new kinds"
        parts.append(f"{kinds} of state (a variable holding a phase, a level or a flag took a value it never held)")
    return " and ".join(parts)


def longer_search(results: list[MachineFinished]) -> str:
    """The command that searches the given machines and tests longer: a timed campaign of their files (-k when one of
    several in a file)."""
    paths = sorted({r.path for r in results})
    command = f"evmstate fuzz --time {LONGER} {' '.join(paths)}"
    return command + (f" -k {results[0].name}" if len(results) == 1 else "")


def shrink_text(r: ShrinkReport, kind: str = "machine", minimal: bool = True) -> str:
    """One line on how the reported program (or a property test's example) was shrunk, how minimal it is, and where the
    time went.

    minimal: shrinking ran to its end (otherwise the report says why it stopped).
    """
    # Hypothesis does not shrink again a saved example that replays exactly
    saved = "replayed a saved example; " if r.replayed else ""
    if kind == "test":
        return f"{saved}shrunk in {r.seconds:.1f}s ({count(r.runs, 'run')})"
    shortest = f", {r.minimality}{MINIMALITY_NOTE.get(r.minimality, '')}," if minimal and r.minimality else ""
    work = [count(r.runs, "Hypothesis run")] if r.runs else []
    # a run on py-evm replays its candidates on revm, and the program it ends with on py-evm (docs/shrinking.md)
    work += [f"replays on {r.replayed_on} (the program confirmed on py-evm)"] if r.replayed_on else []
    work += [f"{name} {count(runs, 'replay')} {seconds:.1f}s" for name, (runs, seconds) in r.passes.items()]
    if not r.passes and r.replays:
        work.append(count(r.replays, "replay"))
    if r.workers > 1:  # -n: idle workers' slots replayed candidates too
        work.append(f"on {r.workers} workers: {r.helped} of the replays by helpers")
    return (
        f"{saved}shrunk from {r.first_steps} to {count(r.steps, 'step')}{shortest} in {r.seconds:.1f}s "
        f"({', '.join(work) or 'nothing to try'})"
    )


# what Failure.stopped begins with when a budget, not an error, ended shrinking
BUDGETS = ("the shrink budget", "the end of the campaign", "the wall-clock safety stop")
# what each minimality means, said once in the shrink line
MINIMALITY_NOTE = {
    "1-minimal": " (no single step can be removed)",
    "minimal among programs that delete up to two steps": "",
}