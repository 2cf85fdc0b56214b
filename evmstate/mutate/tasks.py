"""What a worker does for `evmstate mutate`: run a machine on the real code, compile a mutant, judge a mutant.

Each task has a key and run(state, emit), as campaign shards do, so the same local workers and
Dask workers run them; state is the worker's loaded project (scale.pool.WorkerState). Every
judgement goes in three passes, cheapest first, and a mutant stops at its first failure:
the machine's saved failures that pass on the real code, replayed without Hypothesis; its
saved guidance corpus, each run replayed whole; then a search of the budget's runs, under the
seed the real code was searched with. Nothing is shrunk and nothing is saved: the failure
records, the example database and the corpus stay as they were.
"""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from ..compiler.cache import ROOT_MARK, local, local_artifact, portable, portable_artifact
from ..compiler.sources import Artifact, compile_variant
from ..contracts.project import Project
from ..engine.tracebacks import describe_error, failed_invariant
from ..engine.events import MachineFinished
from ..engine.item import RunRequest, run_item
from ..engine.replay import rerun
from ..engine.settings import Overrides
from ..errors import FailureRecordError, MachineDefinitionError
from ..failures import FailureRecord
from ..search.corpus import Corpus, GivenStore
from ..search.session import collector_of
from .operators import Mutant
from .plan import Source


@dataclass(frozen=True)
class Budget:
    """How each machine or test searches a mutant, and the real code: runs, steps, seconds (None: no limit), seed."""

    max_examples: int | None
    steps: int | None
    seconds: float | None
    seed: int

    def overrides(self, max_examples: int | None = None) -> Overrides:
        # generate only: no example database to replay, no shrinking
        return Overrides(
            max_examples if max_examples is not None else self.max_examples, self.steps, self.seed, phases=("generate",)
        )


@dataclass(frozen=True)
class Judge:
    """A machine or test that judges mutants: its id, its saved failures that pass on the real code, its saved corpus.
    """

    key: str  # path::name
    records: tuple[dict[str, Any], ...] = ()  # FailureRecord.to_dict()
    corpus: tuple[bytes, ...] = ()  # the saved runs as the store holds them


@dataclass(frozen=True)
class Kill:
    """What failed on a mutant: the machine or test, the invariant or rule, how it was found, the program's length."""

    judge: str  # path::name
    by: str  # Machine.invariant_x, Machine.rule_y, a test's name, or Machine (an error outside the rules)
    kind: str  # "invariant", "rule", "test" or "error"
    stage: str  # "saved failure", "corpus" or "search"
    steps: int
    error: str  # its type and the first line of its message

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge, "by": self.by, "kind": self.kind, "stage": self.stage, "steps": self.steps,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Kill":
        return cls(d["judge"], d["by"], d["kind"], d["stage"], d["steps"], d["error"])


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def kill_of(result: MachineFinished, judge: str, stage: str) -> Kill | None:
    """The kill a machine's or test's result stands for: None when it passed (an internal error, or a mistake of the
    machine, raises).
    """
    if result.status in ("passed", "interrupted"):
        return None
    if result.status == "error":
        if result.internal:
            raise InternalError(result.error or "")
        if result.broken:
            raise MachineBroke(f"{judge}: {result.error or ''}")
        return Kill(judge, result.name, "error", stage, 0, _first_line(result.error or ""))
    failure = result.failure
    assert failure is not None
    if stage == "corpus" and result.statistics.get("first failure from") == "search":
        stage = "search"  # Hypothesis's simplest run, which goes before the replays
    error = f"{failure.error_type}: {_first_line(failure.message)}"
    if result.kind == "test":
        return Kill(judge, result.name, "test", stage, 1, error)
    if failure.invariant:
        return Kill(judge, f"{result.name}.{failure.invariant}", "invariant", stage, failure.steps, error)
    rule = failure.recorded[-1].rule if failure.recorded else "setup"
    return Kill(judge, f"{result.name}.{rule}", "rule", stage, failure.steps, error)


class InternalError(Exception):
    """Raised in a task when evmstate itself failed while a machine ran: the mutant's outcome is an error, not a kill.
    """


class MachineBroke(Exception):
    """Raised in a task when a machine's or test's own code went wrong (engine.verdicts.is_mistake): on a mutant, no
    kill, for a broken machine says nothing of the contract; the mutant's outcome is an error of the machine."""


def _quiet(event: Any) -> None:
    pass


def _records(judge: Judge) -> list[FailureRecord]:
    found = []
    for data in judge.records:
        try:
            found.append(FailureRecord.from_dict(data, where=f"failure {data.get('id')}"))
        except FailureRecordError:
            continue
    return found


def _replayed(state: Any, project: Project, judge: Judge) -> tuple[Kill | None, list[str]]:
    """Replay a judge's saved failures on project: the first that fails, and the ids of those that passed."""
    item = state.items[judge.key]
    passing = []
    for record in _records(judge):
        try:
            error = rerun(project, record, item.obj)
        except FailureRecordError:
            continue  # cannot be replayed here (a rule renamed since): it judges nothing
        if error is None:
            passing.append(record.id)
            continue
        error_type, message, _, _ = describe_error(error)
        invariant = failed_invariant(error)
        if record.kind == "test":
            return Kill(
                judge.key, record.name, "test", "saved failure", 1, f"{error_type}: {_first_line(message)}"
            ), passing
        by = (
            f"{record.name}.{invariant}"
            if invariant
            else f"{record.name}.{record.steps[-1]['rule'] if record.steps else 'setup'}"
        )
        return Kill(
            judge.key, by, "invariant" if invariant else "rule", "saved failure", len(record.steps),
            f"{error_type}: {_first_line(message)}",
        ), passing
    return None, passing


def _corpus(state: Any, judge: Judge, replay: bool) -> Corpus:
    # the corpus was saved for the real code: its fingerprint is the real project's
    return Corpus.of(GivenStore(judge.corpus), state.project, judge.key, replay=replay)


def _stop(seconds: float | None) -> Callable[[], bool] | None:
    if seconds is None:
        return None
    deadline = time.monotonic() + seconds
    return lambda: time.monotonic() >= deadline


def _examine(
    state: Any, project: Project, judges: tuple[Judge, ...], budget: Budget, *, mutant: bool
) -> tuple[Kill | None, dict[str, list[str]]]:
    """Run the judges' three passes on project until the first failure: that kill (None: all passed), and per judge its
    saved failures that pass.

    mutant: project holds a mutant, on which an error in how a machine is defined (its runs all
    thrown away by assume(), say) is a kill; on the real code it is the machine's error, raised.
    """
    passing: dict[str, list[str]] = {}
    for judge in judges:
        kill, passing[judge.key] = _replayed(state, project, judge)
        if kill is not None:
            return kill, passing
    for judge in judges:
        if state.items[judge.key].kind == "machine" and judge.corpus:
            kill = _run(state, project, judge, budget, "corpus", mutant)
            if kill is not None:
                return kill, passing
    for judge in judges:
        kill = _run(state, project, judge, budget, "search", mutant)
        if kill is not None:
            return kill, passing
    return None, passing


def _run(state: Any, project: Project, judge: Judge, budget: Budget, stage: str, mutant: bool) -> Kill | None:
    """One judge's corpus replayed (each saved run whole, and Hypothesis's simplest run) or its search, on project."""
    item = state.items[judge.key]
    replay = stage == "corpus"
    corpus = _corpus(state, judge, replay=replay) if item.kind == "machine" and judge.corpus else False
    try:
        request = RunRequest(
            overrides=budget.overrides(len(judge.corpus) + 1 if replay else None), save_failures=False,
            seed=budget.seed, stop=None if replay else _stop(budget.seconds), corpus=corpus, deadline=time.monotonic(),
            examples=False, trace=False,  # a kill is who failed and how: the failure's trace is not read
        )
        result = run_item(state.config, project, item, request, _quiet)
    except MachineDefinitionError as e:
        if not mutant:
            raise
        return Kill(judge.key, item.name, "error", stage, 0, _first_line(str(e)))
    return kill_of(result, judge.key, stage)


def _fresh(state: Any, build: Any = None) -> Project:
    """A project on a new chain (with coverage of its own) over the worker's build, or the one given.

    Getters are read from storage, as in any run: their code is a variable's declaration, which
    no mutant changes, so the coverage that decides which mutants a run reaches does not need it.
    """
    return Project(state.config, build=build if build is not None else state.project.build)


# -- the real code ------------------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    """A machine or test on the real code: whether it passed, and the lines each file reached."""

    key: str
    status: str  # "passed", "failed" or "error"
    message: str
    reached: dict[str, list[int]]  # portable path -> lines reached
    records: tuple[str, ...]  # the saved failures that pass
    seconds: float
    coverage: bool  # whether lines were recorded (py-evm)
    cpu: float = 0.0  # CPU seconds of the worker

    def to_dict(self) -> dict[str, Any]:
        return {
            k: getattr(self, k) if k != "records" else list(self.records)
            for k in ("key", "status", "message", "reached", "records", "seconds", "coverage", "cpu")
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Baseline":
        return cls(
            d["key"], d["status"], d["message"], {k: list(v) for k, v in d["reached"].items()}, tuple(d["records"]),
            d["seconds"], d["coverage"], d.get("cpu", 0.0),
        )


@dataclass(frozen=True)
class BaselineTask:
    """Run one machine or test on the real code, its three passes whole, recording coverage."""

    key: str
    index: int
    judge: Judge
    budget: Budget

    def run(self, state: Any, emit: Any) -> Baseline:
        started, cpu = time.perf_counter(), time.process_time()
        project = _fresh(state)
        collector = collector_of(project)
        covering = project.backend.capabilities.coverage
        collector.wanted = covering
        key = self.judge.key
        try:
            kill, passing = _examine(state, project, (self.judge,), self.budget, mutant=False)
        except (InternalError, MachineBroke) as e:
            return Baseline(
                key, "error", str(e), {}, (), time.perf_counter() - started, covering, time.process_time() - cpu
            )
        finally:
            state.project.activate()  # strategies draw accounts from the worker's own project again
        reached: dict[str, set[int]] = {}
        for identity, hits in collector.hits.items():
            cmap = collector.code_map(identity)
            if cmap is not None:
                for path, line in cmap.lines_reached(cmap.executed(hits)):
                    reached.setdefault(portable(str(Path(path).resolve()), state.config.root), set()).add(line)
        status, message = "passed", ""
        if kill is not None:
            k = kill
            status = "error" if k.kind == "error" else "failed"
            how = {
                "saved failure": "a saved failure still fails", "corpus": "a run of its saved corpus fails",
                "search": "it fails",
            }[k.stage]
            message = f"{how}: {k.by}: {k.error}" if k.kind != "error" else f"{k.error}"
        reached_lines = {p: sorted(ls) for p, ls in reached.items()}
        return Baseline(
            key, status, message, reached_lines, tuple(passing.get(key, ())), time.perf_counter() - started, covering,
            time.process_time() - cpu,
        )


# -- mutants --------------------------------------------------------------------------------


def locate(source: Source, root: Path) -> Path:
    """Where a source lies in this process's copy of the project (a cluster's worker has its own)."""
    if source.portable.startswith(ROOT_MARK):
        return Path(local(source.portable, root))
    path = Path(source.path)
    if path.is_file():
        return path
    for base in sys.path:
        if base and (Path(base) / source.shown).is_file():
            return (Path(base) / source.shown).resolve()
    return path


@dataclass(frozen=True)
class Compiled:
    """A mutant compiled: its contracts (portable artifacts), or why it does not compile."""

    key: str
    artifacts: dict[str, dict[str, Any]] | None
    error: str | None
    seconds: float  # CPU seconds the compiles took


@dataclass(frozen=True)
class CompileTask:
    """Compile the contracts a mutant changes, each with the mutated file in place of the real one."""

    key: str
    index: int
    source: Source
    mutant: Mutant

    def run(self, state: Any, emit: Any) -> Compiled:
        started = time.process_time()
        config = state.config
        path = locate(self.source, config.root)
        text = path.read_text(encoding="utf-8")
        if self.source.sha and hashlib.sha256(text.encode()).hexdigest() != self.source.sha:
            return Compiled(
                self.key, None, f"{self.source.shown} changed while it was being mutated", time.process_time() - started
            )
        overlay = {str(path.resolve()): self.mutant.apply(text)}
        (contracts_dir, _), settings = config.compile_inputs()
        artifacts = {}
        for name in self.source.contracts:
            artifact, error = compile_variant(
                contracts_dir, state.project.build.sources[name], name, overlay, **settings
            )
            if artifact is None:
                message = str(error).replace(str(path.resolve()), self.source.shown)
                return Compiled(
                    self.key, None, _first_line(message.split(": ", 1)[-1] if ": " in message else message),
                    time.process_time() - started,
                )
            artifacts[name] = portable_artifact(artifact, config.root)
        return Compiled(self.key, artifacts, None, time.process_time() - started)


@dataclass(frozen=True)
class Verdict:
    """How a mutant fared: the kill, or none (it survived), or the internal error that stopped its judging."""

    key: str
    kill: Kill | None
    error: str | None
    seconds: float
    cpu: float = 0.0  # CPU seconds of the worker
    broken: bool = False  # the error is a judge's own mistake (MachineBroke), not evmstate's


@dataclass(frozen=True)
class MutantTask:
    """Judge one compiled mutant: its judges' passes on a project with its contracts in place of the real ones."""

    key: str
    index: int
    artifacts: dict[str, dict[str, Any]]  # portable
    judges: tuple[Judge, ...]
    budget: Budget

    def run(self, state: Any, emit: Any) -> Verdict:
        started, cpu = time.perf_counter(), time.process_time()
        real = state.project.build
        changed: dict[str, Artifact] = {
            name: local_artifact(data, state.config.root) for name, data in self.artifacts.items()
        }
        build = replace(real, artifacts={**real.artifacts, **changed})
        project = _fresh(state, build)
        try:
            kill, _ = _examine(state, project, self.judges, self.budget, mutant=True)
        except InternalError as e:
            return Verdict(self.key, None, str(e), time.perf_counter() - started, time.process_time() - cpu)
        except MachineBroke as e:
            return Verdict(
                self.key, None, f"a judge broke on it (an error in the machine, not a kill): {e}",
                time.perf_counter() - started, time.process_time() - cpu, broken=True,
            )
        finally:
            state.project.activate()  # strategies draw accounts from the worker's own project again
        return Verdict(self.key, kill, None, time.perf_counter() - started, time.process_time() - cpu)
