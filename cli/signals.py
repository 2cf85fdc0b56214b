"""SIGTERM and SIGHUP are Ctrl-C: what `timeout`, a cancelled CI job, `docker stop` or a closed terminal send stops
evmstate as Ctrl-C does.

Whatever Ctrl-C does at the moment one arrives, it does: while compiling or searching, the run
stops and reports what finished; while shrinking, the shortest program so far is kept and
saved; a second one gives up at once. Standard library only: the console script installs this
before it imports evmstate.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import Any

from evmstate.errors import ExitCode

# the signals taken as Ctrl-C, by the name messages give them
STOPS = {signal.SIGTERM: "SIGTERM", **({signal.SIGHUP: "SIGHUP"} if hasattr(signal, "SIGHUP") else {})}

_received: list[str] = []


def as_ctrl_c() -> None:
    """From now on, SIGTERM and SIGHUP do what Ctrl-C does when they arrive; one this process started ignoring (nohup)
    stays ignored.

    A Ctrl-C that Python could not raise where it came (in a garbage-collector callback, a
    __del__: it would only print a traceback) comes again, where it can be raised.
    """
    for signum in STOPS:
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _as_ctrl_c)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _ctrl_c)
    if not isinstance(sys.unraisablehook, _Again):
        sys.unraisablehook = _Again(sys.unraisablehook)


def _ctrl_c(signum: int, frame: Any) -> None:
    """Python's own Ctrl-C, noted: an error that follows it is the interruption's (see stopped())."""
    _received.append("Ctrl-C")
    raise KeyboardInterrupt


def _as_ctrl_c(signum: int, frame: Any) -> None:
    _received.append(STOPS[signum])
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signum, frame)
    else:  # Ctrl-C ignored (a background job) or not Python's: a SIGTERM still stops the run
        raise KeyboardInterrupt


class _Again:
    """sys.unraisablehook: a KeyboardInterrupt is sent again as SIGINT; anything else goes to the hook before."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous

    def __call__(self, unraisable: Any) -> None:
        if type(unraisable.exc_value) is KeyboardInterrupt:  # a Ctrl-C (evmstate's own stops subclass it)
            # sent from another thread, so that it is handled once this hook has returned
            threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
            return
        self.previous(unraisable)


def stopped_by() -> str:
    """What stopped this process, as messages name it: the first Ctrl-C, SIGTERM or SIGHUP, else Ctrl-C."""
    return _received[0] if _received else "Ctrl-C"


# whether this process reported a failure found (a machine or test falsified): a stop that escapes a command's own
# handling still ends it as failed, as the command would have (the failure is saved as it was printed)
reported = {"failure": False}


def interrupted_status() -> int:
    """The exit status of a command a stop ended on the way out: failed where it had reported a failure, else 130."""
    return ExitCode.FAILED if reported["failure"] else ExitCode.INTERRUPTED


def stopped() -> bool:
    """Whether a Ctrl-C, SIGTERM or SIGHUP has come. What a stop interrupts in the middle may fail in a way of its own
    on the way out (C code importing a module raised a TypeError that had lost the KeyboardInterrupt): an error that
    comes after a stop is the stop's."""
    return bool(_received)


def settle() -> None:
    """The command has its exit status: a stop that comes while Python shuts down is ignored from the first exit
    handler on, so that the status stays the command's.

    Python puts back the default of every signal it handles before it tears its modules down (half a second after a
    replay), so a Ctrl-C then would end the process by SIGINT, with the replay's "still fails" printed and lost from
    its status. The command's work is done by then; what is left ends by itself.
    """
    atexit.register(_ignore_stops)  # the last registered runs first: before multiprocessing's, which joins workers


def _ignore_stops() -> None:
    for signum in (signal.SIGINT, *STOPS):
        signal.signal(signum, signal.SIG_IGN)
