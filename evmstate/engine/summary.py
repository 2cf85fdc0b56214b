"""What a whole run was asked to do, and how it went."""

from __future__ import annotations

from dataclasses import dataclass

from .events import RunSummary  # noqa: F401  (with the events: RunFinished carries it)
from .settings import Overrides


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
