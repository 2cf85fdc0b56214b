"""The machine run loop: one state machine under Hypothesis, from its class-level __init__ to its report.

MachineRun builds the Hypothesis test apart from running it (as Hypothesis's own
get_state_machine_test does); each of its examples is an Example (example.py): one machine instance and the
steps drawn for it. What a step means (instance creation, setup, invariants, routing into
bundles) is program.py's, shared with step deletion, replay and traces.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from typing import Any, Callable

import hypothesis
from hypothesis import Phase, given, reporting
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, HypothesisException, StopTest, Unsatisfiable, UnsatisfiedAssumption

from ..contracts.contract import reverts
from ..contracts.project import Project
from ..errors import BuildsDiverged, CallTimeout, MachineDefinitionError, from_ctrl_c
from ..hooks import ctrl_c_noted
from ..spec.machine import MachineSpec
from ..search import canaries
from ..search.feedback import signals
from ..search.native.choices import composite
from .tracebacks import ErrorInfo, failed_invariant, identity_of, machine_error, user_error
from .verdicts import escaped, is_mistake, message_of, run_code, shown_type
from .events import (
    NOT_SHRUNK,
    Event,
    ExampleFinished,
    Failure,
    FailureFound,
    FilterStats,
    Interrupted,
    MachineFinished,
    Optimum,
    MachineStarted,
    RuleStats,
    ShrinkProgress,
    Status,
)
from .example import Example
from .optimize.best import Tracker
from .optimize.finish import optima
from .database import KNOWN, ShrunkExamples
from .explain import divergence_failure, explained_on_py_evm, time_hint
from .lifecycle import Lifecycle, Phases, RunState, cleared, frozen_heap, internal_error, left_out_note, search_session
from .lifecycle import kept_at_stop, stop_for, with_note, with_trace
from .program import (
    DEFINITION_ERRORS,
    differential_notes,
    ShrinkOutOfTime,
    Crashed,
    Diverged,
    InitFailed,
    OutOfTime,
    Step,
    Stopped,
    init_class,
    restore_class,
    live_program_lines,
    raised_in,
    stop_if_diverged,
)
from .rejections import of_machine
from .settings import MachineSettings, RunSetup
from .shrink.budget import Budget, OutOfBudget, StopReason, stopped_at
from .shrink.finish import shrink_report, shrunk
from .shrink.trials import has_domains
from .swarm import RuleDraw, rule_order, swarm_strategy
from .trace import Trace, trace_machine


def run_machine(
    spec: MachineSpec, project: Project, settings: Settings, seed: int | None, emit: Callable[[Event], None],
    path: str = "", database: Any = None, init_args: tuple[Any, ...] | None = None, *,
    position: tuple[int, int] = (0, 0), **options: Any,
) -> MachineFinished:
    """Run one machine's lifecycle under Hypothesis and return how it ended (see MachineRun; options: capture, stop).

    position is (k, total): the k-th machine or test of a run. Raises Interrupted on Ctrl-C
    before anything failed.
    """
    setup = RunSetup(path, database, init_args=init_args, **options)
    return MachineRun(spec, project, settings, seed, emit, setup).run(position)



class MachineRun:
    """One machine under Hypothesis: the test built from it, its examples, and how it ended.

    setup (settings.RunSetup) says the rest: init_args, when given, are passed to __init__
    positionally (Brownie's state_machine fixture); otherwise __init__'s parameters are injected by
    name. With capture, what the machine prints is kept per run and shown only for the reported
    program (Failure.trace). stop(), when given, is asked before every run until one fails: once
    it says True, no more runs start. corpus, when given, holds the machine's saved guidance runs
    (search.corpus): its search starts from them and adds the runs it keeps.
    """

    def __init__(
        self, spec: MachineSpec, project: Project, settings: Settings, seed: int | None, emit: Callable[[Event], None],
        setup: RunSetup = RunSetup(),
    ) -> None:
        self.spec = spec
        # the machine's own settings, read when it was loaded (discovery.Item.settings), else now
        own = setup.machine_settings
        if own is None:
            own = MachineSettings.parse(spec.settings, spec.name)
        self.deadline = setup.deadline  # time.monotonic() by which shrinking ends, whatever shrink_time says
        self.shrink_time = own.shrink_seconds(project.config.fuzz.shrink_time)
        # steps between two checks of the invariants while the search looks for a failure; after the first, every
        # step (example.py)
        self.invariant_interval = own.interval(project.config.fuzz.invariant_interval)
        # what shrinking may spend (shrink/budget.py), from the first failure on; why it stopped Hypothesis's shrinking,
        # if it did
        self.shrink_budget = Budget.of_seconds(self.shrink_time, deadline=self.deadline)
        self.shrink_stopped: StopReason | None = None
        self.project = project
        self.backend = project.backend
        self.settings = settings
        self.shrinks = Phase.shrink in settings.phases  # as given: a phase of the search narrows self.settings
        self.seed = seed
        self.path = setup.path
        database = self.database = setup.database
        self.init_args = setup.init_args
        self.as_run = setup.as_run
        self.capture, self.traced = setup.capture, setup.trace
        self.stop = setup.stop
        self.search = search_session(project, own.search, spec.name, seed, spec.init_params, setup.corpus)
        self.life = Lifecycle(project, setup.capture, emit, self.search)
        self.emit = self.life.emit
        self.stats = {
            r.name: RuleStats(
                filters={p.name: FilterStats() for p in r.params if p.predicate is not None},
                gated=bool(r.preconditions) or any(p.bundle is not None for p in r.params),
            )
            for r in (*spec.initializers, *spec.rules)
        }
        self.state = RunState()
        self.phases = Phases()  # seconds per phase, for the statistics
        self.rejections = of_machine(spec)  # the runs assume() threw away before any failed
        self.examples = database if isinstance(database, ShrunkExamples) else None
        self.program: Example | None = None  # the run being drawn
        self.order = rule_order(spec.rules)  # as Hypothesis samples them
        self.swarm = swarm_strategy(self.order)
        on = signals(project.config.environment.feedback)
        streaks = "streaks" in on  # off a rule whose calls all reverted
        # each step's rule, by weight; closing: a rule after which another never goes through is drawn rarely too
        self.rules = RuleDraw(self.order, settings.stateful_step_count, streaks, "closing" in on)
        # one strategy for every step of every run: building a composite costs Hypothesis milliseconds
        self.step = composite(lambda draw: self.program.draw_step(draw))  # type: ignore[union-attr]
        self.base: Any = None  # the chain after the class-level __init__: every run starts there
        self.started = 0.0
        # set by teardown_final when it raises: status, error, a mistake of the machine
        self.final_status: tuple[Status, str | None, bool] | None = None
        self.crashed = False  # evmstate's chain failed while shrinking: renewed once the machine ends
        self.hypothesis_shrinks = False  # whether Hypothesis's own shrink phase runs (see hypothesis_test)
        self.optimum = Tracker(spec) if spec.optimizers else None  # the best value of each optimize method
        self.known = setup.known  # failures found before: a run that fails as one is counted and the search goes on
        self.hits: dict[str, int] = {}  # those runs, by the id of the failure they hit
        self.found_as: Any = None  # the identity of the first run that failed otherwise, as it raised it

    # -- the lifecycle --------------------------------------------------------------

    def run(self, position: tuple[int, int] = (0, 0)) -> MachineFinished:
        """Run the machine start to finish; raises Interrupted on Ctrl-C before anything failed."""
        spec = self.spec
        self.started = time.perf_counter()
        self.emit(
            MachineStarted(
                name=spec.name, kind="machine", path=self.path, index=position[0], total=position[1],
                max_examples=self.settings.max_examples, warnings=spec.warnings,
            )
        )
        status: Status = "passed"
        failure, error, broken = None, None, False
        found: tuple[Optimum, ...] = ()
        self.life.enter()
        class_before = dict(vars(spec.cls))
        registry, outside = canaries.Registry(), canaries.CURRENT.value
        canaries.CURRENT.set(registry)  # what the rules and invariants say they exercised
        try:
            try:
                with reverts.listeners.listening(self.count_revert):
                    self.init_class()
                    self.base = self.backend.snapshot()
                    self.search.base_ready()
                    with frozen_heap():
                        status, failure = self.search_for_failure()
                    found = optima(self.optimum, spec, self.project, self.base, self.shrink_time, self.deadline)
            except MachineDefinitionError as exc:
                status, error, broken = "error", str(exc), True
            except Diverged as diverged:
                status, failure = "failed", divergence_failure(spec.name, self.path, self.project, diverged)
            except InitFailed as failed:
                status, failure = "failed", self.machine_failure(failed.error, [])
            except Stopped as stop:
                status, error, broken = "error", stop.message + self.life.output.shown(), stop.mistake
            except DEFINITION_ERRORS as exc:
                status, error, broken = "error", user_error(spec.name, exc) + self.life.output.shown(), True
        finally:
            canaries.CURRENT.set(outside)
            try:
                self.life.exit(lambda: self.teardown_final(status, error))
            except Exception:
                # a Ctrl-C inside a snapshot or revert may lose the machine's first snapshot: a new chain, as on a crash
                if not (self.crashed or status == "interrupted" or (failure is not None and failure.interrupted)):
                    raise
                self.crashed = True
            self.project.accounts.enlist({})  # the machine's actors were on its chain alone
            if self.crashed:  # the chain may be left anywhere: the next machine starts on a new one
                self.project.renew_chain()
            restore_class(spec.cls, class_before)
        if self.final_status is not None:
            status, error, final_mistake = self.final_status
            broken = broken or final_mistake
        statistics = {**self.statistics(failure), **self.search.statistics(), **self.phases.statistics()}
        result = MachineFinished(
            name=spec.name, kind="machine", path=self.path, status=status, examples=self.state.examples,
            steps=self.state.steps, elapsed=time.perf_counter() - self.started, rules=self.stats, failure=failure,
            error=error, statistics=statistics, seed=self.seed, runs=self.state.runs,
            max_examples=self.settings.max_examples, rejected=self.rejections.total,
            late_branches=self.life.growth.late(), late_stages=self.life.growth.late_stages(),
            load_warnings=spec.warnings, phases=dict(self.phases.seconds), broken=broken and status == "error",
            differential=differential_notes(self.backend),
            canaries=registry.canaries, left_out=registry.left_out, hits=dict(self.hits), found_as=self.found_as,
            optima=found,
        )
        if status == "interrupted":
            raise Interrupted(result)
        return result

    def init_class(self) -> None:
        """The class-level __init__, once; an error in it stops the machine."""
        try:
            init_class(self.spec, self.project, self.init_args)
        except InitFailed as failed:
            if isinstance(failed.error, BuildsDiverged):
                raise  # the builds of a differential run differ in deploying: a verdict, with no step to shrink
            raise Stopped(
                user_error(f"{self.spec.name}.__init__", failed.error), mistake=is_mistake(failed.error)
            ) from failed.error
        stop_if_diverged(self.backend, [])

    def teardown_final(self, status: Status, error: str | None) -> None:
        """teardown_final(cls), after the last run, once the chain is reverted (as Brownie)."""
        cls = self.spec.cls
        final = inspect.getattr_static(cls, "teardown_final", None)
        if final is None or self.base is None:
            return
        self.backend.revert(self.base)
        try:
            if isinstance(final, (classmethod, staticmethod)):
                run_code(getattr(cls, "teardown_final"))
            else:
                run_code(final, cls)
        except Exception as exc:
            message = user_error(f"{self.spec.name}.teardown_final", exc)
            self.final_status = (
                "error" if status == "passed" else status, message if error is None else f"{error}\n{message}",
                is_mistake(exc),
            )

    def count_revert(self, _: Any) -> None:
        if self.state.current is not None:
            self.state.current.reverts += 1

    # -- Hypothesis -----------------------------------------------------------------

    def hypothesis_test(self) -> Callable[[], None]:
        """The @given test whose examples are this machine's runs, with its seed and settings."""
        run_one = self.run_one
        settings = self.settings
        if self.database is not None:
            settings = Settings(settings, database=self.database)
        settings = self.search.settings(settings)
        if Phase.shrink in settings.phases and has_domains(self.spec):
            # every argument can be made smaller on the recorded program: evmstate's passes
            # shrink it (finish_shrinking), far faster than replaying every try from the start
            settings = Settings(settings, phases=[p for p in settings.phases if p is not Phase.shrink])
        self.hypothesis_shrinks = Phase.shrink in settings.phases

        # Hypothesis keys the example database on this function's source: keep its text as it is
        @given(st.data())
        def test(data: Any) -> None:
            run_one(data)

        if self.seed is not None:
            test = hypothesis.seed(self.seed)(test)
        # settings after seed(): seed() alone would switch the example database off
        return settings(test)

    def search_for_failure(self) -> tuple[Status, Failure | None]:
        """Run the Hypothesis test; (status, failure) as it ended."""
        test = self.hypothesis_test()
        searching = time.perf_counter()
        failed: BaseException | None = None
        try:
            with reporting.with_reporter(lambda _: None), self.search.running(), ctrl_c_noted() as ctrl_c:
                try:
                    test()
                finally:
                    found = self.state.first_failure_at
                    self.phases.searched(searching, self.started + found if found is not None else None)
        except OutOfTime:
            pass
        except ShrinkOutOfTime:
            return "failed", self.cut_short(self.budget_reason(self.shrink_stopped or StopReason.BUDGET))
        except KeyboardInterrupt:
            if self.state.best_failure is None:
                return "interrupted", None
            # interrupted while shrinking: keep the shortest failing program found so far
            return kept_at_stop(self)
        except (Stopped, *DEFINITION_ERRORS) as exc:
            if self.state.best_failure is None:
                raise
            message = exc.message if isinstance(exc, Stopped) else user_error(self.spec.name, exc)
            return "failed", self.cut_short(f"an error of the machine, not this failure: {message}")
        except Crashed as crashed:
            cause = crashed.__cause__ or crashed
            if self.state.best_failure is None:
                raise cause from None  # evmstate's chain failed, not the machine: an internal error
            self.crashed = True
            return "failed", self.cut_short(internal_error(cause))
        except Diverged as diverged:
            return "failed", divergence_failure(self.spec.name, self.path, self.project, diverged)
        except (FailedHealthCheck, Unsatisfiable) as exc:  # most runs thrown away: nothing was tested
            raise self.rejections.error(self.spec.name, "machine", self.state.examples, exc) from None
        except BaseException as exc:
            if self.state.best_failure is None and self.state.last_error is None:  # no run failed: not the contract's
                if ctrl_c:  # Hypothesis's bookkeeping, stopped by a Ctrl-C, raised in its handler (an assert)
                    return "interrupted", None
                raise  # an internal error
            if self.state.best_failure is not None and ctrl_c:
                # Ctrl-C in Hypothesis's last replay of the failure, which Hypothesis reports as
                # whatever that run's end made of it (FlakyStrategyDefinition): interrupted while shrinking
                return kept_at_stop(self)
            if self.state.best_failure is not None and exc is not self.state.last_error:
                # raised by the search around the runs, not by the program being shrunk
                return "failed", self.cut_short(internal_error(exc))
            failed = exc
        # reported outside the handler: an error a shrink's replay raises in there would have the search's failure as
        # its __context__, and so its revert's details (what tells a failure's identity and signature apart)
        if failed is None:
            return "passed", None
        try:
            return "failed", self.report(failed)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM before the shrink's own guard took over: the failure is kept
            if self.state.best_failure is None:
                raise
            return kept_at_stop(self)

    def shrink_stop(self) -> StopReason | None:
        """Why shrinking must stop before another run: its budget spent, or a clock (budget.py); None to go on."""
        try:
            self.shrink_budget.check(1)
        except OutOfBudget as exc:
            return exc.reason
        return None

    def cut_short(self, reason: str, interrupted: bool = False) -> Failure:
        """The shortest failing program found where shrinking stopped early: reported, traced, saved as it is."""
        assert self.state.best_failure is not None
        steps, exc = self.state.best_failure
        failure = self.machine_failure(exc, steps, interrupted=interrupted)
        shrink = shrink_report(self, failure.steps, failure.steps, 0, minimal=False)
        failure = dataclasses.replace(failure, stopped=reason, shrink=shrink)
        if self.crashed:
            return with_note(failure, "no trace: evmstate's chain failed, so the program was not replayed")
        return with_trace(failure, lambda: self.trace(failure, exc)) if self.traced else failure

    def report(self, exc: BaseException) -> Failure:
        """The failure Hypothesis reported, made 1-minimal, explained and traced.

        An error in any of these phases leaves the failure as the phase before made it, and says so.
        """
        if self.examples is not None:
            self.examples.commit(self.examples.outcome)  # the last run replayed the reported failure
        failure = self.machine_failure(exc, self.state.last_steps)
        try:
            with self.phases.timed("shrink (evmstate)"):
                failure = self.finish_shrinking(failure, exc)
        except Exception as error:
            shrink = shrink_report(self, failure.steps, failure.steps, 0, minimal=False)
            failure = dataclasses.replace(failure, stopped=internal_error(error), shrink=shrink)
        if not self.backend.capabilities.frames:
            try:
                with self.phases.timed("explain"):
                    failure = explained_on_py_evm(self.spec, self.project, failure, self.init_args)
            except Exception as error:
                failure = with_note(failure, f"not explained on py-evm: {internal_error(error)}")
        if self.state.left_out:
            failure = with_note(failure, left_out_note(self.state.left_out, self.state.left_out_first))
        hint = time_hint(failure, self.project)
        if hint is not None:
            failure = with_note(failure, hint)
        return with_trace(failure, lambda: self.trace(failure, exc)) if self.traced else failure

    # -- one example ------------------------------------------------------------------

    def run_one(self, data: Any) -> None:
        """One Hypothesis example: a new machine instance and the program drawn for it."""
        state, stop = self.state, self.stop
        if stop is not None and not state.failing and stop():
            raise OutOfTime()
        if state.failing and self.hypothesis_shrinks and (reason := self.shrink_stop()) is not None:
            self.shrink_stopped = reason
            raise ShrinkOutOfTime()
        outcome: Any = None  # what this run did, for the example database
        valid, counted = True, False  # whether Hypothesis counts this run as an example; whether it is counted yet
        self.life.output.reset()
        try:
            self.backend.revert(self.base)
        except Exception as exc:
            raise Crashed() from exc
        self.search.run_started()
        if self.optimum is not None:
            self.optimum.run_started()
        program = self.program = Example(self, data)
        state.last_steps = program.steps
        searching = not state.failing  # a run of the search, not of Hypothesis's shrinking: its known failures count
        try:
            with program.machine._evmstate_stack:
                program.play(self.step, self.settings.stateful_step_count)
            if not state.failing:
                self.rules.ends.learn(program.outcomes)
        except Exception as exc:
            if from_ctrl_c(exc):
                raise KeyboardInterrupt from exc  # raised on the way out of what a Ctrl-C stopped: not the contract's
            stop_if_diverged(self.backend, program.steps)
            mistake = is_mistake(exc)
            if state.failing and (mistake or isinstance(exc, CallTimeout)):
                # a program the shrinker tried met an error of the machine or a limit of evmstate,
                # not the failure being shrunk: it is left out, and the shrinking goes on
                state.left_out += 1
                if state.left_out_first is None:
                    where = raised_in(self.spec.name, exc, program.steps)
                    state.left_out_first = f"{where} raised {shown_type(exc)}: {message_of(exc)}"
                valid = False
                hypothesis.reject()
            if (stopped := stop_for(self, exc, program.steps, mistake)) is not None:
                raise stopped from exc
            # Hypothesis's own exceptions (a rejected or overrun example) are not failures
            if isinstance(exc, UnsatisfiedAssumption):
                state.rejected += 1
                if not state.failing:
                    self.rejections.add(exc)
            if isinstance(exc, Exception) and program.past(exc):
                outcome = KNOWN  # a known failure outside the steps and their checks (teardown): the run ends as a pass
                return
            if not isinstance(exc, HypothesisException):
                outcome = (
                    type(exc).__name__, failed_invariant(exc), tuple(live_program_lines(self.spec.name, program.steps)),
                )
                counted = self.failed(exc, program.steps)
                state.last_error = exc
            else:
                valid = False
            raise
        except StopTest:
            state.aborted += 1
            valid = False
            raise
        except BaseException as exc:
            # sys.exit() in a context manager the run kept open (self.enter(cm)), closed outside any rule
            wrapped = escaped(exc)
            if wrapped is None:
                raise
            raise Stopped(
                machine_error(self.spec.name, wrapped, live_program_lines(self.spec.name, program.steps)), mistake=True
            ) from exc
        finally:
            state.runs += 1
            # Hypothesis's runs once a failure is found spend the shrink budget: their steps, and their start
            if state.failing:
                self.shrink_budget.spent += len(program.steps) + 1
            if valid and not counted and not state.failing:
                state.examples += 1
            self.search.run_finished()
            self.ended(program, outcome, searching)

    def ended(self, program: Example, outcome: Any, searching: bool) -> None:
        """After every run: the known failures it met counted (once each, by a run of the search), the example
        database told what it did, the event."""
        state = self.state
        for met in program.met if searching else ():
            self.hits[met] = self.hits.get(met, 0) + 1
        if self.examples is not None:
            # a saved example that now goes past a known failure still fails as it did: kept for the next search
            self.examples.outcome = KNOWN if outcome is None and program.met else outcome
        self.emit(ExampleFinished(
            name=self.spec.name, examples=state.examples, steps=state.steps, elapsed=time.perf_counter() - self.started,
            shrinking=state.failing, path=self.path, runs=state.runs,
            branches=self.search.branches if self.search.covering else None, stages=self.search.stages,
            hits=sum(self.hits.values()), best=self.optimum.shown() if self.optimum is not None else None,
        ))

    def failed(self, exc: BaseException, steps: list[Step]) -> bool:
        """A run failed: count it, and follow shrinking. Whether this run was counted as an example."""
        state = self.state
        now = time.perf_counter() - self.started
        counted = False
        # kept before anything is said of it: a Ctrl-C or SIGTERM that follows "falsified ... shrinking" keeps
        # this program
        shorter = state.best is None or len(steps) < state.best
        if shorter:
            state.best_failure = (list(steps), exc)
            state.best_met = set(self.program.met) if self.program is not None else set()
        if not state.failing:
            state.failing = True
            self.shrink_budget = Budget.of_seconds(self.shrink_time, deadline=self.deadline)
            state.first_failure_at = now
            state.first_failure_example = state.runs + 1
            state.first_steps = len(steps)
            state.examples += 1  # the failing run is one of Hypothesis's examples
            counted = True
            self.found_as = identity_of(self.path, self.spec.name, exc, [s.rule for s in steps])
            self.search.failure_found()
            self.emit(FailureFound(self.spec.name, state.examples, self.path))
        if shorter or len(steps) == state.best:
            state.best = len(steps)
            runs = state.runs + 1 - (state.first_failure_example or 0)
            self.emit(
                ShrinkProgress(
                    name=self.spec.name, steps=len(steps), examples=state.examples, runs=runs,
                    elapsed=now - (state.first_failure_at or now), path=self.path,
                )
            )
        return counted

    # -- the report -------------------------------------------------------------------

    def machine_failure(self, exc: BaseException, steps: list[Step], interrupted: bool = False) -> Failure:
        return Failure(
            name=self.spec.name,
            path=self.path,
            error=ErrorInfo.of(exc),
            program=live_program_lines(self.spec.name, steps),
            steps=len(steps),
            recorded=tuple(s.recorded() for s in steps),
            interrupted=interrupted,
        )

    def trace(self, failure: Failure, exc: BaseException) -> Trace:
        with self.phases.timed("trace"):
            return trace_machine(self.spec, self.project, self.base, failure.recorded, exc, capture=self.capture)

    def finish_shrinking(self, failure: Failure, exc: BaseException) -> Failure:
        """After Hypothesis's search (and its shrinking, where evmstate's cannot make every argument smaller):
        evmstate's passes (shrink/finish.py), and how shrinking went."""
        hypothesis_steps = failure.steps
        example = self.program
        if example is not None and example.steps is self.state.last_steps and (example.passed or example.broken):
            # found past known failures: a fresh run (shrinking's replays, replay) checks them, and meets them first
            failure, exc, clear = cleared(self, failure, exc, example.passed, example.met)
            if not clear:
                return dataclasses.replace(failure, shrink=shrink_report(self, hypothesis_steps, failure.steps, 0))
        if not self.shrinks:  # the settings leave shrinking out: the program as it was found
            return dataclasses.replace(
                failure, stopped=NOT_SHRUNK, shrink=shrink_report(self, hypothesis_steps, failure.steps, 0, False)
            )
        return shrunk(self, failure, exc, hypothesis_steps)

    def budget_reason(self, reason: StopReason) -> str:
        return stopped_at(reason, self.shrink_time, "[fuzz] shrink_time")

    def statistics(self, failure: Failure | None = None) -> dict[str, Any]:
        state, settings, seed = self.state, self.settings, self.seed
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
        stats.update(self.rules.statistics())
        return stats
