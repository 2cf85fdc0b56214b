"""A child process's tie to its parent: however the parent ends (SIGKILL included), the child ends too.

Two kinds of child, two ties. A worker (pool.py) is started by multiprocessing, from the fork
server where there is one: its parent in the process tree is then the fork server, which lives
as long as any process holds its pipe (the workers hold it), so a parent-death signal would
never come. The worker watches multiprocessing's own sentinel of the process that started it
instead (watch_parent): a pipe whose write end only that process holds, at EOF once it is gone.
A helper (shrinking.py) is forked by its worker with os.fork, so its parent is the worker: on
Linux the kernel sends it SIGKILL when the worker ends (die_with_parent, prctl's
PR_SET_PDEATHSIG); elsewhere it ends when its pipe to the worker closes, after the candidate it
is replaying.

Once the workers and their helpers are gone, so are the fork server and multiprocessing's
resource tracker: each exits when the last process holding its pipe has.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing.connection import wait

# what a terminal's Ctrl-C, `timeout`, a cancelled CI job and a closed terminal send: each stops a
# run as Ctrl-C does, and a child leaves it to its parent
STOP_SIGNALS = (
    (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if hasattr(signal, "SIGHUP") else (signal.SIGINT, signal.SIGTERM)
)

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# the pid of the process that starts a fork server, in the environment the server starts with (forkserver_tie reads it:
# the server's parent by then may be whichever process adopted it)
TIED_TO = "EVMSTATE_FORK_SERVER_PARENT"
# a worker whose parent is gone ends with this code (nobody is left to read it)
ORPHANED = 1

# resolved here, not in the child: looking a symbol up after os.fork
# in a process with threads could wait on a lock no thread will release
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def die_with_parent(parent: int) -> bool:
    """In a child just forked from parent (its pid): the kernel kills this process when parent ends; False where it
    cannot (not Linux).

    Ends this process at once when parent has already ended (between the fork and now).
    """
    if _libc is None:
        return False
    if _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:
        os._exit(ORPHANED)
    return True


def watch_parent() -> bool:
    """In a process started by multiprocessing: a thread ends it at once when the process that started it ends; False in
    the main process.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return False
    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])  # ready only at EOF: the parent holds the write end and never writes
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="evmstate-parent-watch", daemon=True).start()
    return True
