"""Runs state machines and property tests against a project and reports typed events; never prints."""

from __future__ import annotations

import contextlib
import difflib
import functools
import inspect
import io
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import hypothesis
from hypothesis import HealthCheck, Phase, given, reporting
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase
from hypothesis.errors import HypothesisException, InvalidArgument, InvalidDefinition, StopTest, UnsatisfiedAssumption

from . import calls

from .config import Config, HypothesisConfig
from .contracts.contract import reverts
from .errors import MachineDefinitionError, UsageError
from .contracts.revert import failure_details
from .search.coverage import CoverageReport
from .engine.trace import GasStats, Trace
from .failures import FailureRecord, FailureStore, Ref, encode_value, record_id
from .machine import MachineSpec, Route, RuleSpec, _enter, collect, multiple
from .contracts.project import Project, Unavailable

# -- events --------------------------------------------------------------------


@dataclass(frozen=True)
class RunStarted:
    """Emitted once, before anything runs: the seed that reproduces this run with --seed."""

    seed: int


@dataclass(frozen=True)
class CompileStarted:
    """Emitted before the project's contracts are compiled (or read from the build cache)."""

    folder: str


@dataclass(frozen=True)
class CompileFinished:
    """Emitted once the contracts are built: how many, how many came from the build cache, how long it took."""

    contracts: int
    cached: int
    seconds: float
    errors: int = 0


@dataclass(frozen=True)
class MachineStarted:
    """Emitted when a machine or property test starts running: the k-th (index) of total in this run."""

    name: str
    kind: str  # "machine" or "test"
    path: str
    index: int = 0  # from 1; 0 when run on its own
    total: int = 0
    max_examples: int = 0


@dataclass(frozen=True)
class ExampleFinished:
    """Emitted after every run of a machine or test.

    examples counts what Hypothesis counts towards max_examples: valid runs until the first
    failure, that one included; it never goes past max_examples. runs counts every run:
    invalid ones, and those of shrinking.
    """

    name: str
    examples: int
    steps: int
    elapsed: float
    shrinking: bool
    path: str = ""
    runs: int = 0
    branches: int | None = None  # branch outcomes reached so far; None when coverage is not recorded


@dataclass(frozen=True)
class FailureFound:
    """Emitted when the first failing run is found; shrinking starts. examples as in ExampleFinished."""

    name: str
    examples: int
    path: str = ""


@dataclass(frozen=True)
class ShrinkProgress:
    """Emitted while shrinking, each time a failing program no longer than the best is found.

    steps is the length of the best failing program so far; runs counts the runs tried since
    the first failure (Hypothesis's shrink runs, then the replays of the step-deletion pass).
    """

    name: str
    steps: int
    examples: int
    runs: int = 0
    elapsed: float = 0.0
    phase: str = "shrinking"  # then "removing steps"
    path: str = ""


@dataclass
class FilterStats:
    """How often a filtered argument let its rule run, and how often no value matched."""

    enabled: int = 0
    skipped: int = 0


@dataclass
class RuleStats:
    calls: int = 0
    reverts: int = 0
    filters: dict[str, FilterStats] = field(default_factory=dict)


@dataclass(frozen=True)
class Failure:
    """A falsified machine or test: the error and the shrunk program."""

    name: str
    path: str
    error_type: str
    message: str
    program: list[str]
    steps: int
    invariant: str | None = None
    location: str | None = None
    traceback: str = ""
    revert_reason: str | None = None
    steps_data: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    # the failing call's revert or timeout explained (source line, check, dev comment), if any
    call_failure: dict[str, Any] | None = None
    shrink: "ShrinkReport | None" = None
    # the reported program replayed once: each step's calls, events, gas, reverts, and its output
    trace: Trace | None = None


@dataclass(frozen=True)
class ShrinkReport:
    """How the reported program was shrunk: from how many steps, in how long, in how many runs."""

    first_steps: int  # the first failing program found
    hypothesis_steps: int  # after Hypothesis's shrinking
    steps: int  # after the step-deletion pass
    seconds: float  # from the first failure to the reported program
    runs: int  # Hypothesis's shrink runs
    replays: int  # the deletion pass's replays
    replayed: bool = False  # the failure came from the example database (already shrunk)


@dataclass(frozen=True)
class MachineFinished:
    """Emitted when a machine or test is done: passed, failed or errored."""

    name: str
    kind: str
    path: str
    status: str  # "passed", "failed", "error", or "interrupted" (Ctrl-C before anything failed)
    examples: int  # as ExampleFinished counts them
    steps: int
    elapsed: float
    rules: dict[str, RuleStats] = field(default_factory=dict)
    failure: Failure | None = None
    error: str | None = None
    statistics: dict[str, Any] = field(default_factory=dict)
    failure_id: str | None = None
    seed: int | None = None  # the Hypothesis seed this machine or test ran with
    runs: int = 0  # every run, shrinking and invalid ones included
    max_examples: int = 0
    internal: bool = False  # with status "error": evmstate itself failed (error holds its traceback)

    @property
    def never_run(self) -> list[str]:
        return [name for name, s in self.rules.items() if s.calls == 0]


@dataclass(frozen=True)
class LoadFailed:
    """Emitted when a machine module cannot be imported or a machine cannot be defined."""

    path: str
    message: str


@dataclass(frozen=True)
class NothingFound:
    """Emitted when no machine or property test was found: what was looked for, and the naming rules."""

    message: str


class Interrupted(KeyboardInterrupt):
    """Raised when Ctrl-C stops a machine or test before anything failed; result says how far it got."""

    def __init__(self, result: MachineFinished) -> None:
        super().__init__(f"{result.path}::{result.name} interrupted")
        self.result = result


Event = RunStarted | CompileStarted | CompileFinished | MachineStarted | ExampleFinished | FailureFound | ShrinkProgress | MachineFinished | LoadFailed | NothingFound


class ShrunkExamples(ExampleDatabase):
    """One machine's view of the example database, holding only examples it reported shrunk.

    Hypothesis saves every failing example it meets. With report_multiple_bugs off, those of
    a second bug found while shrinking the first are never shrunk, and a later run that
    replays a saved example exactly skips shrinking: it would report them as found. So saves
    are held back until the run ends, and only the example of the reported failure is written
    (commit()). Keys are prefixed with a format tag and the machine's id, so machines sharing
    one test function do not mix and examples saved by earlier formats are never replayed.
    """

    FORMAT = b"evmstate-examples-2"

    def __init__(self, inner: ExampleDatabase, prefix: bytes) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = self.FORMAT + b"\0" + prefix + b"\0"
        self.outcome: Any = None  # what the run that just ended did; the runner sets it
        self.fetched = 0  # saved examples handed to Hypothesis, which replays them first
        self._pending: dict[tuple[bytes, bytes], Any] = {}  # (key, value) -> outcome

    def save(self, key: bytes, value: bytes) -> None:
        # Hypothesis saves an example right after the run that made it
        self._pending[(key, value)] = self.outcome

    def fetch(self, key: bytes) -> Iterable[bytes]:
        stored = list(self.inner.fetch(self.prefix + key))
        self.fetched += len(stored)
        yield from stored
        yield from [v for (k, v) in list(self._pending) if k == key and v not in stored]

    def delete(self, key: bytes, value: bytes) -> None:
        self._pending.pop((key, value), None)
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if self._pending.pop((src, value), "absent") != "absent":
            return  # a pending example that a smaller one replaced: never written
        self.inner.move(self.prefix + src, self.prefix + dest, value)

    def commit(self, outcome: Any) -> None:
        """Write the held examples whose run ended as the reported failure did; drop the rest."""
        for (key, value), seen in self._pending.items():
            if outcome is not None and seen == outcome:
                self.inner.save(self.prefix + key, value)
        self._pending.clear()


# -- settings ------------------------------------------------------------------

SETTINGS_KEYS = ("max_examples", "stateful_step_count", "deadline", "derandomize", "phases", "seed", "print_blob", "report_multiple_bugs", "suppress_health_check", "verbosity")


@dataclass(frozen=True)
class Overrides:
    """Settings given on the command line; None leaves the configured value."""

    max_examples: int | None = None
    stateful_step_count: int | None = None
    seed: int | None = None


def build_settings(base: HypothesisConfig, machine: dict[str, Any], overrides: Overrides, where: str) -> tuple[Settings, int | None]:
    """Hypothesis settings from evmstate.toml, then the machine's own, then the command line.

    The seed returned is the machine's own seed setting, else --seed, else evmstate.toml's;
    None when none is given. A machine that pins its seed keeps it whatever --seed says, so
    the seed a run prints reproduces every machine in it.
    """
    values: dict[str, Any] = {
        "max_examples": base.max_examples,
        "stateful_step_count": base.stateful_step_count,
        "deadline": base.deadline,
        "derandomize": base.derandomize,
        "phases": [Phase[p] for p in base.phases],
        "print_blob": base.print_blob,
        "database": None,
        "report_multiple_bugs": False,
        "suppress_health_check": list(HealthCheck),
    }
    seed = overrides.seed if overrides.seed is not None else base.seed
    from .search.session import SEARCH_KEYS

    for key, value in machine.items():
        if key in SEARCH_KEYS:
            continue  # read by search.SearchOptions
        if key not in SETTINGS_KEYS:
            close = difflib.get_close_matches(key, SETTINGS_KEYS + SEARCH_KEYS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else f" Known keys: {', '.join(SETTINGS_KEYS + SEARCH_KEYS)}."
            raise MachineDefinitionError(f"{where}.settings: unknown key {key!r}.{hint}")
        if key == "seed":
            seed = value
        elif key == "phases":
            values["phases"] = [Phase[p] if isinstance(p, str) else p for p in value]
        else:
            values[key] = value
    if overrides.max_examples is not None:
        values["max_examples"] = overrides.max_examples
    if overrides.stateful_step_count is not None:
        values["stateful_step_count"] = overrides.stateful_step_count
    try:
        return Settings(**values), seed
    except (HypothesisException, TypeError, KeyError) as e:
        raise MachineDefinitionError(f"{where}.settings: {e}") from None


def run_seed(base: HypothesisConfig, overrides: Overrides) -> int:
    """The run's seed: --seed, else evmstate.toml's, else a random one (printed, so it can be given back)."""
    if overrides.seed is not None:
        return overrides.seed
    if base.seed is not None:
        return base.seed
    import secrets

    return secrets.randbelow(2**32)


def machine_seed(seed: int, machine_id: str) -> int:
    """The Hypothesis seed of one machine or test: from the run's seed and its id (path::name).

    It depends on nothing else, so a machine runs the same whatever else is selected.
    """
    import hashlib

    digest = hashlib.sha256(f"{seed}\0{machine_id.replace(chr(92), '/')}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# -- failures -----------------------------------------------------------------

_LIBRARY_DIRS = (str(Path(__file__).parent), str(Path(hypothesis.__file__).parent))


def _user_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    frames = traceback.extract_tb(exc.__traceback__)
    return [f for f in frames if not f.filename.startswith(_LIBRARY_DIRS) and "site-packages" not in f.filename and not f.filename.startswith(("<hypothesis", "<frozen"))]


def _shown(filename: str) -> str:
    with contextlib.suppress(ValueError):
        return str(Path(filename).relative_to(Path.cwd()))
    return filename


def describe_error(exc: BaseException) -> tuple[str, str, str | None, str]:
    """(type name, message, user location, trimmed traceback) of a failure."""
    frames = _user_frames(exc)
    location = None
    if frames:
        last = frames[-1]
        location = f"{_shown(last.filename)}:{last.lineno} in {last.name}"
        if last.line:
            location += f"\n    {last.line}"
    message = str(exc)
    if not message and isinstance(exc, AssertionError) and frames and frames[-1].line:
        message = frames[-1].line
    for f in frames:
        f.filename = _shown(f.filename)
    tb = "".join(traceback.format_list(frames)) + f"{type(exc).__name__}: {message}\n"
    return type(exc).__name__, message, location, tb


def user_error(where: str, exc: BaseException) -> str:
    """An error in the user's code outside rules and invariants: what raised it, and the user's traceback."""
    error_type, message, _, tb = describe_error(exc)
    frames = tb[: tb.rfind(f"{error_type}: ")].rstrip()  # the headline already says it
    head = f"{where} raised {error_type}: {message}"
    return f"{head}\nTraceback (user code):\n{frames}" if frames else head


class _OutOfTime(KeyboardInterrupt):
    """Raised before a run when the caller's stop() says the time is up: the machine ends as it stands.

    Never raised once a run has failed, so that every failure found is shrunk. A
    KeyboardInterrupt, because that is what Hypothesis lets through without saving or
    replaying the run it stopped.
    """


class _Stopped(BaseException):
    """Raised inside a run to stop the machine at once: an error, not a failure to shrink.

    A BaseException, so Hypothesis neither shrinks nor saves it and lets it through.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Crashed(BaseException):
    """Raised inside a run when evmstate's own chain fails (its cause says how): an internal error, never shrunk."""


class _Diverged(BaseException):
    """Raised inside a run when revm and py-evm disagreed on a call (--backend-check): stops at once, unshrunk."""

    def __init__(self, divergence: Any, steps: list["_Step"]) -> None:
        super().__init__(divergence.what)
        self.divergence = divergence
        self.steps = list(steps)


@functools.lru_cache(maxsize=256)
def _index(n: int) -> st.SearchStrategy[int]:
    """An index into n values, shrinking toward the first."""
    return st.integers(min_value=0, max_value=n - 1)


def _stop_if_diverged(backend: Any, steps: list["_Step"]) -> None:
    divergence = getattr(backend, "divergence", None)
    if divergence is not None:
        raise _Diverged(divergence, steps)


def describe_call(project: Project, sender: bytes, to: bytes | None, data: bytes, value: int) -> str:
    """A raw call as a reader knows it: Token.transfer(accounts[2], 5) from accounts[1]."""
    from .contracts.abi import _signature, abi_type, decode, from_abi_value, selector

    try:
        who = repr(project.accounts.at(sender))
    except Exception:
        who = f"0x{sender.hex()}"
    artifact = project.artifact_at(to) if to is not None else None
    what = f"0x{to.hex()}" if to is not None else "a deployment"
    if to is None:
        for art in project.artifacts.values():
            if art.bytecode and data.startswith(art.bytecode):
                what = f"{art.name}.deploy"
    elif artifact is not None:
        what = f"{artifact.name} at 0x{to.hex()}"
        for entry in artifact.abi:
            if entry.get("type") == "function" and selector(_signature(entry)) == data[:4]:
                types = [abi_type(p) for p in entry.get("inputs", [])]
                try:
                    args = ", ".join(repr(from_abi_value(t, v)) for t, v in zip(types, decode(types, data[4:])))
                except Exception:
                    args = f"0x{data[4:].hex()}"
                what = f"{artifact.name}.{entry['name']}({args})"
                break
    return f"{what} from {who}" + (f" with value {value}" if value else "")


def _divergence_failure(name: str, path: str, project: Project, diverged: _Diverged) -> Failure:
    d = diverged.divergence
    steps = diverged.steps
    index = d.index - steps[-1].first_call if steps else d.index
    where = f"step {len(steps)} ({steps[-1].line()})" if steps else "before the first step"
    call = describe_call(project, d.sender, d.to, d.data, d.value)
    kind = {"transact": "transaction", "call": "call"}.get(d.kind, "read")
    message = f"revm and py-evm differ at {where}, in its call {index} (a {kind}): {call}\n  {d.what}"
    lines = [f"state = {name}()", *(s.line() for s in steps)]
    return Failure(name, path, "BackendDivergence", message, lines, len(steps), steps_data=[s.to_data() for s in steps])


# errors in how a machine or test is written, not in what it found; never shrunk
_DEFINITION_ERRORS = (UsageError, MachineDefinitionError, InvalidArgument, InvalidDefinition)


# -- machines ------------------------------------------------------------------


@dataclass
class _Step:
    rule: str
    arguments: list[tuple[str, str]]
    results: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # raw values, Ref for bundle entries
    first_call: int = 0  # calls the backend had made before the step (--backend-check counts them)

    def to_data(self) -> dict[str, Any]:
        return {"rule": self.rule, "arguments": {k: encode_value(v) for k, v in self.values.items()}, "results": list(self.results)}

    def line(self) -> str:
        call = f"state.{self.rule}({', '.join(f'{k}={v}' for k, v in self.arguments)})"
        if self.results:
            return f"{', '.join(self.results)} = {call}"
        return call


class _RunState:
    def __init__(self) -> None:
        self.runs = 0  # every run
        self.examples = 0  # what Hypothesis counts towards max_examples: valid runs until the first failure
        self.steps = 0
        self.failing = False
        self.last_steps: list[_Step] = []
        self.current: RuleStats | None = None
        self.best: int | None = None  # the shortest failing program so far
        self.first_failure_at: float | None = None
        self.first_failure_example: int | None = None
        self.best_failure: tuple[Any, BaseException] | None = None  # for Ctrl-C while shrinking
        self.rejected = 0  # runs thrown away as invalid by assume()/reject()
        self.aborted = 0  # runs Hypothesis stopped itself (out of data while replaying a mutation)
        self.first_steps: int | None = None  # steps of the first failing program


def _inject(names: Iterable[str], namespace: dict[str, Any], where: str, contracts_dir: Path | None = None) -> dict[str, Any]:
    kwargs = {}
    for name in names:
        if name not in namespace:
            if contracts_dir is not None and not contracts_dir.is_dir():
                shown = _shown(str(contracts_dir)) + "/"
                raise MachineDefinitionError(
                    f"{where}: cannot provide parameter {name!r}: there is no contracts folder at {shown} (set [project] contracts in evmstate.toml). "
                    f"Available: {', '.join(namespace)}."
                )
            close = difflib.get_close_matches(name, list(namespace), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise MachineDefinitionError(f"{where}: cannot provide parameter {name!r}. Available: {', '.join(namespace)}.{hint}")
        if isinstance(namespace[name], Unavailable):
            raise MachineDefinitionError(f"{where}: cannot provide parameter {name!r}: {namespace[name].error}")
        kwargs[name] = namespace[name]
    return kwargs


def provide(names: Iterable[str], project: Project, where: str) -> dict[str, Any]:
    """The project's accounts, chain and contracts, by parameter name; a clear error for any other name."""
    return _inject(names, project.namespace(), where, project.config.contracts_dir)


def _holds(r: RuleSpec, machine: Any) -> bool:
    return all(p(machine) for p in r.preconditions)


def check_all_invariants(spec: MachineSpec, machine: Any) -> None:
    """Check every invariant whose precondition holds; a failure names its invariant."""
    for inv in spec.invariants:
        if not _holds(inv, machine):
            continue
        try:
            inv.function(machine)
        except BaseException as e:
            e._evmstate_invariant = inv.name  # type: ignore[attr-defined]
            raise


def routed(result: Any) -> list[Route]:
    """The routes a rule returned: one route(...), or a tuple of them."""
    if isinstance(result, Route):
        return [result]
    if isinstance(result, tuple) and result and all(isinstance(x, Route) for x in result):
        return list(result)
    return []


def run_machine(
    spec: MachineSpec,
    project: Project,
    settings: Settings,
    seed: int | None,
    emit: Callable[[Any], None],
    path: str = "",
    database: Any = None,
    init_args: tuple[Any, ...] | None = None,
    *,
    capture: bool = True,
    position: tuple[int, int] = (0, 0),
    stop: Callable[[], bool] | None = None,
) -> MachineFinished:
    """Run one machine's lifecycle under Hypothesis and return how it ended.

    init_args, when given, are passed to __init__ positionally (Brownie's state_machine
    fixture); otherwise __init__'s parameters are injected by name. With capture, what the
    machine prints is kept per run and shown only for the reported program (Failure.trace);
    position is (k, total): the k-th machine or test of a run. Raises Interrupted on Ctrl-C
    before anything failed. stop(), when given, is asked before every run until one fails:
    once it says True, no more runs start.
    """
    output = _Output(capture)
    emit = output.outside(emit)
    backend = project.backend
    cls = spec.cls
    name = spec.name
    stats = {
        r.name: RuleStats(filters={p.name: FilterStats() for p in r.params if p.predicate is not None})
        for r in (*spec.initializers, *spec.rules)
    }
    state = _RunState()
    max_steps = settings.stateful_step_count
    started = time.perf_counter()
    emit(MachineStarted(name, "machine", path, position[0], position[1], settings.max_examples))

    def count_revert(_: Any) -> None:
        if state.current is not None:
            state.current.reverts += 1

    rules_strategy = st.sampled_from(spec.rules)
    examples = database if isinstance(database, ShrunkExamples) else None
    search = _search(project, spec.settings, name, seed, spec.init_params)

    def run_one(data: Any) -> None:
        if stop is not None and not state.failing and stop():
            raise _OutOfTime()
        outcome = None  # what this run did, for the example database
        valid, counted = True, False  # whether Hypothesis counts this run as an example; whether it is counted yet
        output.reset()
        try:
            backend.revert(base)
        except Exception as exc:
            raise _Crashed() from exc
        search.run_started()
        machine = object.__new__(cls)
        machine._evmstate_stack = contextlib.ExitStack()
        if not hasattr(machine, "enter"):
            machine.enter = _enter.__get__(machine)
        steps: list[_Step] = []
        state.last_steps = steps
        bundles: dict[str, list[tuple[str, Any]]] = {b.name: [] for b in spec.bundles}
        counters: dict[str, int] = {b: 0 for b in bundles}

        def matching(p: Any) -> list[int]:
            values = bundles[p.bundle.name]
            if p.predicate is None:
                return list(range(len(values)))
            return [i for i, (_, v) in enumerate(values) if p.predicate(v)]

        def ready(r: RuleSpec, count: bool = False) -> bool:
            """Whether the rule can run now; with count, record filter statistics."""
            if not _holds(r, machine):
                return False
            ok = True
            for p in r.params:
                if p.bundle is None:
                    continue
                found = bool(matching(p))
                if p.predicate is not None and count:
                    fs = stats[r.name].filters[p.name]
                    if found:
                        fs.enabled += 1
                    else:
                        fs.skipped += 1
                ok = ok and found
            return ok

        def arguments(draw: Callable[[Any], Any], r: RuleSpec) -> tuple[dict[str, Any], list[tuple[str, str]], dict[str, Any]]:
            """Draw the rule's arguments: (values, how they are shown, how they are recorded)."""
            kwargs: dict[str, Any] = {}
            shown: list[tuple[str, str]] = []
            raw: dict[str, Any] = {}
            for p in r.params:
                if p.bundle is not None:
                    values = bundles[p.bundle.name]
                    # draw among the values that match now; shrinks toward the earliest
                    candidates = matching(p)
                    if not candidates:
                        hypothesis.reject()  # only when two arguments consume the last match
                    i = candidates[draw(_index(len(candidates)))]
                    label, value = values.pop(i) if p.consume else values[i]
                    kwargs[p.name] = value
                    shown.append((p.name, label))
                    raw[p.name] = Ref(label)
                else:
                    value = draw(p.strategy)
                    kwargs[p.name] = value
                    shown.append((p.name, repr(value)))
                    raw[p.name] = value
            return kwargs, shown, raw

        @st.composite
        def next_step(draw: Callable[[Any], Any]) -> tuple[RuleSpec, tuple[Any, ...]]:
            # one draw per step: each top-level draw costs Hypothesis far more than the choices in it
            r = draw(choose)
            return r, arguments(draw, r)

        def execute(r: RuleSpec, drawn: tuple[Any, ...] | None = None) -> None:
            kwargs, shown, raw = drawn if drawn is not None else arguments(data.draw, r)
            step = _Step(r.name, shown, values=raw, first_call=getattr(backend, "calls", 0))
            steps.append(step)
            rs = stats[r.name]
            rs.calls += 1
            state.steps += 1
            state.current = rs
            try:
                result = r.function(machine, **kwargs)
            finally:
                state.current = None
            routes = routed(result)
            if routes:
                for rt in routes:
                    label = f"{rt.bundle.name}_{counters.setdefault(rt.bundle.name, 0)}"
                    counters[rt.bundle.name] += 1
                    bundles.setdefault(rt.bundle.name, []).append((label, rt.value))
                    step.results.append(label)
            elif r.targets:
                values = result.values if isinstance(result, multiple) else (result,)
                for target in r.targets:
                    for value in values:
                        label = f"{target.name}_{counters[target.name]}"
                        counters[target.name] += 1
                        bundles[target.name].append((label, value))
                        step.results.append(label)
            check_invariants()
            search.step_finished()

        def check_invariants() -> None:
            try:
                check_all_invariants(spec, machine)
            finally:
                _stop_if_diverged(backend, steps)

        try:
            with machine._evmstate_stack:
                setup = getattr(machine, "setup", None)
                if callable(setup):
                    try:
                        setup()
                    except Exception as exc:
                        raise _Stopped(user_error(f"{name}.setup", exc)) from exc
                check_invariants()
                if spec.initializers:
                    order = data.draw(st.permutations(spec.initializers))
                    for init in order:
                        # Brownie's initializers may be skipped; Hypothesis's always run once
                        if spec.style == "brownie" and not data.draw(st.booleans()):
                            continue
                        if ready(init, count=True):
                            execute(init)
                enabled: set[str] = set()
                # Drawing from all rules, filtered, keeps each choice's meaning stable while
                # the shrinker edits earlier steps (which changes what is enabled later).
                choose = rules_strategy.filter(lambda r: r.name in enabled)
                step_strategy = next_step()
                for _ in range(max_steps):
                    enabled = {r.name for r in spec.rules if ready(r, count=True)}
                    if not enabled:
                        break
                    search.step_started()
                    execute(*data.draw(step_strategy))
                teardown = getattr(machine, "teardown", None)
                if callable(teardown):
                    teardown()
        except Exception as exc:
            _stop_if_diverged(backend, steps)
            if isinstance(exc, _DEFINITION_ERRORS):
                where = f"{name}.{steps[-1].rule}" if steps else name
                raise _Stopped(user_error(where, exc)) from exc
            # Hypothesis's own exceptions (a rejected or overrun example) are not failures
            if isinstance(exc, UnsatisfiedAssumption):
                state.rejected += 1
            if not isinstance(exc, HypothesisException):
                outcome = (type(exc).__name__, getattr(exc, "_evmstate_invariant", None), tuple(s.line() for s in steps))
                now = time.perf_counter() - started
                if not state.failing:
                    state.failing = True
                    state.first_failure_at = now
                    state.first_failure_example = state.runs + 1
                    state.first_steps = len(steps)
                    state.examples += 1  # the failing run is one of Hypothesis's examples
                    counted = True
                    emit(FailureFound(name, state.examples, path))
                if state.best is None or len(steps) <= state.best:
                    if state.best is None or len(steps) < state.best:
                        state.best_failure = (list(steps), exc)
                    state.best = len(steps)
                    runs = state.runs + 1 - (state.first_failure_example or 0)
                    emit(ShrinkProgress(name, len(steps), state.examples, runs, now - (state.first_failure_at or now), path=path))
            else:
                valid = False
            raise
        except StopTest:
            state.aborted += 1
            valid = False
            raise
        finally:
            state.runs += 1
            if valid and not counted and not state.failing:
                state.examples += 1
            search.run_finished()
            if examples is not None:
                examples.outcome = outcome
            emit(ExampleFinished(name, state.examples, state.steps, time.perf_counter() - started, state.failing, path, state.runs, search.branches if search.covering else None))

    outer = backend.snapshot()
    backend.reset_time_limit()  # a timeout in an earlier machine says nothing about this one
    reverts.listeners.append(count_revert)
    failure = None
    status = "passed"
    error = None
    base = None
    search.start()
    capturing = output.capturing()
    capturing.__enter__()
    try:
        if spec.has_init:
            kwargs = {} if init_args is not None else provide(spec.init_params, project, f"{name}.__init__")
            try:
                if init_args is not None:
                    cls.__init__(cls, *init_args)
                else:
                    cls.__init__(cls, **kwargs)  # class-level, as Brownie runs it
            except Exception as exc:
                raise _Stopped(user_error(f"{name}.__init__", exc)) from exc
            _stop_if_diverged(backend, [])
        base = backend.snapshot()
        search.base_ready()

        if database is not None:
            settings = Settings(settings, database=database)
        settings = search.settings(settings)

        @given(st.data())
        def test(data: Any) -> None:
            run_one(data)

        if seed is not None:
            test = hypothesis.seed(seed)(test)
        # settings after seed(): seed() alone would switch the example database off
        test = settings(test)
        try:
            with reporting.with_reporter(lambda _: None), search.running():
                test()
        except _OutOfTime:
            pass
        except KeyboardInterrupt:
            if state.best_failure is None:
                status = "interrupted"
            else:
                # interrupted while shrinking: keep the shortest failing program found so far
                steps, exc = state.best_failure
                status = "failed"
                failure = _machine_failure(spec, exc, steps, path, interrupted=True)
                failure = _with_trace(failure, lambda: _trace_machine(spec, project, base, failure, exc, capture))
        except (_Stopped, *_DEFINITION_ERRORS):
            raise
        except _Crashed as crashed:
            raise crashed.__cause__  # evmstate's chain failed, not the machine: an internal error
        except _Diverged as diverged:
            status = "failed"
            failure = _divergence_failure(spec.name, path, project, diverged)
        except BaseException as exc:
            status = "failed"
            if examples is not None:
                examples.commit(examples.outcome)  # the last run replayed the reported failure
            failure = _machine_failure(spec, exc, state.last_steps, path)
            failure = _finish_shrinking(spec, project, base, failure, exc, state, examples, emit, started)
            if not getattr(backend, "reports_frames", True):
                failure = _explained_on_py_evm(spec, project, failure, init_args)
            failure = _with_trace(failure, lambda: _trace_machine(spec, project, base, failure, exc, capture))
    except MachineDefinitionError as exc:
        status, error = "error", str(exc)
    except _Diverged as diverged:
        status, failure = "failed", _divergence_failure(spec.name, path, project, diverged)
    except _Stopped as stop:
        status, error = "error", stop.message + output.shown()
    except _DEFINITION_ERRORS as exc:
        status, error = "error", user_error(name, exc) + output.shown()
    finally:
        reverts.listeners.remove(count_revert)
        search.stop()
        try:
            final = inspect.getattr_static(cls, "teardown_final", None)
            if final is not None and base is not None:
                backend.revert(base)  # as Brownie: after the last run, once the chain is reverted
                try:
                    if isinstance(final, (classmethod, staticmethod)):
                        getattr(cls, "teardown_final")()
                    else:
                        final(cls)
                except Exception as exc:
                    message = user_error(f"{name}.teardown_final", exc)
                    error = message if error is None else f"{error}\n{message}"
                    if status == "passed":
                        status = "error"
        finally:
            capturing.__exit__(None, None, None)
            backend.revert(outer)
            backend.release(outer)
    statistics = {**_statistics(state, settings, seed, failure), **search.statistics()}
    result = MachineFinished(
        name, "machine", path, status, state.examples, state.steps, time.perf_counter() - started, stats, failure, error, statistics,
        seed=seed, runs=state.runs, max_examples=settings.max_examples,
    )
    if status == "interrupted":
        raise Interrupted(result)
    return result


class _Output:
    """What the user's code prints while a machine or test runs: kept for the current run only, or passed through."""

    def __init__(self, capture: bool) -> None:
        self.capture = capture
        self.buffer = io.StringIO()

    def reset(self) -> None:
        """Forget what earlier runs printed."""
        self.buffer.seek(0)
        self.buffer.truncate()

    def capturing(self) -> contextlib.AbstractContextManager[Any]:
        if not self.capture:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        stack.enter_context(contextlib.redirect_stdout(self.buffer))
        stack.enter_context(contextlib.redirect_stderr(self.buffer))
        return stack

    def outside(self, emit: Callable[[Any], None]) -> Callable[[Any], None]:
        """emit, called with the output as it was before capturing, so that what it prints is shown."""
        if not self.capture:
            return emit
        out, err = sys.stdout, sys.stderr

        def uncaptured(event: Any) -> None:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                emit(event)

        return uncaptured

    def shown(self) -> str:
        """What the last run printed, to follow an error's message; empty when nothing was."""
        text = self.buffer.getvalue()
        return f"\nCaptured output:\n{text.rstrip()}" if text.strip() else ""


def _with_trace(failure: Failure, make: Callable[[], Trace]) -> Failure:
    """The failure with its trace; Ctrl-C while tracing leaves it without one."""
    import dataclasses

    try:
        trace = make()
    except KeyboardInterrupt:
        return dataclasses.replace(failure, interrupted=True)
    return dataclasses.replace(failure, trace=trace)


def _trace_machine(spec: MachineSpec, project: Project, base: Any, failure: Failure, exc: BaseException, capture: bool) -> Trace:
    from .engine.trace import trace_machine

    return trace_machine(spec, project, base, failure.steps_data, exc, capture=capture)


def _search(project: Project, machine_settings: dict[str, Any], where: str, seed: int | None, names: Iterable[str]) -> Any:
    """The coverage, dictionary and guidance of one machine or test; names: the contracts it asks for."""
    from .search.session import Search, SearchOptions, collector_of

    options = SearchOptions.of(project.config.fuzz, machine_settings, where, report=collector_of(project).wanted)
    return Search(project, options, seed, [n for n in names if n in project.artifacts])


def _finish_shrinking(
    spec: MachineSpec,
    project: Project,
    base: Any,
    failure: Failure,
    exc: BaseException,
    state: _RunState,
    examples: ShrunkExamples | None,
    emit: Callable[[Any], None],
    started: float,
) -> Failure:
    """After Hypothesis: delete steps until the program is 1-minimal, and say how shrinking went."""
    import dataclasses

    from .engine.shrink import remove_steps

    name = spec.name
    first_failure_at = state.first_failure_at or 0.0
    runs = state.runs - (state.first_failure_example or state.runs)
    hypothesis_steps = failure.steps

    def progress(steps: int, replays: int) -> None:
        emit(ShrinkProgress(name, steps, state.examples, runs + replays, time.perf_counter() - started - first_failure_at, "removing steps", failure.path))

    replays = 0
    try:
        found, replays = remove_steps(spec, project, base, failure.steps_data, exc, progress)
    except KeyboardInterrupt:
        found = None
        failure = dataclasses.replace(failure, interrupted=True)
    if found is not None:
        error_type, message, location, tb = describe_error(found.error)
        failure = dataclasses.replace(
            failure,
            message=message,
            program=[f"state = {name}()", *found.lines],
            steps=len(found.steps),
            location=location,
            traceback=tb,
            steps_data=found.steps,
            interrupted=found.interrupted,
        )
    report = ShrinkReport(
        first_steps=state.first_steps if state.first_steps is not None else hypothesis_steps,
        hypothesis_steps=hypothesis_steps,
        steps=failure.steps,
        seconds=time.perf_counter() - started - first_failure_at,
        runs=runs,
        replays=replays,
        replayed=examples is not None and (state.first_failure_example or 0) <= examples.fetched,
    )
    return dataclasses.replace(failure, shrink=report)


def _same_failure(failure: Failure, exc: BaseException) -> bool:
    """Whether exc is the failure reported: error type, invariant, revert reason and where it was raised."""
    location = describe_error(exc)[2]
    ours = (failure.error_type, failure.invariant, failure.revert_reason, failure.location.splitlines()[0] if failure.location else None)
    return ours == (type(exc).__name__, getattr(exc, "_evmstate_invariant", None), getattr(exc, "reason", None), location.splitlines()[0] if location else None)


def _test_explained_on_py_evm(fn: Callable, project: Project, failure: Failure) -> Failure:
    """A property test's failing example run again on py-evm, for source lines (see _explained_on_py_evm)."""
    from .failures import decode_value

    if not failure.steps_data:
        return failure
    reference = project.reference()
    error = None
    try:
        args = {k: decode_value(v, accounts=reference.accounts, refs={}) for k, v in failure.steps_data[0]["arguments"].items()}
        kwargs = provide([n for n in inspect.signature(fn).parameters if n not in args], reference, failure.name)
        with reference.backend.anchor():
            fn.hypothesis.inner_test(**kwargs, **args)
    except Exception as exc:
        error = exc
    return _with_reference_error(failure, error, None)


def _with_reference_error(failure: Failure, error: BaseException | None, problem: str | None) -> Failure:
    """The failure as py-evm reported it when it failed the same way; else the first report, with a note."""
    import dataclasses

    if error is not None and _same_failure(failure, error):
        error_type, message, location, tb = describe_error(error)
        return dataclasses.replace(failure, message=message, location=location, traceback=tb, call_failure=failure_details(error))
    if problem is None:
        first_line = (describe_error(error)[1].splitlines() or [""])[0] if error is not None else ""
        problem = "it passes" if error is None else f"it fails differently: {type(error).__name__}: {first_line}"
    note = f"\n(Replayed on py-evm for its source lines, the program does not fail the same way: {problem}. The backends differ here: run with --backend-check.)"
    return dataclasses.replace(failure, message=failure.message + note)


def _explained_on_py_evm(spec: MachineSpec, project: Project, failure: Failure, init_args: tuple[Any, ...] | None) -> Failure:
    """The failure's program replayed on py-evm, whose failed calls name their source line, check and dev comment.

    A backend without per-opcode hooks (revm) reports reverts by their data alone; the replay
    makes the report as explained as on py-evm. Should py-evm not fail the same way, the
    report keeps the first backend's error and says so.
    """
    from .engine.replay import run_program

    reference = project.reference()
    if init_args is not None:
        # __init__ was given the project's objects (pytest's fixtures): the reference's own, by kind
        same = {id(project.accounts): reference.accounts, id(project.chain): reference.chain}
        same.update({id(c): reference.containers[name] for name, c in project.containers.items()})
        others = [type(a).__name__ for a in init_args if id(a) not in same]
        if others:
            import dataclasses

            note = f"\n(Not replayed on py-evm, so reverts show no source lines: __init__ takes objects that exist only on this chain: {', '.join(others)}.)"
            return dataclasses.replace(failure, message=failure.message + note)
        init_args = tuple(same[id(a)] for a in init_args)
    cls = spec.cls
    saved = dict(vars(cls))  # the class-level __init__ rebinds class attributes: put them back after
    backend = reference.backend
    outer = backend.snapshot()
    ran = None
    problem = None
    try:
        if init_args is not None:
            cls.__init__(cls, *init_args)
        elif spec.has_init:
            cls.__init__(cls, **provide(spec.init_params, reference, f"{spec.name}.__init__"))
        ran = run_program(spec, reference, failure.steps_data)
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    finally:
        backend.revert(outer)
        backend.release(outer)
        for key in [k for k in vars(cls) if k not in saved]:
            delattr(cls, key)
        for key, value in saved.items():
            if vars(cls).get(key, value) is not value:
                setattr(cls, key, value)
    return _with_reference_error(failure, ran.error if ran is not None else None, problem)


def _statistics(state: _RunState, settings: Settings, seed: int | None, failure: Failure | None = None) -> dict[str, Any]:
    stats: dict[str, Any] = {
        "max_examples": settings.max_examples,
        "stateful_step_count": settings.stateful_step_count,
        "phases": ", ".join(p.name for p in settings.phases),
        "seed": seed if seed is not None else "random",
        "examples": state.examples,
        "runs": state.runs,
        "rejected runs": state.rejected,
        "aborted runs": state.aborted,
    }
    if state.first_failure_example is not None:
        stats["first failure at run"] = state.first_failure_example
        stats["first failure after"] = f"{state.first_failure_at:.2f}s"
        stats["shrink runs"] = state.runs - state.first_failure_example
    if failure is not None and failure.shrink is not None:
        r = failure.shrink
        stats["shrink time"] = f"{r.seconds:.2f}s"
        stats["step-deletion replays"] = r.replays
        stats["program steps"] = f"{r.first_steps} found, {r.hypothesis_steps} after Hypothesis, {r.steps} reported"
    return stats


def _machine_failure(spec: MachineSpec, exc: BaseException, steps: list[_Step], path: str, interrupted: bool = False) -> Failure:
    error_type, message, location, tb = describe_error(exc)
    invariant = getattr(exc, "_evmstate_invariant", None)
    lines = [f"state = {spec.name}()", *(s.line() for s in steps)]
    return Failure(
        name=spec.name,
        path=path,
        error_type=error_type,
        message=message,
        program=lines,
        steps=len(steps),
        invariant=invariant,
        location=location,
        traceback=tb,
        revert_reason=getattr(exc, "reason", None),
        steps_data=[s.to_data() for s in steps],
        interrupted=interrupted,
        call_failure=failure_details(exc),
    )


# -- property tests --------------------------------------------------------------


@dataclass
class ExampleLog:
    """What isolate_examples() saw: examples run, and the drawn arguments of the last one that failed."""

    examples: int = 0  # every call of the test, shrinking included
    failing: dict[str, Any] | None = None
    error_type: str | None = None  # of the last example that failed
    valid: bool = True  # whether the last example counts (assume() did not reject it)


@contextlib.contextmanager
def isolate_examples(
    fn: Any,
    backend: Any,
    injected: Iterable[str],
    on_example: Callable[[ExampleLog, bool], None] | None = None,
    stop: Callable[[], bool] | None = None,
    before_revert: Callable[[], None] | None = None,
) -> Iterator[ExampleLog]:
    """While inside, every example of the @given test fn starts from the same chain and leaves it as it was.

    Swaps fn.hypothesis.inner_test (the hook Hypothesis documents for wrapping each example)
    and restores it on the way out. on_example(log, failed) is called after every example;
    stop(), when given, is asked before every example until one fails (see run_machine);
    before_revert() at the end of each, while what it deployed is still there.
    """
    log = ExampleLog()
    injected = set(injected)
    original = fn.hypothesis.inner_test

    @functools.wraps(original)  # Hypothesis reports the example under the test's own name
    def isolated(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # pytest shows the test's frames, not this one
        if stop is not None and log.failing is None and stop():
            raise _OutOfTime()
        log.examples += 1
        log.valid = True
        failed = False
        try:
            with backend.anchor():
                try:
                    return original(*args, **kwargs)
                finally:
                    if before_revert is not None:
                        before_revert()
        except Exception as exc:
            if not isinstance(exc, HypothesisException):
                failed = True
                log.failing = {k: v for k, v in kwargs.items() if k not in injected}
                log.error_type = type(exc).__name__
            elif isinstance(exc, UnsatisfiedAssumption):
                log.valid = False
            raise
        except StopTest:
            log.valid = False
            raise
        finally:
            if on_example is not None:
                on_example(log, failed)

    fn.hypothesis.inner_test = isolated
    try:
        yield log
    finally:
        fn.hypothesis.inner_test = original


def _example_line(name: str, drawn: dict[str, Any] | None) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in (drawn or {}).items())})"


def property_failure(name: str, path: str, exc: BaseException, log: ExampleLog, reported: list[str], shrink: ShrinkReport | None = None) -> Failure:
    """A falsified property test: the error, and the example as name(arg=value, ...) with its drawn arguments only.

    reported (what Hypothesis printed) stands in only when the failing example was not seen.
    """
    error_type, message, location, tb = describe_error(exc)
    if log.failing is not None:
        program = [_example_line(name, log.failing)]
    else:
        program = [line for text in reported for line in str(text).splitlines() if line.strip()]
        program += [n for n in getattr(exc, "__notes__", []) if not n.startswith("You can reproduce")]
    drawn = log.failing or {}
    steps_data = [_Step(name, [(k, repr(v)) for k, v in drawn.items()], values=drawn).to_data()] if log.failing is not None else []
    return Failure(name, path, error_type, message, program, 0, None, location, tb, getattr(exc, "reason", None), steps_data, call_failure=failure_details(exc), shrink=shrink)


def run_test(
    fn: Callable,
    project: Project,
    settings: Settings,
    seed: int | None,
    emit: Callable[[Any], None],
    path: str = "",
    database: Any = None,
    *,
    capture: bool = True,
    position: tuple[int, int] = (0, 0),
    stop: Callable[[], bool] | None = None,
) -> MachineFinished:
    """Run one @given property test, injecting accounts, chain and contracts by name.

    capture, position and stop() as for run_machine(); raises Interrupted on Ctrl-C before anything failed.
    """
    name = fn.__name__
    output = _Output(capture)
    emit = output.outside(emit)
    started = time.perf_counter()
    state = _RunState()
    emit(MachineStarted(name, "test", path, position[0], position[1], settings.max_examples))
    status, failure, error = "passed", None, None
    outer = project.backend.snapshot()
    project.backend.reset_time_limit()
    capturing = output.capturing()
    capturing.__enter__()
    params = inspect.signature(fn).parameters
    # a property test's examples are single calls with nothing to extend: no guidance
    search = _search(project, {"guidance": False}, name, seed, params)
    search.start()
    try:
        # @given hides the parameters it draws from fn's signature: the rest are injected
        kwargs = provide(params, project, name)
        search.base_ready()
        examples = database if isinstance(database, ShrunkExamples) else None
        if database is not None:
            settings = Settings(settings, database=database)
        test = fn
        if seed is not None:
            test = hypothesis.seed(seed)(test)
        # settings after seed(): seed() alone would switch the example database off
        with contextlib.suppress(HypothesisException):
            test = settings(test)
        lines: list[str] = []

        def counted(log: ExampleLog, failed: bool) -> None:
            state.runs = state.steps = log.examples
            if not state.failing and (log.valid or failed):
                state.examples += 1
            output.reset()
            search.run_finished()
            search.run_started()  # the next example draws from what the test's fixtures left
            if examples is not None:
                examples.outcome = (log.error_type, _example_line(name, log.failing)) if failed else None
            if failed and not state.failing:
                state.failing = True
                state.first_failure_at = time.perf_counter() - started
                state.first_failure_example = state.runs
                emit(FailureFound(name, state.examples, path))
            emit(ExampleFinished(name, state.examples, state.steps, time.perf_counter() - started, state.failing, path, state.runs, search.branches if search.covering else None))

        with isolate_examples(fn, project.backend, kwargs, counted, stop, before_revert=search.absorb) as log:
            try:
                with reporting.with_reporter(lines.append), search.running():
                    test(**kwargs)
            except _OutOfTime:
                pass
            except KeyboardInterrupt:
                status = "interrupted"
            except _DEFINITION_ERRORS as exc:
                status, error = "error", user_error(name, exc)
            except BaseException as exc:
                status = "failed"
                if examples is not None:
                    examples.commit(examples.outcome)  # the last run replayed the reported failure
                first = state.first_failure_example or state.runs
                report = ShrinkReport(
                    first_steps=1,
                    hypothesis_steps=1,
                    steps=1,
                    seconds=time.perf_counter() - started - (state.first_failure_at or 0.0),
                    runs=state.runs - first,
                    replays=0,
                    replayed=examples is not None and first <= examples.fetched,
                )
                failure = property_failure(name, path, exc, log, lines, report)
                raised = exc
        if failure is not None and log.failing is not None:
            drawn = log.failing
            failure = _with_trace(failure, lambda: _trace_test(name, fn, project, kwargs, drawn, raised, capture))
    except MachineDefinitionError as exc:
        status, error = "error", str(exc)
    finally:
        search.stop()
        capturing.__exit__(None, None, None)
        project.backend.revert(outer)
        project.backend.release(outer)
    divergence = getattr(project.backend, "divergence", None)
    if divergence is not None:
        status = "failed"
        failure = _divergence_failure(name, path, project, _Diverged(divergence, []))
    elif failure is not None and not getattr(project.backend, "reports_frames", True):
        failure = _test_explained_on_py_evm(fn, project, failure)
    statistics = {**_statistics_of_test(state, settings, seed, failure), **search.statistics()}
    result = MachineFinished(
        name, "test", path, status, state.examples, state.steps, time.perf_counter() - started, {}, failure, error, statistics,
        seed=seed, runs=state.runs, max_examples=settings.max_examples,
    )
    if status == "interrupted":
        raise Interrupted(result)
    return result


def _trace_test(name: str, fn: Any, project: Project, injected: dict[str, Any], drawn: dict[str, Any], exc: BaseException, capture: bool) -> Trace:
    from .engine.trace import trace_test

    return trace_test(name, fn.hypothesis.inner_test, project, injected, drawn, exc, capture=capture)


def _statistics_of_test(state: _RunState, settings: Settings, seed: int | None, failure: Failure | None) -> dict[str, Any]:
    stats: dict[str, Any] = {"max_examples": settings.max_examples, "seed": seed if seed is not None else "random", "examples": state.examples, "runs": state.runs}
    if failure is not None and failure.shrink is not None:
        stats["first failure at run"] = state.first_failure_example
        stats["shrink runs"] = failure.shrink.runs
        stats["shrink time"] = f"{failure.shrink.seconds:.2f}s"
    return stats


# -- the whole run -----------------------------------------------------------------


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


def keep_hypothesis_storage(config: Config) -> None:
    """Keep Hypothesis's own caches under .evmstate/hypothesis, not in a .hypothesis/ folder of the current one.

    HYPOTHESIS_STORAGE_DIRECTORY, when set, still decides.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(config.state_dir / "hypothesis")


def run(config: Config, options: RunOptions, emit: Callable[[Any], None]) -> RunSummary:
    """Compile the project, discover machines and tests, run each and emit events.

    Ctrl-C at any point ends the run with what finished: the summary says it was interrupted,
    and where (a failure found before is kept).
    """
    # Hypothesis draws some values from the constants in the source of every local module
    # loaded so far; importing every module a run may need before anything runs keeps that
    # pool, and so each machine's program, independent of what else runs.
    from .scale import campaign, parallel
    from .engine import discovery, examples, shrink as minimize, replay
    from . import reports  # noqa: F401

    if options.only_stateful and options.no_stateful:
        raise UsageError("--only-stateful and --no-stateful exclude each other; give at most one")
    keep_hypothesis_storage(config)
    seed = run_seed(config.hypothesis, options.overrides)
    summary = RunSummary(seed=seed)
    emit(RunStarted(seed))
    summary.stopped_in = "discovery"
    if options.gas:
        summary.gas = GasStats()
    try:
        with calls.recording(summary.gas) if summary.gas is not None else contextlib.nullcontext():
            _run_items(config, options, emit, summary)
        summary.stopped_in = None
    except KeyboardInterrupt:
        summary.interrupted = True
    return summary


def _run_items(config: Config, options: RunOptions, emit: Callable[[Any], None], summary: RunSummary) -> None:
    from .engine import discovery

    found = discovery.discover(config, options.paths, options.keyword)
    summary.load_errors.extend(found.errors)
    for err in found.errors:
        emit(err)
    kinds = {"machine"} if options.only_stateful else {"test"} if options.no_stateful else {"machine", "test"}
    items = [i for i in found.items if i.kind in kinds]
    summary.total = len(items)
    if not items and not found.errors:
        flag = "--only-stateful" if options.only_stateful else "--no-stateful" if options.no_stateful else None
        summary.nothing = discovery.nothing_found(config, found, options.paths, options.keyword, flag)
        emit(NothingFound(summary.nothing))
        return
    summary.stopped_in = "compiling"
    emit(CompileStarted(_shown(str(config.contracts_dir))))
    compiling = time.perf_counter()
    project = Project(config)
    build = project.build
    emit(CompileFinished(len(build.artifacts), len(set(build.cached) & set(build.artifacts)), time.perf_counter() - compiling, len(build.errors)))
    for err in _unavailable_contracts(config, project, items):
        summary.load_errors.append(err)
        emit(err)
    if options.coverage:
        from .search.session import collector_of

        if not callable(getattr(project.backend, "set_coverage", None)):
            raise UsageError("coverage needs per-opcode hooks, which only the pyevm backend has (not revm, nor --backend-check); run with --backend pyevm")
        collector = collector_of(project)
        collector.wanted = True
        project.fast_getters = False  # a getter read from storage runs no code: its line would look unreached
        try:
            _run_each(config, options, emit, summary, project, items)
        finally:  # after Ctrl-C too: the report holds what ran
            summary.coverage = collector.report(config.root)
        return
    _run_each(config, options, emit, summary, project, items)


def _run_each(config: Config, options: RunOptions, emit: Callable[[Any], None], summary: RunSummary, project: Project, items: list[Any]) -> None:
    seed = summary.seed
    if options.workers > 1 or options.shards > 1:
        from .scale.parallel import run_items

        summary.stopped_in = "the machines and tests running"
        return run_items(config, project, items, options, seed, summary, emit)
    for k, item in enumerate(items, 1):
        summary.stopped_in = f"{item.path}::{item.name}"
        try:
            result = run_item(
                config, project, item, options.overrides, emit, save_failures=options.save_failures, seed=seed, capture=options.capture, position=(k, len(items))
            )
        except MachineDefinitionError as exc:
            err = LoadFailed(f"{item.path}::{item.name}", str(exc))
            summary.load_errors.append(err)
            emit(err)
            continue
        except Interrupted as stop:
            emit(stop.result)
            summary.results.append(stop.result)
            raise
        emit(result)
        summary.results.append(result)
        if result.failure is not None and result.failure.interrupted:
            raise KeyboardInterrupt


def _unavailable_contracts(config: Config, project: Project, items: list[Any]) -> list[LoadFailed]:
    """One error per contract that does not compile, naming the machines and tests that ask for it."""
    asks: list[tuple[str, set[str]]] = []
    for item in items if project.build.errors else ():
        try:
            if item.kind == "machine":
                params = collect(item.obj).init_params
            else:
                params = inspect.signature(item.obj.hypothesis.inner_test).parameters
        except (MachineDefinitionError, AttributeError, TypeError, ValueError):
            continue  # reported when the item runs
        asks.append((item.name, set(params)))
    errors = []
    for name, error in project.build.errors.items():
        path = project.build.sources[name]
        try:
            shown = str(path.relative_to(config.root))
        except ValueError:
            shown = str(path)
        needed = [n for n, params in asks if name in params]
        if needed:
            message = f"contract {name!r} does not compile; needed by {', '.join(needed)} (they end as errors, the others run)"
        else:
            message = f"contract {name!r} does not compile (no machine or test here asks for it):\n{error}"
        errors.append(LoadFailed(shown, message))
    return errors


def shard_seed(seed: int, machine_id: str, shard: int | None = None) -> int:
    """The Hypothesis seed of one shard of a machine's examples: machine_seed() of the machine alone when shard is None."""
    return machine_seed(seed, machine_id if shard is None else f"{machine_id}#{shard}")


def shard_examples(max_examples: int, shard: int, shards: int) -> int:
    """How many of max_examples shard number shard (of shards) runs: an even split, the first ones one more."""
    return max_examples // shards + (1 if shard < max_examples % shards else 0)


def run_item(
    config: Config,
    project: Project,
    item: Any,
    overrides: Overrides,
    emit: Callable[[Any], None],
    *,
    save_failures: bool = True,
    seed: int | None = None,
    capture: bool = True,
    position: tuple[int, int] = (0, 0),
    shard: int | None = None,
    shards: int = 1,
    stop: Callable[[], bool] | None = None,
    keep: Callable[[FailureRecord], Any] | None = None,
) -> MachineFinished:
    """Run one discovered machine or property test and save its failure; the same under pytest.

    seed is the run's seed (one is chosen when None); the item runs with its own seed derived
    from it and its id, unless the item pins one. Raises MachineDefinitionError, before running
    anything, when the item cannot be run as written, and Interrupted on Ctrl-C before anything
    failed. capture and position as for run_machine().

    shard, when given, numbers one of several runs of the item, each under a seed of its own
    (shard_seed); with shards > 1 it runs its part of the item's examples (shard_examples).
    stop() ends the item early (see run_machine). keep(record), when given, gets the failure
    record instead of the failure store (a worker hands it to the process that saves it).
    """
    where = f"{item.path}::{item.name}"
    if seed is None:
        seed = run_seed(config.hypothesis, overrides)
    given = spec = None
    if item.kind == "machine":
        spec = collect(item.obj)
        given = spec.settings
    settings, pinned = build_settings(config.hypothesis, given or {}, overrides, spec.name if spec is not None else item.name)
    if shard is not None and shards > 1:
        settings = Settings(settings, max_examples=max(1, shard_examples(settings.max_examples, shard, shards)))
    own = shard_seed(pinned if pinned is not None else seed, where, shard)
    started = time.perf_counter()
    try:
        if spec is not None:
            result = run_machine(spec, project, settings, own, emit, item.path, database=database_for(config, where), capture=capture, position=position, stop=stop)
        else:
            result = run_test(item.obj, project, settings, own, emit, item.path, database=database_for(config, where), capture=capture, position=position, stop=stop)
    except (MachineDefinitionError, KeyboardInterrupt):
        raise
    except Exception:
        # evmstate itself failed: this item ends as an internal error, the others still run
        # on a fresh chain (the old one may be left anywhere), and the run exits 3
        project.renew_chain()
        return MachineFinished(
            item.name, item.kind, item.path, "error", 0, 0, time.perf_counter() - started,
            error=f"internal error in evmstate while running {where}:\n{traceback.format_exc().rstrip()}",
            seed=own, max_examples=settings.max_examples, internal=True,
        )
    # a difference between backends is a finding about evmstate's backends, not a program to replay
    replayable = result.failure is not None and result.failure.error_type != "BackendDivergence"
    if replayable and keep is not None:
        record = failure_record(config, project, item, result, settings, seed)
        keep(record)
        return _with_id(result, record.id)
    if replayable and save_failures:
        result = save_failure(config, project, item, result, settings, seed)
    return result


def _with_id(result: MachineFinished, rid: str) -> MachineFinished:
    import dataclasses

    return dataclasses.replace(result, failure_id=rid)


def save_failure(config: Config, project: Project, item: Any, result: MachineFinished, settings: Settings, seed: int | None) -> MachineFinished:
    """Save the failure as a record and return the result carrying its id; seed is the run's."""
    record = failure_record(config, project, item, result, settings, seed)
    FailureStore(config.state_dir / "failures").save(record)
    return _with_id(result, record.id)


def failure_record(config: Config, project: Project, item: Any, result: MachineFinished, settings: Settings, seed: int | None) -> FailureRecord:
    """The record saving the result's failure would write; seed is the run's."""
    failure = result.failure
    assert failure is not None
    rid = record_id(item.kind, item.path, item.name, failure.error_type, failure.program, location=failure.location, message=failure.message)
    record = FailureRecord(
        id=rid,
        kind=item.kind,
        path=item.path,
        name=item.name,
        error={
            "type": failure.error_type,
            "message": failure.message,
            "revert_reason": failure.revert_reason,
            "call_failure": failure.call_failure,
            "invariant": failure.invariant,
            "location": failure.location,
        },
        steps=failure.steps_data,
        program=failure.program,
        versions=versions(),
        hashes=source_hashes(config, project, item.path),
        settings={"max_examples": settings.max_examples, "stateful_step_count": settings.stateful_step_count, "hypothesis_seed": result.seed},
        seed=seed,
        interrupted=failure.interrupted,
    )
    return record


def versions() -> dict[str, str]:
    from importlib.metadata import version

    from . import __version__
    from .compiler import VYPER_VERSION

    return {"evmstate": __version__, "vyper": VYPER_VERSION, "py-evm": version("py-evm"), "hypothesis": hypothesis.__version__}


def source_hashes(config: Config, project: Project | None, path: str, inputs: dict[str, str] | None = None) -> dict[str, Any]:
    """Hashes of every contract source, of every file they import and of the machine module, to tell when they changed."""
    import hashlib

    from .compiler import find_sources, input_hashes

    contracts = {p.stem: hashlib.sha256(p.read_bytes()).hexdigest() for p in find_sources(config.contracts_dir)}
    if project is not None:
        inputs = project.build.inputs
    elif inputs is None:
        inputs = input_hashes(config.contracts_dir, search_paths=config.search_paths, root=config.root)
    module = config.root / path
    return {"contracts": contracts, "inputs": inputs, "module": hashlib.sha256(module.read_bytes()).hexdigest() if module.is_file() else None}


def database_for(config: Config, key: str) -> Any:
    """The example database ([database] url: .evmstate/examples by default), one namespace per machine or test."""
    from .engine.examples import open_database

    return ShrunkExamples(open_database(config), key.encode())
