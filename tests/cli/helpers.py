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


class Forked:
    """`evmstate ARGS` as subprocess.Popen([evmstate, *ARGS], cwd=cwd, env=env, stdout=PIPE, stderr=STDOUT (or to a
    stream of its own: merged=False), text=True, start_new_session=True, **CTRL_C) starts it, but forked from the test
    zygote (tests/zygote.py's Started): a process of its own running the console script as a new one does, in a session
    of its own, Ctrl-C, SIGTERM and SIGHUP at their defaults; its imports done once per test process. For a test that
    signals a command as it runs and reads what it printed.

    pid, stdout (read as it comes), poll(), wait(), send_signal(), communicate(timeout) and returncode as Popen's.
    """

    def __init__(self, args: list[str], *, cwd: Path, env: dict[str, str], merged: bool = True) -> None:
        import os
        import tempfile

        from .. import zygote
        from ..conftest import evmstate_exe

        read, write = os.pipe()
        self._err = None if merged else tempfile.TemporaryFile()
        try:
            self._started = zygote.Started(
                [evmstate_exe(), *args], cwd=cwd, env=env, stdout=write, stderr=write if self._err is None else self._err.fileno()
            )
        finally:
            os.close(write)
        self.pid = self._started.pid
        self.stdout = open(read, encoding="utf-8", errors="replace")  # noqa: SIM115

    @property
    def returncode(self) -> int | None:
        return self._started.returncode

    def poll(self) -> int | None:
        return self._started.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self._started.wait(timeout)

    def send_signal(self, signum: int) -> None:
        import os

        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self._started.kill()

    def communicate(self, timeout: float | None = None) -> tuple[str, str | None]:
        """What is left of stdout, and stderr (None when merged), once the command and everything holding its stdout
        ended; subprocess.TimeoutExpired after timeout seconds."""
        import threading

        rest: list[str] = []
        reader = threading.Thread(target=lambda: rest.append(self.stdout.read()), daemon=True)
        started = time.monotonic()
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
        self.stdout.close()
        self.wait(None if timeout is None else max(0.0, timeout - (time.monotonic() - started)))
        if self._err is None:
            return rest[0], None
        self._err.seek(0)
        err = self._err.read().decode(errors="replace")
        self._err.close()
        return rest[0], err
