"""The evmstate console script: when the arguments ask for local workers, starts their fork server first.

Importing evmstate (with Hypothesis, py-evm, eth-abi) takes this process about 1.5 s, and each
worker of `evmstate run -n N` or `evmstate fuzz` is forked from a fork server that has imported
the same (see evmstate.scale.pool). Started here, before the CLI imports anything, the server
imports on another core while this process does, and is ready by the time the run has compiled:
the run does not wait for it. Nothing here imports evmstate, so the arguments are read by hand;
reading them wrong costs only time (a server started for nothing, or started later by the run).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from .signals import STOPS, as_ctrl_c, stopped_by

# what the fork server imports, after evmstate.scale.pool.TIE, which ties the server to this process: the
# modules a worker of `run -n`, `fuzz` and `mutate` runs its tasks with (the facade imports each command's
# own when it runs, so it is not enough)
PRELOAD = (
    "evmstate.scale.forkserver_tie",
    "evmstate_cli.main",
    "evmstate.runner",
    "evmstate.scale.parallel",
    "evmstate.scale.campaign",
    "evmstate.mutate.mutation",
)
# where the fork server's tie (PRELOAD[0]) reads this process's pid: evmstate.scale.lifeline.TIED_TO, named here
# without importing evmstate
TIED_TO = "EVMSTATE_FORK_SERVER_PARENT"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _count(text: str) -> int:
    """What -n TEXT asks for, as evmstate.scale.pool.parse_workers reads it; 0 when it reads nothing."""
    if text.strip().lower() == "auto":
        return _cores()
    try:
        return int(text)
    except ValueError:
        return 0


def local_workers(args: list[str]) -> int:
    """How many local worker processes `evmstate ARGS` starts, as far as the arguments tell: 0 for none."""
    commands = [a for a in args if not a.startswith("-")]
    command = commands[0] if commands else None
    if command not in ("run", "fuzz", "mutate"):
        return 0
    workers = "1" if command == "run" else "auto"
    rest = args[args.index(command) + 1 :]
    for i, arg in enumerate(rest):
        if arg == "--":
            break
        if arg == "--cluster" or arg.startswith("--cluster="):
            return 0
        if arg in ("-n", "--workers") and i + 1 < len(rest):
            workers = rest[i + 1]
        elif arg.startswith("--workers="):
            workers = arg.partition("=")[2]
        elif arg.startswith("-n") and not arg.startswith("--") and len(arg) > 2:
            workers = arg[2:]
    n = _count(workers)
    # a campaign runs even one worker as a process; a run (or mutate) with one runs in this process
    return n if command == "fuzz" or n > 1 else 0


def forkserver_chosen() -> bool:
    """Whether workers start from a fork server here (evmstate.scale.pool.start_method)."""
    import multiprocessing

    chosen = os.environ.get("EVMSTATE_START_METHOD", "").strip().lower()
    return chosen in ("", "forkserver") and "forkserver" in multiprocessing.get_all_start_methods()


def start_fork_server() -> None:
    """evmstate.scale.pool.start_fork_server(PRELOAD), without importing evmstate.

    Ctrl-C, SIGTERM and SIGHUP are ignored while it starts, so that the server (and multiprocessing's
    resource tracker, started with it), and the workers forked from it until they have their own
    handlers, ignore them: the run decides what they stop. It starts in the standard library's
    folder, first on its path while it imports (not this folder, where a project's files could
    stand for a package).
    """
    import multiprocessing
    from multiprocessing import forkserver

    multiprocessing.set_forkserver_preload(list(PRELOAD))
    here = os.open(".", os.O_RDONLY)
    stops = [signal.SIGINT, *STOPS]
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in stops}
    os.environ[TIED_TO] = str(os.getpid())  # this process's pid, for the server's tie to it
    try:
        os.chdir(os.path.dirname(os.__file__))
        forkserver.ensure_running()
    finally:
        os.environ.pop(TIED_TO, None)
        os.fchdir(here)
        os.close(here)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main() -> None:
    as_ctrl_c()
    if local_workers(sys.argv[1:]) and forkserver_chosen():
        with contextlib.suppress(OSError):  # the run starts it later, or says why it cannot
            start_fork_server()
    try:
        from .main import main as cli_main
    except KeyboardInterrupt:  # Ctrl-C (or SIGTERM) while evmstate imports: nothing has run yet
        sys.stderr.write(f"interrupted by {stopped_by()}\n")
        sys.exit(130)
    cli_main()
