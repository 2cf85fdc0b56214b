"""JUnit XML and JSON summaries of a run, for CI systems."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree as ET

from .engine.events import Failure, MachineFinished
from .engine.events import RunSummary
from .files import write_atomic

# types only: the texts of a failure load neither Hypothesis nor vyper (`evmstate failures`, replay's renderer)
if TYPE_CHECKING:
    from .engine.trace import Trace, TracedCall


def _call_text(c: TracedCall) -> list[str]:
    if c.kind == "chain":  # a write no transaction made: chain.set_storage(...), deal(...)
        return [c.call]
    options = []
    if c.kind != "call":
        options.append(f"from: {c.sender}")
    if c.value:
        options.append(f"value: {c.value}")
    line = c.call + (f" {{{', '.join(options)}}}" if options else "")
    if c.returned is not None:
        line += f" -> {c.returned}"
    line += f"  gas {c.gas_used}" + ("" if c.kind != "call" else " (call)")
    lines = [line]
    lines += [f"  emit {e}" for e in c.events]
    lines += [f"  inner call failed: {i}" for i in c.inner]
    if c.reverted is not None:
        lines.append(f"  reverted: {c.reverted}")
    return lines


def numbered(index: int, line: str) -> str:
    """A program's step under its number; a step that waits shows its chain.sleep()/chain.mine() lines first,
    aligned."""
    return f"{index:>3}. " + line.replace("\n", "\n     ")


def trace_text(trace: Trace) -> str:
    """What the reported program did, step by step: calls, return values, events, gas, reverts."""
    lines = ["Trace:" if trace.reproduced else f"Trace ({trace.note}):"]
    for step in trace.steps:
        if step.kind == "step":
            head = numbered(step.index, step.line)
        elif step.kind == "invariant":
            head = f"     {step.line}" + (" failed" if step.error else "")
        else:
            head = f"     {step.line}"
        if step.returned is not None:
            head += f" -> {step.returned}"
        lines.append(head)
        for c in step.calls:
            lines += [f"       {text}" for text in _call_text(c)]
        if step.error:
            lines.append(f"       {step.error.splitlines()[0]}")
    if not trace.steps and trace.note:
        lines = [f"Trace: {trace.note}"]
    return "\n".join(lines)


def failure_text(f: Failure) -> str:
    """The failure as plain text: the error, where it happened, the shrunk program, its trace and output."""
    lines = []
    if f.invariant:
        lines.append(f"Invariant {f.name}.{f.invariant} failed: {f.error_type}: {f.message}")
    else:
        lines.append(f"{f.error_type}: {f.message}")
    if f.location:
        lines.append(f"  at {f.location}")
    lines.append("")
    if f.program and f.program[0].startswith("state = "):
        lines.append(f"Falsifying example ({f.steps} step{'s' if f.steps != 1 else ''}):")
    else:
        lines.append("Falsifying example:")
    lines.extend(f.program)
    if f.notes:
        lines += ["", *(f"Note: {note}" for note in f.notes)]
    if f.trace is not None:
        lines += ["", trace_text(f.trace)]
        if f.trace.output.strip():
            lines += ["", "Captured output of the reported program:", f.trace.output.rstrip()]
    return "\n".join(lines)


def result_text(result: MachineFinished) -> str:
    """failure_text() followed by the replay command."""
    assert result.failure is not None
    text = failure_text(result.failure)
    if result.failure_id:
        text += f"\n\nreplay with: evmstate replay {result.failure_id}"
    return text



def write_junit(summary: RunSummary, path: Path) -> None:
    """One testcase per machine or property test; failures carry the program and the replay command."""
    suite = ET.Element(
        "testsuite",
        name="evmstate",
        tests=str(len(summary.results) + len(summary.load_errors)),
        failures=str(sum(r.status == "failed" for r in summary.results)),
        errors=str(sum(r.status == "error" for r in summary.results) + sum(e.counted for e in summary.load_errors)),
        skipped=str(sum(r.status == "interrupted" for r in summary.results)),
        time=f"{sum(r.elapsed for r in summary.results):.3f}",
    )
    if summary.seed is not None or summary.interrupted:
        properties = ET.SubElement(suite, "properties")
        if summary.seed is not None:
            ET.SubElement(properties, "property", name="seed", value=str(summary.seed))
        if summary.interrupted:
            ET.SubElement(properties, "property", name="interrupted", value=summary.stopped_in or "yes")
    for r in summary.results:
        case = ET.SubElement(
            suite, "testcase", classname=r.path.replace("/", ".").removesuffix(".py"), name=r.name,
            time=f"{r.elapsed:.3f}",
        )
        if r.status == "failed" and r.failure is not None:
            el = ET.SubElement(
                case, "failure", type=r.failure.error_type,
                message=r.failure.message.splitlines()[0] if r.failure.message else "",
            )
            el.text = result_text(r)
            if r.failure.trace is not None and r.failure.trace.output:
                ET.SubElement(case, "system-out").text = r.failure.trace.output
        elif r.status == "interrupted":
            ET.SubElement(
                case, "skipped", message=f"interrupted by Ctrl-C after {r.examples}/{r.max_examples} examples"
            )
        elif r.status == "error":
            el = ET.SubElement(case, "error", message=(r.error or "").splitlines()[0] if r.error else "")
            el.text = r.error
        if r.warnings:
            ET.SubElement(case, "system-err").text = "".join(f"warning: {w}\n" for w in r.warnings)
    for e in summary.load_errors:
        case = ET.SubElement(suite, "testcase", classname=e.path, name="load")
        ET.SubElement(case, "error", message=e.message.splitlines()[0]).text = e.message
    write_atomic(path, ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n")


def _failure_json(f: Failure) -> dict[str, Any]:
    shrink = f.shrink
    return {
        "type": f.error_type,
        "message": f.message,
        "invariant": f.invariant,
        "revert_reason": f.revert_reason,
        "location": f.location,
        "traceback": f.traceback,
        "steps": f.steps,
        "program": f.program,
        "interrupted": f.interrupted,
        "stopped": f.stopped,
        "notes": list(f.notes),
        "call_failure": f.call_failure,
        "trace": None if f.trace is None else f.trace.to_dict(),
        "shrink": None
        if shrink is None
        else {
            "seconds": round(shrink.seconds, 3),
            "first_steps": shrink.first_steps,
            "hypothesis_steps": shrink.hypothesis_steps,
            "steps": shrink.steps,
            "runs": shrink.runs,
            "replays": shrink.replays,
            "replayed": shrink.replayed,
            "minimality": shrink.minimality or "not minimal",  # shrinking stopped at its budget ("stopped" says which)
            "passes": {
                name: {"replays": runs, "seconds": round(seconds, 3), "work": shrink.gains.get(name, (0,))[0]}
                for name, (runs, seconds) in shrink.passes.items()
            },
            "work": sum(
                work for work, _, _ in shrink.gains.values()
            ),  # replayed steps, as the budget counts them (shrink/budget.py)
            "tried": list(shrink.tried),
            "replayed_on": shrink.replayed_on or None,
            "workers": shrink.workers,
            "helper_replays": shrink.helped,
        },
    }


def result_json(r: MachineFinished) -> dict[str, Any]:
    """One machine or test's result: its runs, per-rule statistics, failure and its id."""
    return {
        "path": r.path,
        "name": r.name,
        "kind": r.kind,
        "status": r.status,
        "seed": r.seed,
        "examples": r.examples,
        "max_examples": r.max_examples,
        "runs": r.runs,
        "rejected": r.rejected,
        "late_branches": r.late_branches,
        "late_stages": r.late_stages,
        "steps": r.steps,
        "elapsed": round(r.elapsed, 3),
        "phases": {name: round(seconds, 3) for name, seconds in r.phases.items()},
        "rules": {
            name: {
                "calls": s.calls,
                "reverts": s.reverts,
                "transactions": s.transactions,
                "transactions_reverted": s.transactions_reverted,
                "filters": {arg: {"enabled": f.enabled, "skipped": f.skipped} for arg, f in s.filters.items()},
            }
            for name, s in r.rules.items()
        },
        "never_run": r.never_run,
        "all_reverted": r.all_reverted,
        "mostly_reverted": r.mostly_reverted,
        "unexercised": r.unexercised,
        "left_out": dict(r.left_out),
        "warnings": r.warnings,
        "failure_id": r.failure_id,
        "error": r.error,
        "machine_error": r.broken,  # the error is a mistake of the machine's own code (see MachineFinished.broken)
        "failure": None if r.failure is None else _failure_json(r.failure),
        "differential": r.differential,
        # runs that failed as a failure found before (keep-going), by its id; under run --keep-going, the result's own
        "hits": dict(r.hits),
        "optima": [optimum_json(o) for o in r.optima],
    }


def optimum_json(o: Any) -> dict[str, Any]:
    """An optimize method's best value (engine.events.Optimum): the value, the program reaching it, its record."""
    return {
        "name": o.name, "value": o.value, "program": o.program, "steps": len(o.recorded), "found_steps": o.found_steps,
        "found_after": round(o.seconds, 3), "runs_before": o.runs, "stopped": o.stopped, "record_id": o.record_id,
    }


def differential_lines(notes: dict[str, Any] | None) -> list[str]:
    """A differential run's notes as a machine's report says them: what was told apart, the expected differences met,
    both sides' gas."""
    if not notes:
        return []
    a, b = notes.get("labels") or ("A", "B")
    lines = []
    for what, count, ours, theirs in notes.get("apart", ()):
        lines.append(
            f"told apart, the compiler's and not the contract's: {what} ({count} call{'s' if count != 1 else ''}; "
            f"first: {ours} on A ({a}), {theirs} on B ({b}))"
        )
    for what, count in notes.get("expected", {}).items():
        lines.append(f"expected difference met: {what} ({count} call{'s' if count != 1 else ''})")
    gas = notes.get("gas") or {}
    if gas:
        lines.append(f"gas per call, mean: A ({a}) / B ({b}):")
        for function, (calls, on_a, on_b) in sorted(gas.items()):
            change = f"{100.0 * (on_b - on_a) / on_a:+.1f}%" if on_a else "n/a"
            lines.append(
                f"  {function}: {on_a / calls:.0f} / {on_b / calls:.0f} ({change}, {calls} "
                f"call{'s' if calls != 1 else ''})"
            )
    return lines


def to_json(summary: RunSummary) -> dict[str, Any]:
    """A summary with the seed, versions, per-rule statistics, failures and their ids."""
    return {
        "exit_code": summary.exit_code,
        "interrupted": summary.interrupted,
        "stopped_in": summary.stopped_in,
        "seed": summary.seed,
        "versions": _versions(),
        "results": [result_json(r) for r in summary.results],
        "load_errors": [{"path": e.path, "message": e.message} for e in summary.load_errors],
        "gas": None if summary.gas is None else summary.gas.to_dict(),
        "compile_warnings": [w.to_dict() for w in summary.warnings],
        "store_warnings": summary.store_warnings,
        "coverage": None if summary.coverage is None else summary.coverage.to_dict(),
    }


def write_json(summary: RunSummary, path: Path) -> None:
    write_atomic(path, json.dumps(to_json(summary), indent=2) + "\n")


def campaign_json(summary: Any) -> dict[str, Any]:
    """A campaign's summary (evmstate.scale.events.CampaignSummary): its totals, each machine's and test's, and the
    failures and errors as `evmstate run --json` gives a result."""
    return {
        "exit_code": summary.exit_code,
        "interrupted": summary.interrupted,
        "seed": summary.seed,
        "versions": _versions(),
        "workers": summary.workers,
        "elapsed": round(summary.elapsed, 3),
        "cpu": round(summary.cpu, 3),
        "shards": summary.shards,
        "examples": summary.examples,
        "steps": summary.steps,
        "branches": None if summary.branches is None else len(summary.branches),
        "items": {
            key: {
                "status": t.status,
                "shards": t.shards,
                "examples": t.examples,
                "steps": t.steps,
                "own loop": t.loop,
                **_sighting(t),
                "failures": [_tally_json(f) for f in t.failures.values()],
            }
            for key, t in summary.items.items()
        },
        "failures": [{**result_json(r), **_failure_sighting(summary, r)} for r in summary.failures],
        # each machine's best value of each optimize method, over every shard; found_after from the campaign's start
        "optima": {key: [optimum_json(o) for o in found.values()] for key, found in summary.optima.items()},
        "errors": [result_json(r) for r in summary.errors],
        "load_errors": [{"path": e.path, "message": e.message} for e in summary.load_errors],
        "store_warnings": summary.store_warnings,
    }


def _sighting(totals: Any) -> dict[str, Any]:
    """A campaign's failure as it was first seen: seconds from the campaign's start, and the machine's runs before
    it."""
    if totals is None or totals.found_after is None:
        return {}
    return {"found_after": round(totals.found_after, 3), "runs_before": totals.runs_before}


def _failure_sighting(summary: Any, result: Any) -> dict[str, Any]:
    """A campaign's failure: its first sighting, and how many runs hit it (CampaignSummary.tally)."""
    tally = summary.tally(result)
    if tally is None:
        return _sighting(summary.items.get(f"{result.path}::{result.name}"))
    return {**_sighting(tally), "hits": tally.hits, "identity": tally.identity.to_dict()}


def _tally_json(tally: Any) -> dict[str, Any]:
    """One distinct failure of a machine over a campaign (scale.events.FailureTally)."""
    return {"id": tally.id, **tally.identity.to_dict(), "steps": tally.steps, "hits": tally.hits, **_sighting(tally)}


def write_campaign_json(summary: Any, path: Path) -> None:
    write_atomic(path, json.dumps(campaign_json(summary), indent=2) + "\n")


def _versions() -> dict[str, str]:
    from .engine.records import versions

    return versions()
