"""Ctrl-C while worker processes run, the same for `evmstate run -n` and campaigns.

A first Ctrl-C asks the workers to stop and waits up to GRACE seconds for what they are
finishing (a failure being shrunk keeps the shortest program found); a second Ctrl-C, or the
end of the wait, gives up at once (a KeyboardInterrupt: the caller ends the workers and reports
what it has).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from typing import Any, Callable, Iterator

# a Ctrl-C'd task that has not answered after this long is ended with its process
GRACE = 15.0


@contextlib.contextmanager
def sigint_count() -> Iterator[list[int]]:
    """While inside, a first Ctrl-C only counts (in the list's one element), for the caller to act on; a second raises
    KeyboardInterrupt.
    """
    count = [0]
    if threading.current_thread() is not threading.main_thread():
        yield count
        return

    def handler(signum: int, frame: Any) -> None:
        count[0] += 1
        if count[0] > 1:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield count
    finally:
        signal.signal(signal.SIGINT, previous)


class Grace:
    """The Ctrl-C state of a loop that drives workers: ask check() once per turn."""

    def __init__(self, sigints: list[int], on_interrupt: Callable[[], None]) -> None:
        self.sigints = sigints  # from sigint_count()
        self.on_interrupt = on_interrupt  # asks the workers to stop
        self.interrupted_at: float | None = None

    @property
    def interrupted(self) -> bool:
        return self.interrupted_at is not None

    def check(self) -> bool:
        """Whether Ctrl-C was pressed; raises KeyboardInterrupt after a second one or once GRACE has passed."""
        now = time.monotonic()
        if self.sigints[0] and self.interrupted_at is None:
            self.interrupted_at = now
            self.on_interrupt()
        if self.sigints[0] > 1 or (self.interrupted_at is not None and now - self.interrupted_at > GRACE):
            raise KeyboardInterrupt
        return self.interrupted_at is not None
