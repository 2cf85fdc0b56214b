"""The evmstate command: run, fuzz, mutate, replay, shrink, failures, init, compile. Thin: all work is done by the
evmstate library.

Each command imports what it uses when it runs (the library's facade, the renderers, rich), so that
`evmstate --help`, `--version`, a command's `--help` and a mistyped option cost only click's import:
tests/cli/test_startup.py checks which modules they load.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from evmstate import config as config_mod
from evmstate.errors import EvmStateError, ExitCode, from_ctrl_c

from .fork import chosen_fork, fork_block as parsed_block, fork_options
from .signals import as_ctrl_c, interrupted_status, reported, settle, stopped, stopped_by

if TYPE_CHECKING:
    from rich.console import Console


# off a terminal (CI logs, pipes, files) lines are never wrapped nor cut: as wide as they are
UNLIMITED = 1_000_000


def _console(stderr: bool = False) -> Console:
    """A console bound to the stream as it is now: the terminal's width, or unlimited when not a terminal."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    console = Console(file=stream, no_color=bool(os.environ.get("NO_COLOR")), highlight=False)
    if not console.is_terminal:
        console = Console(file=stream, no_color=bool(os.environ.get("NO_COLOR")), highlight=False, width=UNLIMITED)
    return console


def _chosen_backend(cfg: Any, backend: str | None, check: bool = False) -> Any:
    """cfg with --backend and --backend-check applied over [backend]."""
    if backend is None and not check:
        return cfg
    return cfg.replace(
        backend=config_mod.BackendConfig(
            name=backend or cfg.backend.name, check=check or cfg.backend.check,
            named=backend is not None or cfg.backend.named,
        )
    )


BACKEND_HELP = "The EVM to run on: pyevm or revm (pip install \"evmstate[revm]\"); default: [backend] name, else pyevm."
STEPS_HELP = f"Steps per run (stateful_step_count), at most {config_mod.MAX_STEPS}."
DIFFERENTIAL_HELP = (
    "Run every call on two builds in lockstep and fail at the first divergence: codegen (vyper's two code generators), "
    "compiler:A,B (two vyper releases) or sources:OLD:NEW (two folders or git revisions of the contracts); default: "
    "[differential] mode."
)
FRESH_HELP = (
    "Use no example database and no guidance corpus for this run: nothing saved before is replayed, nothing found is "
    "saved there (failure records still are), so --seed alone decides the search."
)
FUZZ_BACKEND_HELP = (
    "The EVM the shards run on: pyevm or revm; default: [backend] name, else revm when pyrevm is installed, else pyevm."
)
RUN_MAX_EXAMPLES_HELP = "Runs per machine (default from evmstate.toml, else 50)."
RUN_WORKERS_HELP = "Run machines and tests in N worker processes at once (auto: one per core)."
SHARDS_HELP = "Split each machine's examples over this many seeds, run as separate tasks (with -n, at once)."
NO_CAPTURE_HELP = (
    "Let what machines and tests print through as they run (by default it is shown only for the reported program)."
)
COVERAGE_HELP = "Report the contracts' Vyper lines and branches reached, and the lines never reached."
COVERAGE_REPORT_HELP = (
    "Also write the coverage as an lcov tracefile (genhtml, editors' gutters), an HTML page or JSON; implies "
    "--coverage; may be repeated."
)
BACKEND_CHECK_HELP = "Run every call on revm and py-evm side by side and report the first difference."
FUZZ_TIME_HELP = "How long to fuzz: 30s, 10m, 1h, 1h30m (default: until Ctrl-C)."
FUZZ_WORKERS_HELP = "Local worker processes (default auto: one per core)."
FUZZ_CLUSTER_HELP = "Run shards on the Dask scheduler at ADDRESS (tcp://host:8786) instead of local processes."
FUZZ_MAX_EXAMPLES_HELP = "Runs per shard (default from evmstate.toml, else 50)."
SEED_HELP = "The campaign's seed: shard i of a machine runs under a seed made of it, the machine and i."
FUZZ_JSON_HELP = "Write a JSON summary here: the totals, and each failure as run's --json has it."
KEYWORD_HELP = "Only machines and tests whose name matches EXPR judge the mutants."
CONTRACT_HELP = (
    "Mutate only this contract, or module (by name or path, as imports write it; an installed package's too); may be "
    "repeated."
)
FUNCTION_HELP = "Mutate only this function (of the sources mutated); may be repeated."
MUTATE_TIME_HELP = (
    "How long each machine or test may search each mutant, at most (30s, 2m; default: no limit but the runs)."
)
MUTATE_MAX_EXAMPLES_HELP = "Runs each machine or test searches each mutant (default from evmstate.toml, else 50)."
MUTATE_WORKERS_HELP = "Local worker processes (default auto: one per core; 1 runs in this process)."
MUTATE_CLUSTER_HELP = "Compile and judge the mutants on the Dask scheduler at ADDRESS (tcp://host:8786)."
MUTATE_JSON_HELP = "Write the report as JSON here."
HTML_HELP = "Write the report as an HTML page here: each source with its mutants under their lines."
MIN_SCORE_HELP = "Exit 1 when the mutation score is below PERCENT."
VERBOSE_HELP = "Also each killed and dropped mutant, and each mutant as it is judged."
SHRINK_TIME_HELP = "Stop after this long (30s, 5m) with the shortest program so far (default: until done)."
UNREPLAYABLE_HELP = "Also remove failures that can no longer be replayed (machine, rule or file gone)."


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="evmstate", prog_name="evmstate")
def cli() -> None:
    """Stateful property testing of Vyper contracts on an in-process EVM."""


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("-k", "keyword", metavar="EXPR", help="Only run machines and tests whose name matches EXPR.")
@click.option("--only-stateful", is_flag=True, help="Run only state machines.")
@click.option("--no-stateful", is_flag=True, help="Run only property tests.")
@click.option("--max-examples", type=click.IntRange(min=1), help=RUN_MAX_EXAMPLES_HELP)
@click.option("--steps", type=click.IntRange(min=1, max=config_mod.MAX_STEPS), help=STEPS_HELP)
@click.option("--seed", type=int, help="Seed the search; every run prints its seed, give it back to reproduce the run.")
@click.option("--fresh", is_flag=True, help=FRESH_HELP)
@click.option("-n", "--workers", "workers", default="1", metavar="N|auto", help=RUN_WORKERS_HELP)
@click.option("--shards", type=click.IntRange(min=1), default=1, help=SHARDS_HELP)
@click.option(
    "--keep-going", is_flag=True,
    help="A machine that failed searches on for other failures: each new one is shrunk, saved and reported, and "
    "runs that fail as one found before are counted under it.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of user code and Hypothesis statistics.")
@click.option("-s", "--no-capture", is_flag=True, help=NO_CAPTURE_HELP)
@click.option("--gas", is_flag=True, help="Report gas per contract function: calls, min / mean / median / max.")
@click.option("--coverage", is_flag=True, help=COVERAGE_HELP)
@click.option(
    "--coverage-report",
    "coverage_reports",
    type=(click.Choice(["lcov", "html", "json"]), click.Path(dir_okay=False, path_type=Path)),
    multiple=True,
    metavar="lcov|html|json PATH",
    help=COVERAGE_REPORT_HELP,
)
@click.option("--junit-xml", type=click.Path(dir_okay=False, path_type=Path), help="Write a JUnit XML report here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON summary here.")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
@click.option("--backend-check", is_flag=True, help=BACKEND_CHECK_HELP)
@click.option("--differential", metavar="MODE", help=DIFFERENTIAL_HELP)
@fork_options
def run(
    paths: tuple[str, ...],
    keyword: str | None,
    only_stateful: bool,
    no_stateful: bool,
    max_examples: int | None,
    steps: int | None,
    seed: int | None,
    fresh: bool,
    workers: str,
    shards: int,
    keep_going: bool,
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
    differential: str | None,
    fork_url: str | None,
    fork_block: str | None,
) -> None:
    """Compile contracts/ and run the state machines and property tests in machines/ (or PATHS)."""
    from evmstate.runner import Overrides, Reports, RunOptions, parse_workers, run as run_all, with_differential

    from .render import Renderer

    cfg = with_differential(
        chosen_fork(_chosen_backend(config_mod.load(), backend, backend_check), fork_url, fork_block), differential
    )
    n = parse_workers(workers)
    options = RunOptions(
        paths, keyword, only_stateful, no_stateful, Overrides(max_examples, steps, seed, fresh=fresh),
        capture=not no_capture, gas=gas, workers=n, shards=shards, coverage=coverage or bool(coverage_reports),
        keep_going=keep_going,
    )
    with Renderer(_console(), quiet=quiet, verbose=verbose) as renderer:
        summary = run_all(cfg, options, renderer, Reports(junit_xml, json_path, coverage_reports))
    sys.exit(summary.exit_code)


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--time", "budget", metavar="DURATION", help=FUZZ_TIME_HELP)
@click.option("-k", "keyword", metavar="EXPR", help="Only fuzz machines and tests whose name matches EXPR.")
@click.option("-n", "--workers", "workers", default="auto", metavar="N|auto", help=FUZZ_WORKERS_HELP)
@click.option("--cluster", metavar="ADDRESS", help=FUZZ_CLUSTER_HELP)
@click.option("--max-examples", type=click.IntRange(min=1), help=FUZZ_MAX_EXAMPLES_HELP)
@click.option("--steps", type=click.IntRange(min=1, max=config_mod.MAX_STEPS), help=STEPS_HELP)
@click.option("--seed", type=int, help=SEED_HELP)
@click.option("--fresh", is_flag=True, help=FRESH_HELP)
@click.option(
    "--stop-on-failure", is_flag=True,
    help="Fuzz a machine no further once it failed (by default it keeps going: each other failure found is shrunk "
    "and saved, and runs that fail as one found before are counted under it).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of user code and Hypothesis statistics.")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=FUZZ_BACKEND_HELP)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help=FUZZ_JSON_HELP)
@click.option("--differential", metavar="MODE", help=DIFFERENTIAL_HELP)
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
    fresh: bool,
    stop_on_failure: bool,
    quiet: bool,
    verbose: bool,
    backend: str | None,
    json_path: Path | None,
    differential: str | None,
    fork_url: str | None,
    fork_block: str | None,
) -> None:
    """Fuzz machines and tests for a time budget: shards of (machine, seed) over workers, failures saved as found."""
    from evmstate.runner import (
        CampaignOptions,
        Overrides,
        fuzz as run_campaign,
        parse_duration,
        parse_workers,
        with_differential,
    )

    from .render_campaign import CampaignRenderer

    seconds = parse_duration(budget) if budget is not None else None
    n = parse_workers(workers)
    cfg = with_differential(
        chosen_fork(_chosen_backend(config_mod.load(), backend), fork_url, fork_block), differential
    )
    overrides = Overrides(max_examples, steps, seed, fresh=fresh)
    options = CampaignOptions(paths, keyword, overrides, seconds, n, cluster, stop_on_failure)
    with CampaignRenderer(_console(), quiet=quiet, verbose=verbose) as renderer:
        summary = run_campaign(cfg, options, renderer, json=json_path)
    sys.exit(summary.exit_code)


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("-k", "keyword", metavar="EXPR", help=KEYWORD_HELP)
@click.option("--contract", "contracts", multiple=True, metavar="NAME", help=CONTRACT_HELP)
@click.option("--function", "functions", multiple=True, metavar="NAME", help=FUNCTION_HELP)
@click.option(
    "--mutants", "mutants_file", type=click.Path(dir_okay=False, path_type=Path),
    help="Only the mutants this file lists, one a line as the report writes them (source:line: before  →  after).",
)
@click.option("--time", "budget", metavar="DURATION", help=MUTATE_TIME_HELP)
@click.option("--max-examples", type=click.IntRange(min=1), help=MUTATE_MAX_EXAMPLES_HELP)
@click.option("--steps", type=click.IntRange(min=1, max=config_mod.MAX_STEPS), help=STEPS_HELP)
@click.option("--seed", type=int, help="The seed every judge searches under (default: [hypothesis] seed, else 0).")
@click.option("-n", "--workers", "workers", default="auto", metavar="N|auto", help=MUTATE_WORKERS_HELP)
@click.option("--cluster", metavar="ADDRESS", help=MUTATE_CLUSTER_HELP)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help=MUTATE_JSON_HELP)
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help=HTML_HELP)
@click.option("--min-score", type=click.FloatRange(0, 100), metavar="PERCENT", help=MIN_SCORE_HELP)
@click.option("-q", "--quiet", is_flag=True, help="Print only the survivors, the table and the score.")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
def mutate(
    paths: tuple[str, ...],
    keyword: str | None,
    contracts: tuple[str, ...],
    functions: tuple[str, ...],
    mutants_file: Path | None,
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
    """Mutate the contracts the machines deploy and report which invariant or rule kills each mutant, survivors
    first."""
    from evmstate.runner import MutateOptions, mutate as run_mutate, parse_duration, parse_workers

    from .render_mutate import MutateRenderer

    seconds = parse_duration(budget) if budget is not None else None
    n = parse_workers(workers)
    cfg = config_mod.load()
    options = MutateOptions(
        paths, keyword, contracts, functions, seconds, max_examples, steps, seed, n, cluster, mutants_file
    )
    with MutateRenderer(_console(), quiet=quiet, verbose=verbose) as renderer:
        report = run_mutate(cfg, options, renderer, json=json_path, html=html_path, min_score=min_score)
    sys.exit(report.exit_code(min_score))


@cli.command()
@click.argument("failure_id", required=False)
@click.option("--last", is_flag=True, help="Replay the newest saved failure.")
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
@fork_options
def replay(
    failure_id: str | None, last: bool, backend: str | None, fork_url: str | None, fork_block: str | None
) -> None:
    """Re-run a saved failure step by step: exit 1 if it still fails, 0 if fixed."""
    from evmstate.runner import replay as replay_failure

    from .render_replay import ReplayRenderer

    if bool(failure_id) == last:
        raise click.UsageError("give a failure id or --last (see `evmstate failures`)")
    # the record names its chain and block
    cfg = chosen_fork(_chosen_backend(config_mod.load(), backend), fork_url, None, resolve=False)
    result = replay_failure(cfg, failure_id, ReplayRenderer(_console()), fork_block=parsed_block(fork_block))
    sys.exit(result.exit_code)


@cli.command()
@click.argument("failure_id", required=False)
@click.option("--last", is_flag=True, help="Shrink the newest saved failure.")
@click.option("--time", "budget", metavar="DURATION", help=SHRINK_TIME_HELP)
@click.option("--backend", type=click.Choice(config_mod.BACKENDS), help=BACKEND_HELP)
def shrink(failure_id: str | None, last: bool, budget: str | None, backend: str | None) -> None:
    """Continue shrinking a saved failure (one a budget stopped): the shorter program replaces the record."""
    from evmstate.runner import parse_duration, shrink as shrink_failure

    from .render_replay import ShrinkRenderer

    if bool(failure_id) == last:
        raise click.UsageError("give a failure id or --last (see `evmstate failures`)")
    seconds = parse_duration(budget) if budget is not None else None
    cfg = _chosen_backend(config_mod.load(), backend)
    finished = shrink_failure(cfg, failure_id, ShrinkRenderer(_console()), seconds=seconds)
    sys.exit(finished.exit_code)


@cli.command()
@click.argument("failure_id", required=False)
@click.option("--last", is_flag=True, help="Export the newest saved failure.")
@click.option(
    "--pytest", "pytest_path", is_flag=False, flag_value="-", default=None, metavar="[PATH]",
    help="Write a pytest test (to PATH: a file, or a folder, made if PATH ends with /; default: stdout).",
)
@click.option(
    "--foundry", "foundry_path", is_flag=False, flag_value="-", default=None, metavar="[PATH]",
    help="Write a Foundry test in Solidity (to PATH: a file, or a folder, made if PATH ends with /; default: stdout).",
)
@click.option(
    "--compile-with", type=click.Choice(["forge", "vyper"]), default="forge", show_default=True,
    help="How the Foundry test gets the contracts' deploy code: forge-std's deployCode of the sources forge "
    "compiles, or the `vyper` on PATH run through vm.ffi with evmstate.toml's compiler settings (for sources "
    "forge cannot compile, such as those built on snekmate's modules; needs ffi = true).",
)
def export(
    failure_id: str | None, last: bool, pytest_path: str | None, foundry_path: str | None, compile_with: str
) -> None:
    """Write a saved failure as a test that fails while the bug is there: a pytest test or a Foundry test."""
    from rich.text import Text

    from evmstate.runner import export as export_failure

    if bool(failure_id) == last:
        raise click.UsageError("give a failure id or --last (see `evmstate failures`)")
    if (pytest_path is None) == (foundry_path is None):
        raise click.UsageError("give one of --pytest [PATH] or --foundry [PATH]")
    target, where = ("pytest", pytest_path) if pytest_path is not None else ("foundry", foundry_path)
    assert where is not None
    exported = export_failure(config_mod.load(), failure_id, target, compile_with=compile_with)
    if exported.note:
        _console(stderr=True).print(Text(exported.note))
    if where == "-":
        click.echo(exported.text, nl=False)
        return
    path = Path(where)
    if path.is_dir() or where.endswith(("/", os.sep)):  # a folder: the test's own file name in it
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            said = exc.strerror or exc
            raise click.UsageError(f"--{target} {where}: cannot make the folder ({said}); give another path") from None
        path = path / exported.file_name
    if not path.parent.is_dir():
        raise click.UsageError(
            f"--{target} {where}: the folder {path.parent} does not exist; create it or give another path"
        )
    try:
        path.write_text(exported.text, encoding="utf-8")
    except OSError as exc:
        said = exc.strerror or exc
        raise click.UsageError(f"--{target} {where}: cannot write {path} ({said}); give another path") from None
    _console(stderr=True).print(Text(f"wrote {path}: failure {exported.id} as a {target} test"))


@cli.group(invoke_without_command=True)
@click.option(
    "--check", is_flag=True,
    help="Replay each failure and show whether it still fails (exit 1 if one does, 2 if one cannot be replayed).",
)
@click.pass_context
def failures(ctx: click.Context, check: bool) -> None:
    """List saved failures (id, machine, error, age, whether sources changed; with --check, whether each still
    fails)."""
    if ctx.invoked_subcommand is not None:
        return
    from evmstate.runner import saved_failures

    from .render_replay import failures_table

    found = saved_failures(config_mod.load(), check)
    failures_table(_console(), found, check)
    if check:  # as replay exits: 1 while a failure reproduces; 2 where one cannot be told (cannot replay, unreadable)
        verdicts = {f.verdict for f in found}
        if verdicts & {"still fails", "fails differently"}:
            sys.exit(ExitCode.FAILED)
        if verdicts & {"cannot replay", "unreadable"}:
            sys.exit(ExitCode.USAGE_ERROR)


@failures.command("rm")
@click.argument("failure_id", required=False)
@click.option("--all", "all_", is_flag=True, help="Remove every saved failure.")
def failures_rm(failure_id: str | None, all_: bool) -> None:
    """Remove a saved failure, by its id or a unique prefix of it (or --all)."""
    from evmstate.runner import remove_failure

    if (failure_id is not None) == all_:
        raise click.UsageError("give a failure id or --all")
    said = remove_failure(config_mod.load(), None if all_ else failure_id)
    _console().print(said)


@failures.command("prune")
@click.option("--unreplayable", is_flag=True, help=UNREPLAYABLE_HELP)
@click.option("--dry-run", is_flag=True, help="Only say what would be removed.")
def failures_prune(unreplayable: bool, dry_run: bool) -> None:
    """Replay every saved failure and remove those that no longer fail."""
    from evmstate.runner import prune_failures

    from .render_replay import PruneRenderer

    renderer = PruneRenderer(_console(), dry_run)
    prune_failures(config_mod.load(), renderer, unreplayable=unreplayable, dry_run=dry_run)
    renderer.counts()


@cli.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
@click.option(
    "--machine", metavar="CONTRACT",
    help="Write a first machine for this project contract instead: a rule per function, its ERC pack mixed in.",
)
def init(folder: Path | None, force: bool, machine: str | None) -> None:
    """Create a project: evmstate.toml, an example contract, machines and a property test (in a moccasin project,
    machines/ alone)."""
    from rich.text import Text

    from evmstate.runner import init as scaffold

    target = folder or Path.cwd()
    written, next_steps = scaffold(target, force=force, machine=machine)
    console = _console()
    for path in written:
        console.print(f"wrote {path}")
    for line in next_steps:
        console.print(Text(line))
    if machine is None:
        where = f"cd {folder} && " if folder else ""
        console.print(f"next: {where}evmstate run")


@cli.command("compile")
@click.argument("names", nargs=-1)
def compile_cmd(names: tuple[str, ...]) -> None:
    """Compile contracts/ (using the cache); list each contract and the library modules they import.

    NAMES are library modules under contracts/ to compile on their own too, as when a machine asks for one.
    """
    from rich.text import Text

    from evmstate.runner import compile_project

    from .render_replay import compile_listing

    cfg = config_mod.load()
    console = _console()
    console.print(Text(f"settings: {cfg.origin}"))
    compiled = compile_project(cfg, names)
    unknown = [n for n in names if n not in compiled.known]
    if unknown:
        raise click.UsageError(
            f"evmstate compile: no source under {cfg.contracts_dir.name}/ is named {', '.join(map(repr, unknown))}; "
            f"contracts and modules: {', '.join(sorted(compiled.known))}"
        )
    compile_listing(console, compiled)
    if compiled.build.errors:
        sys.exit(ExitCode.USAGE_ERROR)


def main() -> None:
    """Entry point: typed errors exit 2 without a traceback; anything else is internal (exit 3); SIGTERM and SIGHUP are
    Ctrl-C."""
    as_ctrl_c()
    reported["failure"] = False  # this command's own reports
    try:
        _main()
    finally:
        settle()


def _main() -> None:
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        _console(stderr=True).print(f"interrupted by {stopped_by()}")
        sys.exit(interrupted_status())
    except click.ClickException as e:
        e.show()
        sys.exit(ExitCode.USAGE_ERROR)
    except EvmStateError as e:
        _console(stderr=True).print(f"error: {e}", markup=False, soft_wrap=True)
        sys.exit(ExitCode.USAGE_ERROR)
    except KeyboardInterrupt:
        _console(stderr=True).print(f"interrupted by {stopped_by()}")
        sys.exit(interrupted_status())
    except SystemExit:
        raise
    except BaseException as exc:
        if from_ctrl_c(exc) or stopped():  # raised on the way out of what a stop interrupted: the interruption's
            _console(stderr=True).print(f"interrupted by {stopped_by()}")
            sys.exit(interrupted_status())
        sys.stderr.write("evmstate: internal error\n" + traceback.format_exc())
        sys.exit(ExitCode.INTERNAL_ERROR)


if __name__ == "__main__":
    main()
