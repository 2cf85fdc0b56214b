"""What the runner adds to each machine and test for search power: coverage, the dictionary, guidance.

One Search per machine or property test: it turns the backend's hooks on for as long as the
item runs, folds what each step reached into the run's coverage (a Collector shared by every
item of an evmstate run), feeds the dictionary with what the contracts did, and tells the guide
when a step reached new code. A backend without coverage hooks (or without an observer) runs
without coverage and guidance (or without observed dictionary values): nothing else changes.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from . import dictionary as dictionary_mod
from ..config import DELAY_KEYS, FuzzConfig, check_delay, check_weight
from .coverage import Collector, Identity
from .dictionary import Dictionary
from ..errors import ConfigError, MachineDefinitionError

from hypothesis import settings as Settings

from .guidance import Guide, register, unregister

if TYPE_CHECKING:
    from ..contracts.project import Project

# keys a machine's `settings` may hold besides Hypothesis's
SEARCH_KEYS = ("dictionary_weight", "guidance", *DELAY_KEYS)


@dataclass(frozen=True)
class SearchOptions:
    """How one machine or test searches: dictionary weight, guidance, and whether to record coverage at all."""

    dictionary_weight: float = 0.25
    guidance: bool = True
    coverage: bool = True  # record coverage; guidance needs it, and so does a coverage report
    max_time_delay: int = FuzzConfig.max_time_delay  # seconds a step may wait before its call; 0: none
    max_block_delay: int = FuzzConfig.max_block_delay

    @classmethod
    def of(cls, fuzz: FuzzConfig, machine: dict[str, Any], where: str, report: bool = False) -> "SearchOptions":
        """[fuzz] settings, then the machine's own settings; report: a coverage report was asked for."""
        weight, guidance = fuzz.dictionary_weight, fuzz.guidance
        if "dictionary_weight" in machine:
            try:
                weight = check_weight(machine["dictionary_weight"], f"{where}.settings: dictionary_weight")
            except ConfigError as e:
                raise MachineDefinitionError(str(e)) from None
        if "guidance" in machine:
            if not isinstance(machine["guidance"], bool):
                raise MachineDefinitionError(f"{where}.settings: guidance must be True or False, got {machine['guidance']!r}")
            guidance = machine["guidance"]
        delays = {key: getattr(fuzz, key) for key in DELAY_KEYS}
        for key in DELAY_KEYS:
            if key in machine:
                try:
                    delays[key] = check_delay(machine[key], f"{where}.settings: {key}")
                except ConfigError as e:
                    raise MachineDefinitionError(str(e)) from None
        return cls(weight, guidance, guidance or report, **delays)


_collectors: "weakref.WeakKeyDictionary[Project, Collector]" = weakref.WeakKeyDictionary()


def collector_of(project: "Project") -> Collector:
    """The coverage of everything run on this project so far (one evmstate run uses one project)."""
    found = _collectors.get(project)
    if found is None:
        found = _collectors[project] = Collector(project.artifacts)
    return found


class Search:
    """Coverage, dictionary and guidance of one machine or property test while it runs."""

    def __init__(self, project: "Project", options: SearchOptions, seed: int | None, contracts: list[str] = ()) -> None:  # type: ignore[assignment]
        self.project = project
        self.options = options
        self.backend = backend = project.backend
        self.collector = collector_of(project)
        self.covering = options.coverage and backend.capabilities.coverage
        self.observing = backend.capabilities.observer
        self.hits: dict[bytes, set[int]] = {}
        self.seen: dict[Identity, set[int]] = {}  # this item's own coverage, for guidance
        self.branches = 0  # branch outcomes this item reached (those the report counts)
        self._ids: dict[bytes, Identity] = {}
        accounts = [a.raw_address for a in project.accounts]
        self.dictionary = Dictionary(options.dictionary_weight, accounts, has_code=lambda a: bool(backend.get_code(a)))
        self.dictionary.artifact_of = self._artifact_at
        for name in contracts:
            if name in project.artifacts:
                self.dictionary.add_artifact(project.artifacts[name])
        self.guide = None
        cache = backend.call_cache
        self._cache_start = (cache.hits, cache.misses) if cache is not None else None
        self._backend_name: str | None = None
        if options.guidance and self.covering:
            self.guide = Guide(seed if seed is not None else 0)
            self._backend_name = register(self.guide)

    def _artifact_at(self, address: bytes) -> Any:
        name = self.collector.identify(address, self.backend.get_code)[0]
        return self.project.artifacts.get(name)

    # -- lifetime ---------------------------------------------------------------------------

    def start(self) -> None:
        """Turn the backend's hooks on."""
        if self.covering:
            self.backend.set_coverage(self.hits)
        if self.observing and self.dictionary.on:
            self.backend.set_observer(self.dictionary.observe)

    def stop(self) -> None:
        """Turn the hooks off and forget the guide's backend."""
        self.absorb()
        if self.covering:
            self.backend.set_coverage(None)
        if self.observing:
            self.backend.set_observer(None)
        if self._backend_name is not None:
            unregister(self._backend_name)
            self._backend_name = None

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """While inside, strategy() draws take from this item's dictionary."""
        with dictionary_mod.using(self.dictionary if self.dictionary.on else None):
            yield

    def settings(self, settings: "Settings") -> "Settings":
        """settings with the guided backend, when guidance is on."""
        if self._backend_name is None:
            return settings
        return Settings(settings, backend=self._backend_name)

    # -- runs ---------------------------------------------------------------------------------

    def base_ready(self) -> None:
        """The machine's __init__ is done: what the dictionary knows now, every run starts from."""
        self.absorb()
        self.dictionary.freeze()

    def run_started(self) -> None:
        self.dictionary.reset()
        self._ids = {}
        self.absorb()

    def step_started(self) -> None:
        if self.guide is not None:
            self.guide.step_started()

    def step_finished(self) -> None:
        if self.absorb() and self.guide is not None:
            self.guide.reached_new_code()

    def run_finished(self) -> None:
        self.absorb()
        if self.guide is not None:
            self.guide.run_finished()

    def absorb(self) -> bool:
        """Fold what the backend recorded since the last call into the coverage; True if any of it is new to this item."""
        if not self.hits:
            return False
        novel = False
        get_code = self.backend.get_code
        for key, hits in self.hits.items():
            identity = self._ids.get(key)
            if identity is None:
                identity = self._ids[key] = self.collector.identify(key, get_code)
            self.collector.add(identity, hits)
            known = self.seen.get(identity)
            if known is None:
                known = self.seen[identity] = set()
            new = hits - known
            if new:
                novel = True
                known |= new
                cmap = self.collector.code_map(identity)
                if cmap is not None:
                    self.branches += sum(1 for h in new if h >= 0 and (h >> 1) in cmap.branches)
        self.hits.clear()
        return novel

    def statistics(self) -> dict[str, Any]:
        stats: dict[str, Any] = {}
        if self.covering:
            stats["branches reached"] = self.branches
        if self.guide is not None:
            g = self.guide.stats
            stats["guided runs"] = f"{g.extended} extended a kept run, {g.kept} kept for reaching new code"
        cache = self.backend.call_cache
        if cache is not None and self._cache_start is not None:
            hits, misses = cache.hits - self._cache_start[0], cache.misses - self._cache_start[1]
            if hits + misses:
                stats["call cache"] = f"{hits} of {hits + misses} view calls answered from the cache"
        if self.dictionary.on:
            stats["dictionary"] = f"weight {self.options.dictionary_weight:g}, {len(self.dictionary.literals)} literals, {len(self.dictionary.fixed)} fixed values"
        return stats
