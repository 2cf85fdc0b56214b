"""What a whole run was asked to do, and how it went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .events import RunSummary, StoreWarning  # noqa: F401  (RunSummary: with the events, RunFinished carries it)
from .settings import Overrides


def told_once(told: list[str], emit: Callable[[Any], None]) -> Callable[[Any], None]:
    """emit, passing each StoreWarning on once (workers each tell a store that failed them) and adding its message to told."""

    def emit_once(event: Any) -> None:
        if isinstance(event, StoreWarning):
            if event.message in told:
                return
            told.append(event.message)
        emit(event)

    return emit_once


@dataclass(frozen=True)
class RunOptions:
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    only_stateful: bool = False
    no_stateful: bool = False
    overrides: Overrides = Overrides()
    save_failures: bool = True
    capture: bool = True  # keep what machines print, and show it only for the reported program
    gas: bool = False  # gather gas per contract function (RunSummary.gas)
    workers: int = 1  # processes running machines and tests at once (evmstate.scale.pool)
    shards: int = 1  # seeds each machine's examples are split over
    coverage: bool = False  # record coverage everywhere, guidance on or off (RunSummary.coverage)
