"""The evmstate command: run, compile. Thin: all work is done by the evmstate library."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click
from rich.console import Console

from evmstate import __version__
from evmstate import config as config_mod
from evmstate.errors import EvmStateError

from .render import Renderer


def _console(stderr: bool = False) -> Console:
    width = int(os.environ["COLUMNS"]) if os.environ.get("COLUMNS", "").isdigit() else None
    return Console(stderr=stderr, no_color=bool(os.environ.get("NO_COLOR")), width=width, highlight=False)


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
@click.option("--seed", type=int, help="Seed the search, to reproduce a run.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of user code and more detail.")
def run(paths: tuple[str, ...], keyword: str | None, only_stateful: bool, no_stateful: bool, max_examples: int | None, steps: int | None, seed: int | None, quiet: bool, verbose: bool) -> None:
    """Compile contracts/ and run the state machines and property tests in machines/ (or PATHS)."""
    from evmstate.runner import Overrides, RunOptions, run as run_all

    cfg = config_mod.load()
    console = _console()
    options = RunOptions(paths, keyword, only_stateful, no_stateful, Overrides(max_examples, steps, seed))
    with Renderer(console, quiet=quiet, verbose=verbose) as renderer:
        summary = run_all(cfg, options, renderer)
    if not summary.results and not summary.load_errors:
        console.print("no state machines or property tests found")
        sys.exit(2 if paths or keyword else 0)
    renderer.summary(summary)
    sys.exit(summary.exit_code)


@cli.command("compile")
def compile_cmd() -> None:
    """Compile contracts/ (using the cache) and list each contract."""
    from evmstate.compiler import CompileStats, compile_project

    cfg = config_mod.load()
    stats = CompileStats()
    arts = compile_project(cfg.contracts_dir, cfg.state_dir / "build", evm_version=cfg.compiler.evm_version, optimize=cfg.compiler.optimize, stats=stats)
    console = _console()
    if not arts:
        console.print(f"no .vy sources in {cfg.contracts_dir}")
        return
    for name, art in arts.items():
        fns = sorted(e["name"] for e in art.abi if e.get("type") == "function")
        origin = "cached" if name in stats.cached else "compiled"
        console.print(f"{name:20s} {len(art.bytecode_runtime):6d} bytes  {origin:8s}  {', '.join(fns)}")


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
