"""Ctrl-C held back while something must be done whole: a failure found is written before the run stops.

Ground floor: imports nothing of evmstate's.
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
