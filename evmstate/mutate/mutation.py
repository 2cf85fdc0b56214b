"""`evmstate mutate`: mutants of the project's contracts, judged by its machines and tests; never prints.

The run, from the top: discover the machines and tests, compile the project, make the mutants of
every source the selected ones deploy (plan.py, operators.py). Then, over workers (local
processes, this process, or a Dask cluster):

1. each machine or test runs on the real code (a BaselineTask), as it will run on each mutant,
   recording the lines it reaches: one that fails there judges nothing, and a mutant on a line
   no judge reaches is reported not covered, neither compiled nor run;
2. each other mutant is compiled (a CompileTask: only the contracts its file is compiled into);
   one whose code is the real code's or an earlier mutant's is dropped, as is one that does not
   compile;
3. each remaining mutant is judged (a MutantTask) by the judges whose runs reach its line, until
   the first failure.

Each step's result is kept in .evmstate/mutants (cache.py), keyed by all it depends on, so a
second run does again only what changed; with nothing changed it starts no worker at all.
"""

from __future__ import annotations

import difflib
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


from ..compiler.cache import local_artifact
from ..config import Config
from ..contracts.project import Project
from ..engine.discovery import Item
from ..engine.events import NothingFound, RunStarted, StoreWarning
from ..engine.database import check_database, corpus_store
from ..engine.item import prepare
from ..engine.settings import keep_hypothesis_storage
from ..errors import FailureRecordError, MachineDefinitionError, UsageError
from ..failures import FailureRecord, FailureStore
from ..scale import pool
from ..scale.campaign import LocalWorkers
from ..scale.cluster import DaskWorkers
from ..scale.shards import Outcome, ProjectBundle, Workers
from ..scale.interrupts import Grace, sigint_count
from . import plan
from .cache import MutationCache
from .keys import compile_key, judge_key, python_files
from .operators import Mutant
from .plan import Source
from .report import (  # noqa: F401  (the events: importable from here too)
    BaselineFinished, JudgeOutcome, MutantFinished, MutantOutcome, MutateEvent, MutateStarted, MutationReport,
)
from .tasks import Baseline, BaselineTask, Budget, Compiled, CompileTask, Judge, Kill, MutantTask, Verdict


@dataclass(frozen=True)
class MutateOptions:
    paths: tuple[str, ...] = ()
    keyword: str | None = None
    contracts: tuple[str, ...] = ()  # --contract: what to mutate (contracts, or modules by name or path)
    functions: tuple[str, ...] = ()  # --function: only mutants in these functions
    seconds: float | None = None  # --time: each judge's search of each mutant, at most
    max_examples: int | None = None
    steps: int | None = None
    seed: int | None = None  # None: [hypothesis] seed, else 0 (a fixed seed keeps verdicts comparable and cached)
    workers: int = 1
    cluster: str | None = None
    mutants: Path | None = None  # --mutants: only the mutants this file lists


# -- the workers --------------------------------------------------------------------------------


class InProcess:
    """Tasks run in this process, one per collect(): -n 1."""

    description = "this process"

    def __init__(self, state: pool.WorkerState) -> None:
        self.state = state
        self.queue: deque = deque()
        self.failing: set[str] = set()

    def free(self) -> int:
        return 0 if self.queue else 1

    def submit(self, task: Any) -> None:
        self.queue.append(task)

    def collect(self, timeout: float) -> list[Outcome]:
        if not self.queue:
            return []
        task = self.queue.popleft()
        try:
            return [Outcome("done", task, task.run(self.state, None))]
        except MachineDefinitionError as e:
            return [Outcome("refused", task, None, str(e))]
        finally:
            self.state.project.activate()

    def running(self) -> int:
        return len(self.queue)

    def live(self) -> tuple[int, int]:
        return 0, 0

    def shrinking_now(self) -> int:
        return 0

    def interrupt(self) -> None:
        self.queue.clear()

    def retire(self, key: str) -> None:
        pass

    def lend(self) -> None:
        pass  # one process: no idle worker to lend

    def close(self) -> None:
        pass


def open_workers(config: Config, options: MutateOptions, project: Project, items: list[Item]) -> Workers:
    if options.cluster is not None:
        return DaskWorkers(
            options.cluster, ProjectBundle.of(config, options.paths, options.keyword, pool.loaded_modules())
        )
    if options.workers <= 1:
        return InProcess(pool.WorkerState(config, project, {i.id: i for i in items}))
    source = pool.ProjectSource(
        config, pool.absolute_paths(options.paths), options.keyword, pool.loaded_modules(), project.build
    )
    return LocalWorkers(source, options.workers)


# -- one run ------------------------------------------------------------------------------------


@dataclass
class _Mutant:
    """One mutant as the run follows it."""

    index: int
    id: str
    source: Source
    mutant: Mutant
    compile_key: str
    judges: tuple[str, ...] = ()
    identity: str | None = None  # its code, once compiled
    artifacts: dict[str, Any] | None = None
    compile_seconds: float = 0.0
    outcome: MutantOutcome | None = None
    compiling: bool = False
    judging: bool = False


@dataclass
class _Run:
    """The state of one `evmstate mutate`: what is known, what waits, what runs."""

    config: Config
    options: MutateOptions
    project: Project
    items: dict[str, Item]
    deploys: dict[str, list[str]]  # item id -> the contracts it deploys
    judges: dict[str, Judge]
    keys: dict[str, str]  # item id -> its judge key
    budget: Budget
    cache: MutationCache
    emit: Callable[[MutateEvent], None]
    mutants: list[_Mutant]
    sources: list[Source]
    baselines: dict[str, Baseline] = field(default_factory=dict)
    judged: dict[str, JudgeOutcome] = field(default_factory=dict)
    queue: deque = field(default_factory=deque)  # tasks waiting for a worker, in order
    workers: Workers | None = None
    done: int = 0
    code_lines: dict[str, set[int]] = field(default_factory=dict)
    # seconds: the real code's runs and the judgements (wall, and CPU of the workers), the compiles (CPU)
    timing: dict[str, float] = field(
        default_factory=lambda: {"baseline": 0.0, "baseline_cpu": 0.0, "compile": 0.0, "judge": 0.0, "judge_cpu": 0.0}
    )

    # -- the real code ---------------------------------------------------------------------

    def start(self) -> None:
        for key in self.items:
            if not self._deploys_a_source(key):
                continue
            found = self.cache.get("baseline", self.keys[key])
            if found is not None:
                self._baseline(Baseline.from_dict(found), cached=True)
            else:
                self.queue.append(BaselineTask(f"baseline:{key}", 0, self.judges[key], self.budget))
        self.advance()

    def _deploys_a_source(self, key: str) -> bool:
        return any(set(self.deploys[key]) & set(s.contracts) for s in self.sources)

    def _baseline(self, found: Baseline, cached: bool = False) -> None:
        self.baselines[found.key] = found
        if not cached:
            self.timing["baseline"] += found.seconds
            self.timing["baseline_cpu"] += found.cpu
            self.cache.put("baseline", self.keys[found.key], found.to_dict())
        outcome = JudgeOutcome(found.key, found.status, found.message, found.seconds, cached)
        self.judged[found.key] = outcome
        self.emit(BaselineFinished(outcome))

    def refused(self, key: str, message: str) -> None:
        outcome = JudgeOutcome(key, "error", message)
        self.baselines[key] = Baseline(key, "error", message, {}, (), 0.0, False)
        self.judged[key] = outcome
        self.emit(BaselineFinished(outcome))

    # -- mutants ---------------------------------------------------------------------------

    def advance(self) -> None:
        """Settle every mutant that can be settled now, and queue the tasks the others wait for."""
        for source in self.sources:
            deployers = [k for k in self.items if set(self.deploys[k]) & set(source.contracts)]
            if any(k not in self.baselines for k in deployers):
                continue  # its judges are still running on the real code
            mine = [m for m in self.mutants if m.source is source]
            for m in mine:
                self._classify(m, deployers)
            seen: dict[str, str] = {}  # code identity -> the first mutant with it
            for m in mine:
                if not self._decide(m, seen):
                    break  # an earlier mutant's code is not known yet: whether a later one is a duplicate waits for it

    def _classify(self, m: _Mutant, deployers: list[str]) -> None:
        """Find a mutant's judges (none: not covered), and its compiled code in the cache or a compile for it."""
        if m.outcome is not None or m.identity is not None or m.compiling:
            return
        if not m.judges:
            m.judges, reason = self._judges_of(m, deployers)
            if not m.judges:
                self._finish(m, "not covered", reason)
                return
        found = self.cache.get("compiled", m.compile_key)
        if found is not None:
            self._compiled(m, found, cached=True)
        else:
            m.compiling = True
            self.queue.append(CompileTask(f"compile:{m.id}", m.index, m.source, m.mutant))

    def _decide(self, m: _Mutant, seen: dict[str, str]) -> bool:
        """Drop a compiled mutant that is equivalent or a duplicate, else judge it (or take its verdict from the cache).

        False while its code is not known: the mutants after it wait, so that of two mutants with
        the same code the first is the one judged, whatever order the compiles end in.
        """
        if m.identity is None:
            return m.outcome is not None
        if m.identity == "error" or m.outcome is not None and m.outcome.status == "dropped":
            return True
        first = seen.setdefault(m.identity, m.id)
        if m.outcome is not None or m.judging:
            return True
        if m.identity == self._real_identity(m.source):
            self._finish(m, "dropped", "equivalent: compiles to the same code as the real contract")
        elif first != m.id:
            twin = self._by_key(f"mutant:{first}").mutant
            self._finish(
                m, "dropped", f"duplicate of {first} (line {twin.line}: {twin.after}): compiles to the same code"
            )
        else:
            found = self.cache.get("verdict", self._verdict_key(m))
            if found is not None:
                self._verdict(
                    m,
                    Verdict(
                        m.id, Kill.from_dict(found["kill"]) if found["kill"] else None, found["error"], found["seconds"]
                    ),
                    cached=True,
                )
            else:
                artifacts = m.artifacts or (self.cache.get("build", m.compile_key) or {}).get("artifacts")
                if artifacts is None:  # the kept build is gone: compiled again, and judged then
                    m.identity, m.compiling = None, True
                    self.queue.append(CompileTask(f"compile:{m.id}", m.index, m.source, m.mutant))
                    return False
                m.judging = True
                self.queue.append(
                    MutantTask(
                        f"mutant:{m.id}", m.index, artifacts, tuple(self.judges[k] for k in m.judges), self.budget
                    )
                )
        return True

    def _judges_of(self, m: _Mutant, deployers: list[str]) -> tuple[tuple[str, ...], str]:
        """The machines and tests that judge a mutant, in discovery order; or why none does."""
        passing = [k for k in deployers if self.baselines[k].status == "passed"]
        if not passing:
            names = ", ".join(m.source.contracts)
            return (), f"no selected machine or test that passes on the real code deploys {names}"
        first, last = m.mutant.reach
        lines = set(range(first, last + 1))
        code = self.code_lines.get(m.source.path, set())
        if not lines & code or not all(self.baselines[k].coverage for k in passing):
            # no code of its own to tell by (a constant), or no coverage: every deployer judges
            return tuple(passing), ""
        reaching = [k for k in passing if lines & set(self.baselines[k].reached.get(m.source.portable, ()))]
        if not reaching:
            return (), f"line {first} is never reached by {', '.join(k.rpartition('::')[2] for k in passing)}"
        return tuple(reaching), ""

    def _real_identity(self, source: Source) -> str:
        return plan.code_identity(self.project.build.artifacts, source.contracts)

    def _verdict_key(self, m: _Mutant) -> str:
        return plan.digest("verdict", m.compile_key, sorted(self.keys[k] for k in m.judges))

    def _compiled(self, m: _Mutant, found: dict[str, Any], cached: bool = False) -> None:
        m.compiling = False
        m.compile_seconds = found.get("seconds", 0.0)
        if not cached:
            self.timing["compile"] += m.compile_seconds
        if found["error"] is not None:
            m.identity = "error"
            self._finish(m, "dropped", f"does not compile: {found['error']}")
            return
        m.identity = found["identity"]

    def compiled(self, result: Compiled) -> None:
        """A compile came back: its code's identity kept apart from its build, which only a judgement needs."""
        m = self._by_key(result.key)
        identity = None
        if result.artifacts is not None:
            m.artifacts = result.artifacts
            artifacts = {name: local_artifact(data, self.config.root) for name, data in result.artifacts.items()}
            identity = plan.code_identity({**self.project.build.artifacts, **artifacts}, m.source.contracts)
            self.cache.put("build", m.compile_key, {"artifacts": result.artifacts})
        entry = {"identity": identity, "error": result.error, "seconds": result.seconds}
        self.cache.put("compiled", m.compile_key, entry)
        self._compiled(m, entry)

    def _verdict(self, m: _Mutant, verdict: Verdict, cached: bool = False) -> None:
        m.judging = False
        if not cached:
            self.timing["judge"] += verdict.seconds
            self.timing["judge_cpu"] += verdict.cpu
            if verdict.error is None:
                entry = {
                    "kill": verdict.kill.to_dict() if verdict.kill else None, "error": None, "seconds": verdict.seconds,
                }
                self.cache.put("verdict", self._verdict_key(m), entry)
        if verdict.error is not None:
            self._finish(m, "error", verdict.error, seconds=verdict.seconds, broken=verdict.broken)
        elif verdict.kill is not None:
            self._finish(m, "killed", "", kill=verdict.kill, seconds=verdict.seconds, cached=cached)
        else:
            self._finish(m, "survived", "", seconds=verdict.seconds, cached=cached)

    def judged_mutant(self, result: Verdict) -> None:
        self._verdict(self._by_key(result.key), result)

    def failed(self, task: Any, message: str) -> None:
        """A compile or a judgement that a worker refused (a machine's definition error): the mutant is an error."""
        m = self._by_key(task.key)
        m.compiling = m.judging = False
        self._finish(m, "error", message)

    def _by_key(self, key: str) -> _Mutant:
        ident = key.split(":", 1)[1]
        return next(m for m in self.mutants if m.id == ident)

    def _finish(
        self, m: _Mutant, status: str, reason: str, *, kill: Kill | None = None, seconds: float = 0.0,
        cached: bool = False, broken: bool = False,
    ) -> None:
        mutant, source = m.mutant, m.source
        m.outcome = MutantOutcome(
            m.id, source.shown, source.group, mutant.function, mutant.line, mutant.operator, mutant.before,
            mutant.after, status, reason, kill, seconds, m.compile_seconds, cached, m.judges, broken,
        )
        self.done += 1
        self.emit(MutantFinished(m.outcome, self.done, len(self.mutants)))

    # -- the loop ----------------------------------------------------------------------------

    def drive(self, sigints: list[int]) -> bool:
        """Hand the queued tasks to workers until every mutant is settled; True when Ctrl-C stopped it."""

        def stop() -> None:
            self.queue.clear()
            if self.workers is not None:
                self.workers.interrupt()

        grace = Grace(sigints, stop)
        while True:
            interrupted = grace.check()
            if self.queue and self.workers is None and not interrupted:
                self.workers = open_workers(self.config, self.options, self.project, list(self.items.values()))
            workers = self.workers
            if workers is None:
                return interrupted
            while self.queue and workers.free() > 0 and not interrupted:
                workers.submit(self._next_task())
            if not self.queue and workers.running() == 0:
                return interrupted
            for outcome in workers.collect(0.1):
                self._take(outcome)
            self.advance()

    def _next_task(self) -> Any:
        """The real code's runs first (everything waits for them), then judgements, then compiles."""
        for kind in (BaselineTask, MutantTask, CompileTask):
            for i, task in enumerate(self.queue):
                if isinstance(task, kind):
                    del self.queue[i]
                    return task
        return self.queue.popleft()

    def _take(self, outcome: Any) -> None:
        task = outcome.shard
        if outcome.kind == "refused":
            if isinstance(task, BaselineTask):
                self.refused(task.judge.key, outcome.message)
            else:
                self.failed(task, outcome.message)
        elif outcome.kind == "done" and outcome.result is not None:
            result = outcome.result
            if isinstance(result, Baseline):
                self._baseline(result)
            elif isinstance(result, Compiled):
                self.compiled(result)
            elif isinstance(result, Verdict):
                self.judged_mutant(result)

    def report(self, seed: int, elapsed: float, interrupted: bool) -> MutationReport:
        budget = {"max_examples": self.budget.max_examples, "steps": self.budget.steps, "seconds": self.budget.seconds}
        covering = all(b.coverage for b in self.baselines.values()) if self.baselines else True
        return MutationReport(
            seed=seed, budget=budget, sources=[s.shown for s in self.sources],
            mutants=[m.outcome for m in self.mutants if m.outcome is not None],
            judges=[self.judged[k] for k in self.items if k in self.judged], elapsed=elapsed,
            workers=self.workers.description if self.workers is not None else "none needed", interrupted=interrupted,
            coverage=covering, timing=dict(self.timing),
        )


# -- the entry point ----------------------------------------------------------------------------


def _records(config: Config) -> dict[str, list[dict[str, Any]]]:
    """The saved failures, as data, by machine or test (path::name)."""
    store = FailureStore.of(config)
    found: dict[str, list[dict[str, Any]]] = {}
    for rid in store.ids():
        try:
            record: FailureRecord = store.load(rid)
        except FailureRecordError:
            continue
        found.setdefault(f"{record.path}::{record.name}", []).append(record.to_dict())
    return found


def _corpus(config: Config, key: str) -> tuple[bytes, ...]:
    try:
        return tuple(sorted(corpus_store(config).fetch(key.encode())))
    except Exception:  # a store that cannot be read: the machines judge without it
        return ()


def mutate(config: Config, options: MutateOptions, emit: Callable[[MutateEvent], None]) -> MutationReport:
    """Make the mutants, judge them with the selected machines and tests, and report; Ctrl-C reports what finished."""
    check_database(config)  # a Redis server that does not answer is an error before anything runs
    keep_hypothesis_storage(config)
    if options.workers > 1 and options.cluster is None:
        pool.start_early(config.environment)  # the workers' imports, while this process discovers and compiles
    # not run's random seed when none is given: a mutant's verdict is kept, keyed by what decided
    # it (the seed among them), and a second mutate of the same code reuses every one
    seed = (
        options.seed
        if options.seed is not None
        else (config.hypothesis.seed if config.hypothesis.seed is not None else 0)
    )
    budget = Budget(options.max_examples or config.hypothesis.max_examples, options.steps, options.seconds, seed)
    emit(RunStarted(seed, config.origin))
    started, cpu = time.monotonic(), time.process_time()
    report = MutationReport(
        seed=seed, budget={"max_examples": budget.max_examples, "steps": budget.steps, "seconds": budget.seconds}
    )
    prepared = prepare(config, options.paths, options.keyword, emit)
    if not prepared.items or prepared.project is None:
        report.nothing = prepared.nothing or "no machine or test could be loaded"
        if prepared.nothing is None:
            emit(NothingFound(report.nothing))
        return report
    project = prepared.project
    items = {i.id: i for i in prepared.items}
    deploys = {k: plan.asked_for(i, project) for k, i in items.items()}
    sources = plan.sources_of(config, project, {c for names in deploys.values() for c in names}, options.contracts)
    if not sources:
        report.nothing = (
            "nothing to mutate: the selected machines and tests deploy no contract of the project's own "
            "(name one with --contract)"
        )
        emit(NothingFound(report.nothing))
        return report
    run = _plan_run(config, options, project, items, deploys, sources, budget, emit)
    with sigint_count() as sigints:
        try:
            run.start()
            interrupted = run.drive(sigints)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if run.workers is not None:
                run.workers.close()
    report = run.report(seed, time.monotonic() - started, interrupted)
    # this process: discovery, compiling the project, the judges in this process with -n 1
    report.timing["parent_cpu"] = time.process_time() - cpu
    if not interrupted:
        run.cache.prune()
    return report


def _plan_run(
    config: Config, options: MutateOptions, project: Project, items: dict[str, Item], deploys: dict[str, list[str]],
    sources: list[Source], budget: Budget, emit: Callable[[MutateEvent], None],
) -> _Run:
    records = _records(config)
    python = python_files(config, list(items.values()))
    judges, keys = {}, {}
    for key, item in items.items():
        judges[key] = Judge(key, tuple(records.get(key, ())), _corpus(config, key) if item.kind == "machine" else ())
        keys[key] = judge_key(config, project, item, judges[key], deploys[key], budget, python)
    mutants: list[_Mutant] = []
    made = {source.path: plan.mutants_of(source) for source in sources}
    if options.functions:
        known = sorted({m.function for found in made.values() for m in found if m.function})
        for name in options.functions:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise UsageError(
                    f"--function {name}: no function of that name in {', '.join(s.shown for s in sources)}.{hint} "
                    f"Functions: {', '.join(known)}."
                )
        made = {path: [m for m in found if m.function in options.functions] for path, found in made.items()}
    if options.mutants is not None:
        made = plan.listed(options.mutants, made, sources)
    for source in sources:
        for mutant in made[source.path]:
            mutants.append(
                _Mutant(
                    len(mutants), plan.mutant_id(source, mutant), source, mutant,
                    compile_key(config, project, source, mutant),
                )
            )
    run = _Run(
        config, options, project, items, deploys, judges, keys, budget,
        MutationCache(config.state_dir / "mutants", lambda message: emit(StoreWarning(message))), emit, mutants,
        sources,
    )
    for source in sources:
        for path, lines in plan.code_lines(project.build, source.contracts).items():
            run.code_lines.setdefault(path, set()).update(lines)
    users = tuple(k for k in items if run._deploys_a_source(k))
    emit(MutateStarted(tuple(s.shown for s in sources), len(mutants), users))
    if not users:
        raise UsageError(
            "no selected machine or test deploys the contracts to mutate; select one that does (PATHS, -k)"
        )
    return run


