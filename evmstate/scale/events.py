"""What a fuzzing campaign emits, and how it went: plain data, which the CLI renders."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.events import Canary, Event, ExitCode, LoadFailed, MachineFinished, Optimum
from ..failures import FailureIdentity


@dataclass(frozen=True)
class CampaignStarted:
    """Emitted once the workers are set up: the budget (None: until Ctrl-C), where shards run, what is fuzzed."""

    budget: float | None
    workers: str
    items: tuple[str, ...]
    backend: str = "pyevm"


@dataclass
class FailureTally:
    """One distinct failure of a machine over a campaign (FailureIdentity): its record, the runs that hit it, its first
    sighting."""

    id: str  # its record's id (the identity's when it could not be saved)
    identity: FailureIdentity  # once shrunk
    steps: int  # of the shortest program reported
    hits: int = 1  # runs that failed so: the one that found it, those that hit it after, programs shrunk to it
    found_after: float | None = None  # seconds from the campaign's start to when a shard first saw it
    runs_before: int | None = None  # the machine's runs before that one


@dataclass
class ItemTotals:
    """One machine or test over the campaign so far."""

    shards: int = 0
    examples: int = 0
    steps: int = 0
    status: str = "running"  # running, failed, error
    corpus: str | None = None  # the guidance corpus, as the last shard to end saw it (search.corpus)
    loop: str | None = None  # evmstate's own loop, as the last shard to end said (its runs, or "off: " and why)
    canaries: dict[str, Canary] = field(default_factory=dict)  # the shards' canaries, added up (search/canaries.py)
    # of a failure found: seconds from the campaign's start to when a shard first saw it, and the
    # machine's runs before it (those of its shards that had ended by then, and the finding shard's)
    found_after: float | None = None
    runs_before: int | None = None
    # (time.time(), runs) of each shard that came back
    ended: list[tuple[float, int]] = field(default_factory=list, repr=False)
    # every distinct failure found, by its id, first found first
    failures: dict[str, FailureTally] = field(default_factory=dict)

    @property
    def hits(self) -> int:
        """Runs that failed, over every failure found."""
        return sum(t.hits for t in self.failures.values())

    @property
    def unexercised(self) -> list[str]:
        """Properties the shards checked, but never on the state they exist to check."""
        return [name for name, c in self.canaries.items() if c.checked and not c.interesting]


@dataclass(frozen=True, kw_only=True)
class CampaignProgress:
    """Emitted as shards end (and at least every second): the campaign's totals so far."""

    elapsed: float
    budget: float | None
    shards: int
    running: int
    examples: int
    steps: int
    failures: int
    branches: int | None  # distinct branches hit over all shards; None until the engine reports them
    shrinking: int = 0  # running shards shrinking a failure they found (they finish after the budget)
    best: dict[str, int] = field(default_factory=dict)  # "machine.method" -> the best value of the shards that ended
    hits: int = 0  # runs of the shards ended that failed, over the failures found (each counted under its failure)

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.elapsed if self.elapsed > 0 else 0.0


@dataclass
class CampaignSummary:
    """How a campaign went: totals, the failures found (each saved), the errors."""

    seed: int | None = None
    started_at: float = 0.0  # time.time() when the campaign started its workers
    elapsed: float = 0.0
    cpu: float = 0.0
    shards: int = 0
    examples: int = 0
    steps: int = 0
    items: dict[str, ItemTotals] = field(default_factory=dict)
    failures: list[MachineFinished] = field(default_factory=list)
    errors: list[MachineFinished] = field(default_factory=list)
    load_errors: list[LoadFailed] = field(default_factory=list)
    branches: frozenset | None = None
    interrupted: bool = False
    nothing: str | None = None
    workers: str = ""
    store_warnings: list[str] = field(default_factory=list)  # each StoreWarning's message, once
    # machine -> optimize method -> its best value over every shard, and the shortest program found reaching it
    optima: dict[str, dict[str, Optimum]] = field(default_factory=dict)

    def tally(self, result: MachineFinished) -> FailureTally | None:
        """The failure a result in failures reports, counted over the campaign."""
        totals = self.items.get(f"{result.path}::{result.name}")
        if totals is None or result.failure_id is None:
            return None
        return totals.failures.get(result.failure_id)

    @property
    def exit_code(self) -> ExitCode:
        """evmstate failed, a failure was found, errors, nothing to fuzz, stopped by Ctrl-C, else OK."""
        if any(r.internal for r in self.errors):
            return ExitCode.INTERNAL_ERROR
        if self.failures:
            return ExitCode.FAILED
        if self.errors or self.load_errors:
            return ExitCode.USAGE_ERROR
        if self.nothing is not None:
            return ExitCode.NOTHING_FOUND
        return ExitCode.INTERRUPTED if self.interrupted else ExitCode.OK


@dataclass(frozen=True)
class CampaignFinished:
    """Emitted once at the end, after Ctrl-C and when nothing was found too: the summary, and the report files written.
    """

    summary: CampaignSummary
    written: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class FailureReplaced:
    """Emitted when another shard brings a shorter program for a failure already reported: the saved record is replaced.
    """

    key: str
    old_id: str | None
    new_id: str
    steps: int
    program: tuple[str, ...]


# what a campaign emits: the engine's events from its workers, and its own
CampaignEvent = Event | CampaignStarted | CampaignProgress | CampaignFinished | FailureReplaced
