"""The evmstate command: run, compile. Thin: all work is done by the evmstate library."""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from evmstate import __version__
from evmstate import config as config_mod
from evmstate.errors import EvmStateError

from .fork import chosen_fork, fork_block as parsed_block, fork_options
from .render import Renderer


# off a terminal (CI logs, pipes, files) lines are never wrapped nor cut: as wide as they are
UNLIMITED = 1_000_000


def _console(stderr: bool = False) -> Console:
    """A console bound to the stream as it is now: the terminal's width, or unlimited when not a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    console = Console(file=stream, no_color=bool(os.environ.get("NO_COLOR")), highlight=False)
    if not console.is_terminal:
        console = Console(file=stream, no_color=bool(os.environ.get("NO_COLOR")), highlight=False, width=UNLIMITED)
    return console


def _chosen_backend(cfg: Any, backend: str | None, check: bool = False) -> Any:
    """cfg with --backend and --backend-check applied over [backend]."""
    if backend is None and not check:
        return cfg
    return cfg.replace(backend=config_mod.BackendConfig(name=backend or cfg.backend.name, check=check or cfg.backend.check, named=backend is not None or cfg.backend.named))


BACKEND_HELP = "The EVM to run on: pyevm or revm (pip install \"evmstate[revm]\"); default: [backend] name, else pyevm."


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="evmstate")
def cli() -> None:
    """Stateful property testing of Vyper contracts on an in-process EVM."""


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("-k", "keyword", metavar="EXPR", help="Only run machines and tests whose name matches EXPR.")
@click.option("--only-stateful", is_flag=True, help="Run only state machines.")
@click.option("--no-stateful", is_flag=True, help="Run only property tests.")
@click.option("--max-examples", type=click.IntRange(min=1), help="Runs per machine (default from evmstate.toml, else 50).")
@click.option("--steps", type=click.IntRange(min=1), help="Steps per run (stateful_step_count).")
@click.option("--seed", type=int, help="Seed the search; every run prints its seed, give it back to reproduce the run.")
@click.option("-n", "--workers", "workers", default="1", metavar="N|auto", help="Run machines and tests in N worker processes at once (auto: one per core).")
@click.option("--shards", type=click.IntRange(min=1), default=1, help="Split each machine's examples over this many seeds, run as separate tasks (with -n, at once).")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of user code and Hypothesis statistics.")
@click.option("-s", "--no-capture", is_flag=True, help="Let what machines and tests print through as they run (by default it is shown only for the reported program).")
@click.option("--gas", is_flag=True, help="Report gas per contract function: calls, min / mean / median / max.")
@click.option("--coverage", is_flag=True, help="Report the contracts' Vyper lines and branches reached, and the lines never reached.")
@click.option(
    "--coverage-report",
    "coverage_reports",
    type=(click.Choice(["lcov", "html", "json"]), click.Path(dir_okay=False, path_type=Path)),
    multiple=True,
    metavar="lcov|html|json PATH",
    help="Also write the coverage as an lcov tracefile (genhtml, editors' gutters), an HTML page or JSON; implies --coverage; may be repeated.",
)
@click.option("--junit-xml", type=click.Path(dir_okay=False, path_type=Path), help="Write a JUnit XML report here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON summary here.")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
@click.option("--backend-check", is_flag=True, help="Run every call on revm and py-evm side by side and report the first difference.")
@fork_options
def run(
    paths: tuple[str, ...],
    keyword: str | None,
    only_stateful: bool,
    no_stateful: bool,
    max_examples: int | None,
    steps: int | None,
    seed: int | None,
    workers: str,
    shards: int,
    quiet: bool,
    verbose: bool,
    no_capture: bool,
    gas: bool,
    coverage: bool,
    coverage_reports: tuple[tuple[str, Path], ...],
    junit_xml: Path | None,
    json_path: Path | None,
    backend: str | None,
    backend_check: bool,
    fork_url: str | None,
    fork_block: str | None,
) -> None:
    """Compile contracts/ and run the state machines and property tests in machines/ (or PATHS)."""
    from evmstate.scale.parallel import parse_workers
    from evmstate.reports import write_json, write_junit
    from evmstate.runner import Overrides, RunOptions, run as run_all

    cfg = chosen_fork(_chosen_backend(config_mod.load(), backend, backend_check), fork_url, fork_block)
    console = _console()
    n = parse_workers(workers)
    options = RunOptions(
        paths, keyword, only_stateful, no_stateful, Overrides(max_examples, steps, seed), capture=not no_capture, gas=gas, workers=n, shards=shards,
        coverage=coverage or bool(coverage_reports),
    )
    with Renderer(console, quiet=quiet, verbose=verbose) as renderer:
        summary = run_all(cfg, options, renderer)
    # written even after Ctrl-C: they hold what finished
    written = []
    if junit_xml is not None:
        write_junit(summary, junit_xml)
        written.append(str(junit_xml))
    if json_path is not None:
        write_json(summary, json_path)
        written.append(str(json_path))
    if summary.coverage is not None:
        for kind, path in coverage_reports:
            summary.coverage.write(kind, path)
            written.append(str(path))
    if summary.gas is not None:
        renderer.gas(summary.gas)
    if summary.coverage is not None:
        renderer.coverage(summary.coverage)
    if summary.nothing is None:
        renderer.summary(summary, tuple(written))
    sys.exit(summary.exit_code)


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--time", "budget", metavar="DURATION", help="How long to fuzz: 30s, 10m, 1h, 1h30m (default: until Ctrl-C).")
@click.option("-k", "keyword", metavar="EXPR", help="Only fuzz machines and tests whose name matches EXPR.")
@click.option("-n", "--workers", "workers", default="auto", metavar="N|auto", help="Local worker processes (default auto: one per core).")
@click.option("--cluster", metavar="ADDRESS", help="Run shards on the Dask scheduler at ADDRESS (tcp://host:8786) instead of local processes.")
@click.option("--max-examples", type=click.IntRange(min=1), help="Runs per shard (default from evmstate.toml, else 50).")
@click.option("--steps", type=click.IntRange(min=1), help="Steps per run (stateful_step_count).")
@click.option("--seed", type=int, help="The campaign's seed: shard i of a machine runs under a seed made of it, the machine and i.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of user code and Hypothesis statistics.")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
@fork_options
def fuzz(
    paths: tuple[str, ...],
    budget: str | None,
    keyword: str | None,
    workers: str,
    cluster: str | None,
    max_examples: int | None,
    steps: int | None,
    seed: int | None,
    quiet: bool,
    verbose: bool,
    backend: str | None,
    fork_url: str | None,
    fork_block: str | None,
) -> None:
    """Fuzz machines and tests for a time budget: shards of (machine, seed) over workers, failures saved as found."""
    from evmstate.scale.campaign import CampaignOptions, fuzz as run_campaign, parse_duration
    from evmstate.scale.parallel import parse_workers
    from evmstate.runner import Overrides

    from .render_workers import CampaignRenderer

    seconds = parse_duration(budget) if budget is not None else None
    n = parse_workers(workers)
    cfg = chosen_fork(_chosen_backend(config_mod.load(), backend), fork_url, fork_block)
    console = _console()
    options = CampaignOptions(paths, keyword, Overrides(max_examples, steps, seed), seconds, n, cluster)
    with CampaignRenderer(console, quiet=quiet, verbose=verbose) as renderer:
        summary = run_campaign(cfg, options, renderer)
    if summary.nothing is None:
        renderer.campaign_summary(summary)
    sys.exit(summary.exit_code)


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("-k", "keyword", metavar="EXPR", help="Only machines and tests whose name matches EXPR judge the mutants.")
@click.option("--contract", "contracts", multiple=True, metavar="NAME", help="Mutate only this contract, or module (by name or path, as imports write it; an installed package's too); may be repeated.")
@click.option("--function", "functions", multiple=True, metavar="NAME", help="Mutate only this function (of the sources mutated); may be repeated.")
@click.option("--time", "budget", metavar="DURATION", help="How long each machine or test may search each mutant, at most (30s, 2m; default: no limit but the runs).")
@click.option("--max-examples", type=click.IntRange(min=1), help="Runs each machine or test searches each mutant (default from evmstate.toml, else 50).")
@click.option("--steps", type=click.IntRange(min=1), help="Steps per run (stateful_step_count).")
@click.option("--seed", type=int, help="The seed every judge searches under (default: [hypothesis] seed, else 0).")
@click.option("-n", "--workers", "workers", default="auto", metavar="N|auto", help="Local worker processes (default auto: one per core; 1 runs in this process).")
@click.option("--cluster", metavar="ADDRESS", help="Compile and judge the mutants on the Dask scheduler at ADDRESS (tcp://host:8786).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the report as JSON here.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the report as an HTML page here: each source with its mutants under their lines.")
@click.option("--min-score", type=click.FloatRange(0, 100), metavar="PERCENT", help="Exit 1 when the mutation score is below PERCENT.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the survivors, the table and the score.")
@click.option("-v", "--verbose", is_flag=True, help="Also each killed and dropped mutant, and each mutant as it is judged.")
def mutate(
    paths: tuple[str, ...],
    keyword: str | None,
    contracts: tuple[str, ...],
    functions: tuple[str, ...],
    budget: str | None,
    max_examples: int | None,
    steps: int | None,
    seed: int | None,
    workers: str,
    cluster: str | None,
    json_path: Path | None,
    html_path: Path | None,
    min_score: float | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Mutate the contracts the machines deploy and report which invariant or rule kills each mutant, survivors first."""
    from evmstate.mutate.mutation import MutateOptions, mutate as run_mutate
    from evmstate.scale.campaign import parse_duration
    from evmstate.scale.parallel import parse_workers

    from .render_mutate import MutateRenderer

    seconds = parse_duration(budget) if budget is not None else None
    n = parse_workers(workers)
    cfg = config_mod.load()
    console = _console()
    options = MutateOptions(paths, keyword, contracts, functions, seconds, max_examples, steps, seed, n, cluster)
    with MutateRenderer(console, quiet=quiet, verbose=verbose) as renderer:
        report = run_mutate(cfg, options, renderer)
    if report.nothing is not None:
        sys.exit(5)
    renderer.report(report)
    for path, write in ((json_path, report.write_json), (html_path, lambda p: report.write_html(p, cfg.root))):
        if path is not None:
            write(path)
            console.print(f"wrote {path}")
    if report.interrupted:
        sys.exit(130)
    if report.judges and not any(j.status == "passed" for j in report.judges):
        console.print(Text("error: no machine or test that deploys these contracts passes on the real contracts, so none judged a mutant: fix them first", style="bold red"))
        sys.exit(2)
    if any(m.status == "error" for m in report.mutants):
        sys.exit(3)
    if min_score is not None and (report.score is None or 100 * report.score < min_score):
        console.print(Text(f"the mutation score is below --min-score {min_score:g}%", style="bold red"))
        sys.exit(1)


@cli.command()
@click.argument("failure_id", required=False)
@click.option("--last", is_flag=True, help="Replay the newest saved failure.")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
@fork_options
def replay(failure_id: str | None, last: bool, backend: str | None, fork_url: str | None, fork_block: str | None) -> None:
    """Re-run a saved failure step by step: exit 1 if it still fails, 0 if fixed."""
    from evmstate.failures import FailureStore
    from evmstate.engine.replay import replay as replay_record
    from evmstate.reports import numbered

    if bool(failure_id) == last:
        raise click.UsageError("give a failure id or --last (see `evmstate failures`)")
    cfg = chosen_fork(_chosen_backend(config_mod.load(), backend), fork_url, None, resolve=False)  # the record names its chain and block
    store = FailureStore.of(cfg)
    record = store.last() if last else store.load(failure_id)  # type: ignore[arg-type]
    if fork_block is not None and record.settings.get("fork"):
        record.settings["fork"] = {**record.settings["fork"], "block": parsed_block(fork_block)}
    console = _console()
    console.print(f"replaying {record.id}: {record.path}::{record.name}")
    if record.interrupted:
        console.print(Text("saved from a run stopped by Ctrl-C while shrinking: the program may not be the shortest", style="yellow"))
    elif record.stopped:
        console.print(Text(f"saved when shrinking was stopped by {record.stopped}: the program may not be the shortest", style="yellow"))
    changed = None

    def show(step: Any) -> None:
        console.print(Text(numbered(step.index, step.line)))
        for line in step.chain:
            console.print(Text(f"     {line}", style="dim"))
        if step.return_value is not None:
            console.print(Text(f"     -> {step.return_value}", style="dim"))
        for e in step.events:
            console.print(Text(f"     event {e}", style="dim"))
        for r in step.reverts:
            console.print(Text(f"     reverted as expected: {r}", style="dim"))
        if step.error:
            where = f"invariant {step.invariant} failed: " if step.invariant else ""
            console.print(Text(f"     {where}{step.error}", style="red"))

    result = replay_record(cfg, record, show)
    changed = result.changed
    if changed:
        console.print(Text("sources changed since the failure was recorded: " + ", ".join(changed), style="yellow"))
    if result.verdict == "fixed":
        console.print(Text(f"fixed: {record.id} no longer fails", style="bold green"))
    elif result.verdict == "still fails":
        console.print(Text(f"still fails: {result.error_type}: {result.message}", style="bold red"))
    else:
        console.print(Text(f"fails differently: {result.error_type}: {result.message}\n  recorded: {record.error.get('type')}: {record.error.get('message')}", style="bold red"))
    sys.exit(result.exit_code)


@cli.command()
@click.argument("failure_id", required=False)
@click.option("--last", is_flag=True, help="Shrink the newest saved failure.")
@click.option("--time", "budget", metavar="DURATION", help="Stop after this long (30s, 5m) with the shortest program so far (default: until done).")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
def shrink(failure_id: str | None, last: bool, budget: str | None, backend: str | None) -> None:
    """Continue shrinking a saved failure (one a budget stopped): the shorter program replaces the record."""
    import time

    from evmstate.engine.replay import shrink_record
    from evmstate.failures import FailureStore
    from evmstate.scale.campaign import parse_duration

    from evmstate.engine.events import ShrinkReport

    from .render import shrink_text

    if bool(failure_id) == last:
        raise click.UsageError("give a failure id or --last (see `evmstate failures`)")
    seconds = parse_duration(budget) if budget is not None else None
    cfg = _chosen_backend(config_mod.load(), backend)
    store = FailureStore.of(cfg)
    record = store.last() if last else store.load(failure_id)  # type: ignore[arg-type]
    console = _console()
    console.print(f"shrinking {record.id}: {record.path}::{record.name}, {len(record.steps)} steps")
    deadline = time.monotonic() + seconds if seconds is not None else None
    result = shrink_record(cfg, record, deadline=deadline)
    if result.verdict == "fixed":
        console.print(Text(f"fixed: {record.id} no longer fails", style="bold green"))
        sys.exit(0)
    if result.verdict == "fails differently":
        console.print(Text(f"fails differently: {result.message}\n  recorded: {record.error.get('type')}: {record.error.get('message')}", style="bold red"))
        sys.exit(1)
    new = result.record
    store.save(new)
    if new.id != record.id:
        store.remove(record.id)
    console.print(Text(f"\nFalsifying example ({len(new.steps)} step{'s' if len(new.steps) != 1 else ''}):"))
    for line in new.program:
        console.print(Text(line))
    outcome = result.outcome
    passes = {k: (v.runs, v.seconds) for k, v in outcome.passes.items() if v.runs}
    report = ShrinkReport(first_steps=len(record.steps), hypothesis_steps=len(record.steps), steps=len(new.steps), seconds=result.seconds, runs=0, replays=outcome.replays, passes=passes, minimality=outcome.minimality)
    console.print(Text(shrink_text(report, minimal=result.verdict != "stopped"), style="dim"))
    if result.verdict == "stopped":
        console.print(Text(f"not minimal: shrinking stopped at {new.stopped}; `evmstate shrink {new.id}` continues", style="yellow"))
    elif result.verdict == "minimal":
        console.print(Text("nothing more could go: the saved program was already as short as these passes make it", style="dim"))
    console.print(f"replay with: evmstate replay {new.id}")
    sys.exit(1)


@cli.group(invoke_without_command=True)
@click.option("--check", is_flag=True, help="Replay each failure and show whether it still fails.")
@click.pass_context
def failures(ctx: click.Context, check: bool) -> None:
    """List saved failures (id, machine, error, age, whether sources changed; with --check, whether each still fails)."""
    if ctx.invoked_subcommand is not None:
        return
    from evmstate.errors import FailureRecordError
    from evmstate.failures import FailureStore
    from evmstate.engine.replay import changed_sources, check as check_record, current_inputs

    cfg = config_mod.load()
    store = FailureStore.of(cfg)
    console = _console()
    ids = store.ids()
    if not ids:
        console.print("no saved failures")
        return
    table = Table(box=None, show_edge=False, pad_edge=False)
    for col in ("id", "machine", "error", "age", "sources", *(("replay",) if check else ())):
        table.add_column(col, overflow="fold")
    inputs = current_inputs(cfg)
    for rid in ids:
        try:
            rec = store.load(rid)
        except FailureRecordError as e:
            table.add_row(rid, "-", f"unreadable: {e}", "-", "-", *(("-",) if check else ()))
            continue
        message = (rec.error.get("message") or "").splitlines()[0] if rec.error.get("message") else ""
        changed = "changed" if changed_sources(cfg, rec, inputs) else "same"
        interrupted = " (interrupted while shrinking)" if rec.interrupted else " (shrinking stopped early)" if rec.stopped else ""
        row = [rec.id, f"{rec.path}::{rec.name}{interrupted}", f"{rec.error.get('type')}: {message}", _age(rec.created), changed]
        if check:
            row.append(check_record(cfg, store, rid).shown)
        table.add_row(*row)
    console.print(table)


@failures.command("rm")
@click.argument("failure_id", required=False)
@click.option("--all", "all_", is_flag=True, help="Remove every saved failure.")
def failures_rm(failure_id: str | None, all_: bool) -> None:
    """Remove a saved failure, by its id or a unique prefix of it (or --all)."""
    from evmstate.failures import FailureStore

    if (failure_id is not None) == all_:
        raise click.UsageError("give a failure id or --all")
    store = FailureStore.of(config_mod.load())
    if all_:
        _console().print(f"removed {store.remove_all()} failures")
    else:
        _console().print(f"removed {store.remove(failure_id)}")  # type: ignore[arg-type]


@failures.command("prune")
@click.option("--unreplayable", is_flag=True, help="Also remove failures that can no longer be replayed (machine, rule or file gone).")
@click.option("--dry-run", is_flag=True, help="Only say what would be removed.")
def failures_prune(unreplayable: bool, dry_run: bool) -> None:
    """Replay every saved failure and remove those that no longer fail."""
    from evmstate.failures import FailureStore
    from evmstate.engine.replay import check as check_record

    cfg = config_mod.load()
    store = FailureStore.of(cfg)
    console = _console()
    removed = kept = 0
    for rid in store.ids():
        result = check_record(cfg, store, rid)
        # unreadable records are never pruned: `evmstate failures rm` removes them on purpose
        if result.verdict == "fixed" or (unreplayable and result.verdict == "cannot replay"):
            if dry_run:
                console.print(Text(f"would remove {rid} ({result.shown})"))
            else:
                store.remove(rid)
                console.print(Text(f"removed {rid} ({result.shown})"))
            removed += 1
        else:
            console.print(Text(f"kept {rid} ({result.shown})"))
            kept += 1
    verb = "would remove" if dry_run else "removed"
    console.print(f"{verb} {removed}, kept {kept}")


def _age(created: float) -> str:
    seconds = max(0, int(time.time() - created))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


@cli.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
def init(folder: Path | None, force: bool) -> None:
    """Create a project: evmstate.toml, an example contract, machines and a property test (in a moccasin project, machines/ alone)."""
    from evmstate.scaffold import init as scaffold, next_steps

    target = folder or Path.cwd()
    written = scaffold(target, force=force)
    console = _console()
    for path in written:
        console.print(f"wrote {path}")
    for line in next_steps(target):
        console.print(Text(line))
    where = f"cd {folder} && " if folder else ""
    console.print(f"next: {where}evmstate run")


@cli.command("compile")
@click.argument("names", nargs=-1)
def compile_cmd(names: tuple[str, ...]) -> None:
    """Compile contracts/ (using the cache); list each contract and the library modules they import.

    NAMES are library modules under contracts/ to compile on their own too, as when a machine asks for one.
    """
    from evmstate.builds import build as build_project, precompiled_note
    from evmstate.compiler import VYPER_VERSION

    cfg = config_mod.load()
    console = _console()
    console.print(Text(f"settings: {cfg.origin}"))
    cfg.check_sources()
    build = build_project(cfg, include=names)
    known = set(build.sources) | {m.name for m in build.modules if m.in_project}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise click.UsageError(f"evmstate compile: no source under {cfg.contracts_dir.name}/ is named {', '.join(map(repr, unknown))}; contracts and modules: {', '.join(sorted(known))}")
    for name in build.sources:
        art = build.artifacts.get(name)
        origin = "precompiled" if art is not None and art.origin else "cached" if name in build.cached else "compiled"
        if art is None:
            console.print(Text(f"{name:20s} {'error':>12s}  {origin:8s}  does not compile (below)"))
            continue
        fns = sorted(e["name"] for e in art.abi if e.get("type") == "function")
        release = f"  (vyper {art.vyper}, as its pragma pins)" if art.vyper not in ("", VYPER_VERSION) else ""
        if art.origin:
            release = f"  ({art.origin}: {config_mod.shown(Path(art.path))})"
        console.print(Text(f"{name:20s} {len(art.bytecode_runtime):6d} bytes  {origin:8s}  {', '.join(fns)}{release}"))
    if precompiled_note(build):
        console.print(Text(precompiled_note(build) or "", style="dim"))
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
    for name, error in build.errors.items():
        console.print(Text(f"\nerror: contract {name!r} does not compile:\n{error}", style="red"))
    if build.errors:
        sys.exit(2)


def main() -> None:
    """Entry point: typed errors exit 2 without a traceback; anything else is internal (exit 3)."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        _console(stderr=True).print("interrupted")
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(2)
    except EvmStateError as e:
        _console(stderr=True).print(f"error: {e}", markup=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        _console(stderr=True).print("interrupted")
        sys.exit(130)
    except SystemExit:
        raise
    except BaseException:
        sys.stderr.write("evmstate: internal error\n" + traceback.format_exc())
        sys.exit(3)


if __name__ == "__main__":
    main()
