"""What the runner adds to each machine and test for search power: coverage, the dictionary, guidance.

One Search per machine or property test: it turns the backend's hooks on for as long as the
item runs, folds what each step reached into the run's coverage (a Collector shared by every
item of an evmstate run), feeds the dictionary with what the contracts did and compared their
arguments against, and tells the guide when a step made progress: reached new code or stored a
small value a slot never held (and, switched on, took a branch more often than any run before: feedback.py).
A backend without coverage hooks (or without an observer, or without feedback hooks) runs
without coverage and guidance (or without observed dictionary values and stored-value progress,
or without hit counts and comparison operands): nothing else changes.
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
from .feedback import MAPPING_SLOTS, Progress, mapping_slots, signals
from ..errors import ConfigError, MachineDefinitionError
from ..evm.base import ExecResult, Feedback, hooks_of

from hypothesis import settings as Settings

from .guidance import Guide, register, unregister

if TYPE_CHECKING:
    from ..contracts.project import Project
    from .corpus import Corpus

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
                raise MachineDefinitionError(
                    f"{where}.settings: guidance must be True or False, got {machine['guidance']!r}"
                )
            guidance = machine["guidance"]
        delays = {key: getattr(fuzz, key) for key in DELAY_KEYS}
        for key in DELAY_KEYS:
            if key in machine:
                try:
                    delays[key] = check_delay(machine[key], f"{where}.settings: {key}")
                except ConfigError as e:
                    raise MachineDefinitionError(str(e)) from None
        return cls(weight, guidance, guidance or report, **delays)


_NOTHING: frozenset[int] = frozenset()

_collectors: "weakref.WeakKeyDictionary[Project, Collector]" = weakref.WeakKeyDictionary()


def collector_of(project: "Project") -> Collector:
    """The coverage of everything run on this project so far (one evmstate run uses one project)."""
    found = _collectors.get(project)
    if found is None:
        # the collector is kept for as long as the project lives, and must not keep it alive itself
        ref = weakref.ref(project)

        def deployment_at(raw_address: bytes) -> Any:
            alive = ref()
            return None if alive is None else alive.deployment_at(raw_address)

        found = _collectors[project] = Collector(project.artifacts, deployment_at)
    return found


class Search:
    """Coverage, dictionary and guidance of one machine or property test while it runs."""

    def __init__(
        self, project: "Project", options: SearchOptions, seed: int | None,
        contracts: list[str] = (),  # type: ignore[assignment]
        corpus: Corpus | None = None,
    ) -> None:
        self.project = project
        self.options = options
        self.backend = backend = project.backend
        self.hooks = hooks_of(backend)
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
        self.dictionary.clock = lambda: (backend.timestamp, backend.block_number)
        # values derived from two observed ones (dictionary.RELATED): a way of drawing, switched with the signals
        self.dictionary.relations = "relations" in signals(project.config.environment.feedback)
        self.dictionary.live_on = "live" in signals(project.config.environment.feedback)
        # what the accounts hold now (dictionary.HELD): their entries of the mappings the storage layouts name
        self.dictionary.holdings_on = "held" in signals(project.config.environment.feedback)
        if self.dictionary.holdings_on:
            held = {slot for artifact in project.artifacts.values() for slot in mapping_slots(artifact.layout)}
            self.dictionary.hold_mappings(sorted(held) or range(MAPPING_SLOTS), accounts)
        for name in contracts:
            if name in project.artifacts:
                self.dictionary.add_artifact(project.artifacts[name])
        self.guide = None
        cache = backend.call_cache
        self._cache_start = (cache.hits, cache.misses) if cache is not None else None
        self._backend_name: str | None = None
        self.progress = Progress(())
        self.feedback: Feedback | None = None  # hit counts and comparison operands, recorded by the hooks
        self._stored_new = False  # a transaction of this step stored a new small value
        self.operands = 0  # comparison operands taken into the dictionary
        self._cmplog = False
        self._orders = False
        # for guidance alone, calls like earlier ones may be seen
        # through those (a coverage report wants every call seen)
        self.sampling = False
        if options.guidance and self.covering:
            self.guide = Guide(seed if seed is not None else 0)
            self._backend_name = register(self.guide)
            on = signals(project.config.environment.feedback)
            mappings = {slot for artifact in project.artifacts.values() for slot in mapping_slots(artifact.layout)}
            self.progress = Progress(on if self.observing else on - {"storage", "states"}, mappings)
            for account in accounts:
                self.progress.key(account)
            if "states" in self.progress.on:
                self.guide.rarity = self.progress.rarity
            if backend.capabilities.feedback and {"counts", "cmplog"} & on:
                self.feedback = Feedback()
            self._cmplog = "cmplog" in on and self.dictionary.on
            self._orders = "cmplog" in on  # a reverted step repeated at the bound an argument failed
            self.sampling = backend.capabilities.sampling and not self.collector.wanted
        # the machine's saved runs (corpus.py): extended like the guide's own; the coverage they
        # reached is not new to this search. Only with guidance.
        self.corpus = corpus if self.guide is not None else None
        self.prior: dict[Identity, set[int]] = {}
        self._run_hits: dict[Identity, set[int]] = {}  # what the current run reached (with a corpus)
        self._cut_hits: dict[Identity, frozenset[int]] = {}  # ...up to its last step that reached new code
        self._published = 0
        self.replayed_first = False  # the first failure came in a run that replayed a saved one (a queued replay)
        self._failed = False
        if self.corpus is not None and self.guide is not None:
            for saved in self.corpus.load():
                if self.corpus.replay:  # evmstate mutate: each saved run replayed whole, first
                    self.guide.queued.append(saved.entry)
                    continue
                self.guide.corpus.append(saved.entry)
                for label, name, deploy, hit in saved.features:
                    self.prior.setdefault((label, name, deploy), set()).add(hit)
            self._published = len(self.guide.corpus)
            self.guide.climbing = self._published > 0

    def _artifact_at(self, address: bytes) -> Any:
        name = self.collector.identify(address, self.backend.get_code)[1]
        return self.project.artifacts.get(name)

    # -- lifetime ---------------------------------------------------------------------------

    def start(self) -> None:
        """Turn the backend's hooks on."""
        hooks = self.hooks
        if self.covering and hooks.coverage is not None:
            hooks.coverage.set_coverage(self.hits)
            if self.feedback is not None and hooks.feedback is not None:
                hooks.feedback.set_feedback(self.feedback)
        watched = self.dictionary.on or {"storage", "states"} & self.progress.on
        if self.observing and hooks.observer is not None and watched:
            hooks.observer.set_observer(self._observe)
        if self.sampling and hooks.sampling is not None:
            hooks.sampling.set_sampling(True)

    def stop(self) -> None:
        """Turn the hooks off and forget the guide's backend."""
        self.absorb()
        hooks = self.hooks
        if self.feedback is not None and hooks.feedback is not None:
            hooks.feedback.set_feedback(None)
        if self.covering and hooks.coverage is not None:
            hooks.coverage.set_coverage(None)
        if self.observing and hooks.observer is not None:
            hooks.observer.set_observer(None)
        if self.sampling and hooks.sampling is not None:
            hooks.sampling.set_sampling(False)
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
        # the actors (deployed before __init__) keep the calls they re-enter with in their storage: words of calldata,
        # cut at 32 bytes, that the dictionary would take for values (an address's first 16 bytes for an address)
        self.dictionary.own_storage = frozenset(a.raw_address for a in self.project.accounts.actors.values())
        self.dictionary.freeze()

    def run_started(self) -> None:
        self.dictionary.reset()
        if self.feedback is not None:
            self.feedback.earlier.clear()  # the arguments of this run's calls alone
        if self.sampling and self.hooks.sampling is not None:
            self.hooks.sampling.set_sampling(True)  # the run's calls counted from here
        self._ids = {}
        self.absorb()
        self.progress.run_started()
        self._stored_new = False
        self._run_hits, self._cut_hits = {}, {}

    def step_started(self) -> None:
        if self.guide is not None:
            self.guide.step_started()
        if self.feedback is not None:
            self.feedback.bound = None

    def step_finished(self, reverted: bool = False, rule: str | None = None) -> None:
        """The step ran; reverted: every transaction it sent reverted (at least one); rule: the step's."""
        progress = self.absorb(rule)
        feedback = self.feedback
        if feedback is not None and feedback.bound is not None:
            if reverted and self.guide is not None and self._orders:
                self.guide.failed_order(*feedback.bound)
            feedback.bound = None
        stage, self._stored_new = self._stored_new, False
        if (progress or stage) and self.guide is not None:
            self.guide.reached_new_code(stage, frozenset(self.progress.run_states))
            if self.corpus is not None:
                self._cut_hits = {identity: frozenset(h) for identity, h in self._run_hits.items()}

    def failure_found(self) -> None:
        """The first run that failed is running: note whether it replays a saved run."""
        if not self._failed:
            self._failed = True
            self.replayed_first = self.guide is not None and self.guide.replaying

    def _observe(self, result: ExecResult) -> None:
        """What the backend shows of each call: values for the dictionary, stored values for progress."""
        if self.dictionary.on:
            self.dictionary.observe(result)
        if result.success and result.storage_writes and self.progress.stored(result.storage_writes):
            self._stored_new = True

    def run_finished(self) -> None:
        self.absorb()
        self.progress.run_finished()
        if self.guide is not None:
            self.guide.run_finished()
            if self.corpus is not None:
                self._publish()

    def _publish(self) -> None:
        """Save the runs the guide kept since the last call, with the coverage each reached."""
        assert self.guide is not None and self.corpus is not None
        features = [(*identity, hit) for identity, hits in self._cut_hits.items() for hit in hits]
        for entry in self.guide.corpus[self._published :]:
            self.corpus.publish(entry, features)
        self._published = len(self.guide.corpus)

    def absorb(self, rule: str | None = None) -> bool:
        """Fold what the backend recorded since the last call into the coverage; True if any of it is new to this item
        (new code, or a branch count in a new bucket). rule: the step's that just ended, if one did."""
        novel = self._absorb_feedback(rule) if self.feedback is not None else False
        if not self.hits:
            return novel
        for key, hits in self.hits.items():
            identity = self._identity(key)
            self.collector.add(identity, hits)
            if self.corpus is not None:
                self._run_hits.setdefault(identity, set()).update(hits)
            known = self.seen.get(identity)
            if known is None:
                known = self.seen[identity] = set()
            new = hits - known
            if new:
                # what a saved run reached is not new: a run that only gets that far is not kept
                novel = novel or not new <= self.prior.get(identity, _NOTHING)
                known |= new
                cmap = self.collector.code_map(identity)
                if cmap is not None:
                    self.branches += sum(1 for h in new if h >= 0 and (h >> 1) in cmap.branches)
        self.hits.clear()
        return novel

    def _identity(self, key: bytes) -> Identity:
        identity = self._ids.get(key)
        if identity is None:
            identity = self._ids[key] = self.collector.identify(key, self.backend.get_code)
        return identity

    def _absorb_feedback(self, rule: str | None = None) -> bool:
        """Fold the hooks' branch counts into the run's, and give the comparison operands to the dictionary."""
        feedback = self.feedback
        assert feedback is not None
        novel = False
        if feedback.counts:
            for key, counts in feedback.counts.items():
                identity = self._identity(key)
                cmap = self.collector.code_map(identity)
                if counts and cmap is not None and self.progress.counted(identity, counts, cmap.branches):
                    novel = True
            feedback.counts.clear()
        if feedback.operands:
            if self._cmplog:
                self.operands += len(feedback.operands)
                self.dictionary.add_operands(feedback.operands)
            feedback.operands.clear()
        if feedback.equalities:
            if self.guide is not None:
                self.guide.compared(feedback.equalities)
            feedback.equalities.clear()
        if feedback.zeros:
            if self.guide is not None:
                self.guide.zero_tested(feedback.zeros, rule)
            feedback.zeros.clear()
        feedback.matched.clear()  # the shrinker's alone
        if feedback.times or feedback.blocks:
            # the times the contract compared block.timestamp and block.number with: where waits may jump
            self.dictionary.add_times(feedback.times)
            self.dictionary.add_times(feedback.blocks, blocks=True)
            feedback.times.clear()
            feedback.blocks.clear()
        return novel

    @property
    def stages(self) -> int | None:
        """Small values stored so far in declared variables that never held them (feedback.py); None when not watched.
        """
        return self.progress.new_values if self.guide is not None and "storage" in self.progress.on else None

    def statistics(self) -> dict[str, Any]:
        stats: dict[str, Any] = {}
        if self.covering:
            stats["branches reached"] = self.branches
        if self.guide is not None:
            g = self.guide.stats
            stats["guided runs"] = (
                f"{g.extended} extended a kept run, {g.kept} kept for progress, "
                f"{g.replaced} repeated a step with an argument replaced, {g.at_bound} repeated a reverted step at the "
                "bound an argument failed"
            )
            p = self.progress
            stats["progress"] = (
                f"{p.new_buckets} branch counts in new buckets, {p.new_values} new stored values ({p.kinds()} of "
                f"kinds of state), {p.new_states} states, {self.operands} comparison operands"
            )
        cache = self.backend.call_cache
        if cache is not None and self._cache_start is not None:
            hits, misses = cache.hits - self._cache_start[0], cache.misses - self._cache_start[1]
            if hits + misses:
                stats["call cache"] = f"{hits} of {hits + misses} view calls answered from the cache"
        if self.corpus is not None:
            stats.update(self.corpus.statistics())
            if self.corpus.replay and self.guide is not None:
                stats["corpus replayed"] = self.guide.stats.replayed
        if self._failed:
            stats["first failure from"] = "corpus" if self.replayed_first else "search"
        if self.dictionary.on:
            stats["dictionary"] = (
                f"weight {self.options.dictionary_weight:g}, {len(self.dictionary.literals)} literals, "
                f"{len(self.dictionary.fixed)} fixed values"
            )
        return stats
