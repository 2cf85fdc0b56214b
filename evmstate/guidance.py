"""Coverage guidance: runs that reach code no run reached before are kept and extended.

A Hypothesis backend (a PrimitiveProvider, Hypothesis's documented interface for alternative
backends) serves the choices of each new run. Most runs start by replaying the choices of a
kept run up to the step where that run reached new code, then draw afresh: the new run starts
where the kept one broke through and tries the next steps from there. The rest are plain
Hypothesis runs. A run is kept when one of its steps reaches a branch, or a jump destination,
that no earlier run of the machine reached.

Why a provider rather than target() scores: Hypothesis's target phase climbs by changing one
choice at a time, so a run that reached a rare branch at step 10 gets one new try per run at
the next rare branch; replaying the prefix and drawing the other 40 steps afresh gets 40
(benchmarks/search.py measures both). Everything stays within Hypothesis: the choices the
provider returns are recorded like any other, so a failure found this way is replayed,
shrunk and saved by Hypothesis's own engine with its own provider, and `--seed` reproduces
the run (the provider's random choices come from the machine's seed).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, HypothesisProvider, PrimitiveProvider

# share of runs drawn by Hypothesis alone, so that plain exploration never stops
FRESH = 0.2
# share of extending runs that restart from an earlier choice of the kept run than its last discovery
EARLIER = 0.25


@dataclass
class Stats:
    """How the guided search went: runs extended from a kept run, runs kept."""

    runs: int = 0
    extended: int = 0
    kept: int = 0


@dataclass
class Guide:
    """One machine's guided search: the kept runs, and the run being drawn now."""

    seed: int
    corpus: list[list[tuple[str, dict[str, Any], Any]]] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)
        self.current: GuidedProvider | None = None
        self._cut: int | None = None

    def plan(self) -> list[tuple[str, dict[str, Any], Any]]:
        """The choices a new run replays before drawing afresh (none for a plain run)."""
        self.stats.runs += 1
        if not self.corpus or self.random.random() < FRESH:
            return []
        self.stats.extended += 1
        # the newest kept run went furthest most often: extend it half the time
        entry = self.corpus[-1] if self.random.random() < 0.5 else self.random.choice(self.corpus)
        cut = len(entry)
        if self.random.random() < EARLIER:
            cut = self.random.randint(0, cut)
        return entry[:cut]

    def begin(self, provider: "GuidedProvider") -> None:
        self.current = provider
        self._cut = None

    def reached_new_code(self) -> None:
        """The run being drawn just reached code never reached before: keep it up to here."""
        if self.current is not None:
            self._cut = len(self.current.record)

    def run_finished(self) -> None:
        """The run ended: keep it if it reached new code (runs Hypothesis drew itself are not ours)."""
        if self.current is not None and self._cut is not None and self._cut > 0:
            self.corpus.append(self.current.record[: self._cut])
            self.stats.kept += 1
        self.current = None
        self._cut = None


class GuidedProvider(PrimitiveProvider):
    """Replays a kept run's choices, then draws as Hypothesis would."""

    lifetime = "test_case"
    guide: Guide  # set on the subclass made for each machine

    def __init__(self, conjecturedata: Any, /) -> None:
        super().__init__(conjecturedata)
        self._fresh = HypothesisProvider(conjecturedata)
        self._plan = self.guide.plan()
        self.record: list[tuple[str, dict[str, Any], Any]] = []
        self.guide.begin(self)

    def _draw(self, kind: str, constraints: dict[str, Any]) -> Any:
        i = len(self.record)
        plan = self._plan
        if i < len(plan):
            planned_kind, planned_constraints, value = plan[i]
            if planned_kind != kind or planned_constraints != constraints:
                # the program went another way than the kept run's: draw afresh from here
                self._plan = plan = []
        if i >= len(plan):
            value = getattr(self._fresh, f"draw_{kind}")(**constraints)
        self.record.append((kind, constraints, value))
        return value

    def draw_boolean(self, **constraints: Any) -> bool:  # type: ignore[override]
        return self._draw("boolean", constraints)

    def draw_integer(self, **constraints: Any) -> int:  # type: ignore[override]
        return self._draw("integer", constraints)

    def draw_float(self, **constraints: Any) -> float:  # type: ignore[override]
        return self._draw("float", constraints)

    def draw_string(self, **constraints: Any) -> str:  # type: ignore[override]
        return self._draw("string", constraints)

    def draw_bytes(self, **constraints: Any) -> bytes:  # type: ignore[override]
        return self._draw("bytes", constraints)


_names = itertools.count()


def register(guide: Guide) -> str:
    """Make guide's provider available to Hypothesis; returns the backend name for settings(backend=...)."""
    name = f"evmstate-guided-{next(_names)}"
    AVAILABLE_PROVIDERS[name] = type("GuidedProvider", (GuidedProvider,), {"guide": guide})
    return name


def unregister(name: str) -> None:
    AVAILABLE_PROVIDERS.pop(name, None)
