"""What a whole run was asked to do, and how it went."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..compile_warnings import CompileWarning
from ..search.coverage import CoverageReport
from .events import LoadFailed, MachineFinished
from .settings import Overrides
from .trace import GasStats


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
    workers: int = 1  # processes running machines and tests at once (evmstate.scale.parallel)
    shards: int = 1  # seeds each machine's examples are split over
    coverage: bool = False  # record coverage everywhere, guidance on or off (RunSummary.coverage)


@dataclass
class RunSummary:
    results: list[MachineFinished] = field(default_factory=list)
    load_errors: list[LoadFailed] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C stopped the run; results hold what finished, and where it stopped
    nothing: str | None = None  # why nothing ran, when nothing was found
    seed: int | None = None  # the run's seed: --seed reproduces the run
    gas: GasStats | None = None  # with RunOptions.gas: gas per contract function over the whole run
    coverage: CoverageReport | None = None  # with RunOptions.coverage: lines and branches reached over the whole run
    stopped_in: str | None = None  # what Ctrl-C interrupted: "discovery", "compiling", or a machine's path::name
    total: int = 0  # machines and tests selected to run
    warnings: list[CompileWarning] = field(default_factory=list)  # what vyper warned of, once per source file and warning

    @property
    def exit_code(self) -> int:
        """0 passed, 1 falsified, 2 errors in the user's machines or tests, 3 evmstate failed, 5 nothing found (as pytest), 130 Ctrl-C."""
        if any(r.internal for r in self.results):
            return 3
        if any(r.status == "failed" for r in self.results):
            return 1
        if self.interrupted:
            return 130
        if self.load_errors or any(r.status == "error" for r in self.results):
            return 2
        if not self.results:
            return 5
        return 0

