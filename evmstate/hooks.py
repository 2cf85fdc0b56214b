"""The process-global hooks, all of one of two shapes.

Listeners: callables told about each event of a kind, in the order they were added; `if
listeners:` is the cheap check a hot path makes before building anything to tell (as
Hypothesis's observability does). Current: the one value in force for the whole process (the
project strategies draw accounts from, the dictionary draws mix values from, the last call the
contract layer made, whether the hand-written fast paths are on), set for a block with using().

Ground floor: imports nothing of evmstate's.
"""

from __future__ import annotations

import contextlib
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
