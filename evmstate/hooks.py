"""The process-global hooks, all of one of two shapes.

Listeners: callables told about each event of a kind, in the order they were added; `if
listeners:` is the cheap check a hot path makes before building anything to tell (as
Hypothesis's observability does). Current: the one value in force for the whole process (the
project strategies draw accounts from, the dictionary draws mix values from, the last call the
contract layer made, whether the hand-written fast paths are on), set for a block with using().

And Ctrl-C held back while something must be done whole (a failure found is written before the
run stops), and noted where what it stopped may not say so: both wrap whatever handles Ctrl-C at
the moment, so that they see what the CLI and workers take as Ctrl-C too (SIGTERM and SIGHUP,
which they hand to the Ctrl-C handler).

Ground floor: imports nothing of evmstate's.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Callable, Iterator


class Listeners(list):  # type: ignore[type-arg]
    """Callables told about each value of a kind, in the order they were added.

    A list, so that `if listeners:` (every contract call asks) is the list's own truth, with no call into Python.
    """

    def add(self, listener: Callable[[Any], None]) -> None:
        self.append(listener)

    @contextlib.contextmanager
    def listening(self, listener: Callable[[Any], None]) -> Iterator[None]:
        """listener is told about each value while inside."""
        self.add(listener)
        try:
            yield
        finally:
            self.remove(listener)

    def notify(self, value: Any) -> None:
        """Tell every listener, in order (a listener added or removed meanwhile counts from the next value)."""
        for listener in list(self):
            listener(value)


class Current:
    """The one value in force for the whole process, or None."""

    def __init__(self, value: Any = None) -> None:
        self.value: Any = value

    def get(self) -> Any:
        return self.value

    def set(self, value: Any) -> None:
        self.value = value

    @contextlib.contextmanager
    def using(self, value: Any) -> Iterator[None]:
        """value is in force while inside; the one before, after."""
        previous, self.value = self.value, value
        try:
            yield
        finally:
            self.value = previous


# The hand-written fast paths of the contract layer and the revm backend (getters read by a reader
# precompiled per getter, ...), read when a contract or backend is made: False makes them take the
# general path they stand in for, which gives the same values and errors; benchmarks/step_cost.py
# measures one against the other and the property tests check them against each other.
FAST_PATHS = Current(True)


# -- Ctrl-C held back and noted -------------------------------------------------------------------





@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """While inside, Ctrl-C (and what the CLI takes as Ctrl-C: SIGTERM, SIGHUP) waits; it acts on the way out, as it
    would have.

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
