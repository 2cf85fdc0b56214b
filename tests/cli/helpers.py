"""Invoking the evmstate command in-process, as the console script would; waiting for the workers of one started as a process; a Dask cluster on this machine."""

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner

from evmstate.errors import EvmStateError
from evmstate_cli.main import cli


def invoke(*args: str) -> tuple[int, str]:
    """Run the command as main() does, capturing output and the exit code.

    main() prints evmstate's errors and click's usage errors and exits 2; anything else is an
    internal error (exit 3 with a traceback), which is raised here so that the test shows it.
    """
    runner = CliRunner()
    result = runner.invoke(cli, list(args), catch_exceptions=True, standalone_mode=False)
    exc = result.exception
    if exc is None or isinstance(exc, SystemExit):
        return result.exit_code, result.output
    if isinstance(exc, click.ClickException):
        return 2, result.output + exc.format_message()
    if isinstance(exc, EvmStateError):
        return 2, result.output + f"error: {exc}"
    if isinstance(exc, (KeyboardInterrupt, click.exceptions.Abort)):
        return 130, result.output + "interrupted"
    raise exc


def interruptible() -> None:
    """Run in a child before its program (Popen's preexec_fn): Ctrl-C, SIGTERM and SIGHUP reach it as they reach a
    command started in a terminal, even when the tests run in a background job, whose children inherit SIGINT ignored
    (and Python then installs no KeyboardInterrupt handler), or under nohup, whose children inherit SIGHUP ignored (and
    evmstate then keeps it ignored, as it should)."""
    import signal

    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for signum in stops:
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)  # nor blocked, as a thread that spawned it may have had them


# Popen's arguments for a child that a test sends Ctrl-C
CTRL_C = {"preexec_fn": interruptible} if sys.platform != "win32" else {}


def wait_for_markers(project: Path, proc: subprocess.Popen, count: int) -> None:
    """Until count worker processes have each run a step of the Waiting machine (or two minutes passed)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(list(project.glob("searching-*"))) < count:
        time.sleep(0.05)
    assert len(list(project.glob("searching-*"))) >= count, f"{count} workers never started searching"


def local_cluster(workers: int = 2) -> Any:
    """A Dask LocalCluster of `workers` worker processes, one thread each, forked from this process.

    Dask spawns its workers by default: each new Python imports distributed, then evmstate, vyper and
    Hypothesis for its first task (some 4 s of CPU). Forked, they start with them imported; each is a
    process of its own all the same, reached by the client through the scheduler.
    """
    import dask
    from distributed import LocalCluster

    with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
