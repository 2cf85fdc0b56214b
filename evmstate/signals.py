"""Ctrl-C held back while something must be done whole (a failure found is written before the run stops), and noted where what it stopped may not say so.

Both wrap whatever handles Ctrl-C at the moment, so that they see what the CLI and workers take as
Ctrl-C too (SIGTERM and SIGHUP, which they hand to the Ctrl-C handler). Ground floor: imports
nothing of evmstate's.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """While inside, Ctrl-C (and what the CLI takes as Ctrl-C: SIGTERM, SIGHUP) waits; it acts on the way out, as it would have.

    Each signal that came is then handed to the Ctrl-C handler that was in force, in order (a
    second one still counts as a second). Outside the main thread, where Python runs no signal
    handler, it does nothing.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield  # None: a handler set outside Python, which could not be put back
        return
    came: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        came.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        for signum in came:
            if callable(previous):
                previous(signum, None)
            elif signum == signal.SIGINT:
                signal.raise_signal(signal.SIGINT)  # as the disposition says: ignored, or the default
            else:  # a SIGTERM the CLI would have raised as Ctrl-C
                raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_noted() -> Iterator[list[int]]:
    """While inside, each Ctrl-C is noted (in the list given) and handled as before.

    For code whose callee may not let a KeyboardInterrupt through as one (Hypothesis, interrupted
    in its last replay of a failure, reports what that run's end made of it instead). Outside the
    main thread it notes nothing.
    """
    came: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield came
        return

    def note(signum: int, frame: Any) -> None:
        if callable(previous):
            came.append(signum)
            previous(signum, frame)
        elif signum != signal.SIGINT or previous == signal.SIG_DFL:
            came.append(signum)  # a SIGTERM the CLI would have raised as Ctrl-C; SIGINT's default would end the process
            raise KeyboardInterrupt
        # an ignored Ctrl-C stays ignored

    signal.signal(signal.SIGINT, note)
    try:
        yield came
    finally:
        signal.signal(signal.SIGINT, previous)
