"""The machine run loop: one state machine under Hypothesis, from its class-level __init__ to its report."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import time
from typing import Any, Callable

import hypothesis
from hypothesis import given, reporting
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, StopTest, UnsatisfiedAssumption

from ..contracts.contract import reverts
from ..contracts.project import Project
from ..contracts.revert import failure_details
from ..errors import MachineDefinitionError
from ..failures import Ref
from ..machine import MachineSpec, RuleSpec, _enter, multiple
from .describe import describe_error, user_error
from .events import (
    ExampleFinished,
    Failure,
    FailureFound,
    FilterStats,
    Interrupted,
    MachineFinished,
    MachineStarted,
    RuleStats,
    ShrinkProgress,
    ShrinkReport,
)
from .examples import ShrunkExamples
from .explain import divergence_failure, explained_on_py_evm
from .lifecycle import Output, RunState, search_session, with_trace
from .program import (
    DEFINITION_ERRORS,
    Crashed,
    Diverged,
    OutOfTime,
    Step,
    Stopped,
    check_all_invariants,
    holds,
    index_strategy,
    provide,
    routed,
    stop_if_diverged,
)
from .shrink import remove_steps
from .trace import Trace, trace_machine


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
    output = Output(capture)
    emit = output.outside(emit)
    backend = project.backend
    cls = spec.cls
    name = spec.name
    stats = {
        r.name: RuleStats(filters={p.name: FilterStats() for p in r.params if p.predicate is not None})
        for r in (*spec.initializers, *spec.rules)
    }
    state = RunState()
    max_steps = settings.stateful_step_count
    started = time.perf_counter()
    emit(MachineStarted(name, "machine", path, position[0], position[1], settings.max_examples))

    def count_revert(_: Any) -> None:
        if state.current is not None:
            state.current.reverts += 1

    rules_strategy = st.sampled_from(spec.rules)
    examples = database if isinstance(database, ShrunkExamples) else None
    search = search_session(project, spec.settings, name, seed, spec.init_params)

    def run_one(data: Any) -> None:
        if stop is not None and not state.failing and stop():
            raise OutOfTime()
        outcome = None  # what this run did, for the example database
        valid, counted = True, False  # whether Hypothesis counts this run as an example; whether it is counted yet
        output.reset()
        try:
            backend.revert(base)
        except Exception as exc:
            raise Crashed() from exc
        search.run_started()
        machine = object.__new__(cls)
        machine._evmstate_stack = contextlib.ExitStack()
        if not hasattr(machine, "enter"):
            machine.enter = _enter.__get__(machine)
        steps: list[Step] = []
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
            if not holds(r, machine):
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
                    i = candidates[draw(index_strategy(len(candidates)))]
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
            step = Step(r.name, shown, values=raw, first_call=getattr(backend, "calls", 0))
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
                stop_if_diverged(backend, steps)

        try:
            with machine._evmstate_stack:
                setup = getattr(machine, "setup", None)
                if callable(setup):
                    try:
                        setup()
                    except Exception as exc:
                        raise Stopped(user_error(f"{name}.setup", exc)) from exc
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
            stop_if_diverged(backend, steps)
            if isinstance(exc, DEFINITION_ERRORS):
                where = f"{name}.{steps[-1].rule}" if steps else name
                raise Stopped(user_error(where, exc)) from exc
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
                raise Stopped(user_error(f"{name}.__init__", exc)) from exc
            stop_if_diverged(backend, [])
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
        except OutOfTime:
            pass
        except KeyboardInterrupt:
            if state.best_failure is None:
                status = "interrupted"
            else:
                # interrupted while shrinking: keep the shortest failing program found so far
                steps, exc = state.best_failure
                status = "failed"
                failure = machine_failure(spec, exc, steps, path, interrupted=True)
                failure = with_trace(failure, lambda: _trace_machine(spec, project, base, failure, exc, capture))
        except (Stopped, *DEFINITION_ERRORS):
            raise
        except Crashed as crashed:
            raise crashed.__cause__  # evmstate's chain failed, not the machine: an internal error
        except Diverged as diverged:
            status = "failed"
            failure = divergence_failure(spec.name, path, project, diverged)
        except BaseException as exc:
            status = "failed"
            if examples is not None:
                examples.commit(examples.outcome)  # the last run replayed the reported failure
            failure = machine_failure(spec, exc, state.last_steps, path)
            failure = _finish_shrinking(spec, project, base, failure, exc, state, examples, emit, started)
            if not getattr(backend, "reports_frames", True):
                failure = explained_on_py_evm(spec, project, failure, init_args)
            failure = with_trace(failure, lambda: _trace_machine(spec, project, base, failure, exc, capture))
    except MachineDefinitionError as exc:
        status, error = "error", str(exc)
    except Diverged as diverged:
        status, failure = "failed", divergence_failure(spec.name, path, project, diverged)
    except Stopped as stop:
        status, error = "error", stop.message + output.shown()
    except DEFINITION_ERRORS as exc:
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


def _trace_machine(spec: MachineSpec, project: Project, base: Any, failure: Failure, exc: BaseException, capture: bool) -> Trace:
    return trace_machine(spec, project, base, failure.steps_data, exc, capture=capture)


def _finish_shrinking(
    spec: MachineSpec,
    project: Project,
    base: Any,
    failure: Failure,
    exc: BaseException,
    state: RunState,
    examples: ShrunkExamples | None,
    emit: Callable[[Any], None],
    started: float,
) -> Failure:
    """After Hypothesis: delete steps until the program is 1-minimal, and say how shrinking went."""
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


def _statistics(state: RunState, settings: Settings, seed: int | None, failure: Failure | None = None) -> dict[str, Any]:
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


def machine_failure(spec: MachineSpec, exc: BaseException, steps: list[Step], path: str, interrupted: bool = False) -> Failure:
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

