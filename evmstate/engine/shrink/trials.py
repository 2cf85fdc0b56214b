"""A machine's failing program shrunk: the shrinker's passes (shrink.py) over candidates replayed from checkpoints
(replayer.py).

shrink_program() judges each candidate (Trials): it counts when its replay fails with the
failure's signature, in a program Hypothesis could have run. A candidate replayed before is not
replayed again (it is charged to the budget all the same: budget.py). Where this process runs as a worker that may lend
helpers (scale/shrinking.py),
the candidates of a pass are replayed by them too (candidates.py). minimize(): the passes over
any attempt(candidate), without argument domains.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Any, Callable, Iterator, Sequence

from ...contracts.project import Project
from ...evm.base import hooks_of
from ...evm.factory import replay_twin
from ...errors import CallTimeout
from ...search.session import collector_of
from ...spec.machine import MachineSpec
from ...domains import domain_of
from .candidates import Judge, tries_for
from ..tracebacks import FailureSignature
from ..verdicts import is_mistake, message_of, shown_type
from ..program import InvalidProgram
from ..delays import NO_DELAY
from ..recorded import RecordedStep
from . import slices
from .replayer import Replayer
from .budget import Budget, OutOfBudget, StopReason
from .edits import with_users, without
from .passes import Met, Minimized, Outcome, Shrinker
from ..swarm import rule_order


def minimize(
    steps: list[RecordedStep],
    attempt: Callable[[list[RecordedStep]], Minimized | None],
    fixed: frozenset[str] = frozenset(),
    progress: Callable[[int], None] = lambda steps: None,
) -> Minimized | None:
    """The passes over steps with attempt(candidate) (no argument domains): the best program, or None when none was
    shorter."""
    outcome = Shrinker(steps, attempt, fixed=fixed, progress=progress).run()
    if outcome.found is not None and outcome.stopped is StopReason.INTERRUPTED:
        outcome.found.interrupted = True
    return outcome.found


class Trials:
    """A failing program's candidates judged: replayed from checkpoints (once each), errors of the machine noted."""

    def __init__(
        self, spec: MachineSpec, project: Project, base: Any, target: FailureSignature, feedback: Any, hooks: Any = None
    ) -> None:
        self.spec, self.target, self.feedback = spec, target, feedback
        # evm.base.Hooks to switch feedback on with for operands() alone (a replay twin's), else None: it is on
        self.hooks = hooks
        self.replayer = Replayer(spec, project, base)
        self.tried: dict[tuple[str, ...], Minimized | None] = {}  # a candidate tried before is not replayed again
        # operands(): the same candidate meets the same comparisons
        self.met: dict[tuple[tuple[str, ...], int], Met] = {}
        self.left_out: list[str] = []  # candidates that met an error of the machine instead of the failure
        # the invariants a focused replay checks (judge()): the one the failure names, none for a rule's
        self.focus = frozenset({target.invariant}) if target.invariant is not None else frozenset()
        # a machine whose invariants are all in the focus: its replays are in full at once
        self.focuses = not {inv.name for inv in spec.invariants} <= self.focus

    def attempt(self, candidate: list[RecordedStep]) -> Minimized | None:
        key = tuple(s.key for s in candidate)
        if key not in self.tried:
            if len(self.tried) > 4096:
                self.tried.clear()
            self.tried[key] = self.replay(candidate)
        return self.tried[key]

    def cached(self, candidate: list[RecordedStep]) -> tuple[bool, Minimized | None]:
        key = tuple(s.key for s in candidate)
        return key in self.tried, self.tried.get(key)

    def rejected(self, candidate: list[RecordedStep], note: str | None) -> None:
        """A candidate replayed elsewhere (a helper) did not fail the same way."""
        self.tried[tuple(s.key for s in candidate)] = None
        if note is not None:
            self.left_out.append(note)

    def replay(self, candidate: list[RecordedStep]) -> Minimized | None:
        result, note = self.judge(candidate)
        if note is not None:
            self.left_out.append(note)
        return result

    def judge(self, candidate: list[RecordedStep], *, focused: bool = True) -> tuple[Minimized | None, str | None]:
        """(the candidate cut where it failed, when it fails the same way; the note when it met an error of the
        machine).

        focused: replayed first checking only the invariant the failure names (none for a rule's failure), then, when
        that replay fails the same way or meets an error of the machine, again in full, whose outcome is the answer. A
        candidate the focused replay clears is cleared in full too: checking more invariants can only make it fail
        sooner, with another invariant's failure.
        """
        try:
            if focused and self.focuses:
                ran = self.replayer.run(candidate, self.focus)
                met = ran.error
                if met is None or not (self._same(met) or is_mistake(met) or isinstance(met, CallTimeout)):
                    return None, None
                ran = self.replayer.run(candidate, counted=False)
            else:
                ran = self.replayer.run(candidate)
        except Exception:
            # InvalidProgram, a value that cannot be rebuilt, or an error outside any step
            # (leaving a context manager): not a program that fails the same way
            return None, None
        if ran.error is not None and (is_mistake(ran.error) or isinstance(ran.error, CallTimeout)):
            # an error of the machine or a limit of evmstate, not the failure: counted for the report
            return (
                None,
                f"{self.spec.name}.{candidate[ran.at - 1].rule if 0 < ran.at <= len(candidate) else 'setup'} raised "
                f"{shown_type(ran.error)}: {message_of(ran.error)}",
            )
        if ran.error is None or not self._same(ran.error):
            return None, None
        # it may now fail before its last step: what follows is not needed
        found = Minimized(candidate[: ran.at], ran.lines[: ran.at], ran.error)
        self.replayer.along(tuple(s.key for s in found.steps))  # the best program now: its checkpoints are kept
        return found, None

    def _same(self, error: BaseException) -> bool:
        return FailureSignature.of(error) == self.target

    def accesses(self, candidate: list[RecordedStep]) -> list[slices.Accesses] | None:
        """The storage slots each step of candidate read and wrote (slices.read_and_written), the failing invariant's
        calls after the last included: one focused replay of it from the start, with the backend's observer on. None
        where the backend has no observer."""
        hooks = hooks_of(self.replayer.backend)
        if hooks.observer is None or hooks.coverage is None:
            return None
        seen: list[Any] = []
        starts: list[int] = []
        was = hooks.coverage.hooks_now().observer
        self.replayer.on_step = lambda index: starts.append(len(seen))
        hooks.observer.set_observer(seen.append)
        self.replayer.use_kept = False
        try:
            self.replayer.forget_after(0)
            # focused: the invariants' calls after the steps before the last are not the steps' own (on revm each call
            # is run again to see its storage)
            with contextlib.suppress(Exception):
                self.replayer.run(candidate, self.focus if self.focuses else None)
        finally:
            self.replayer.use_kept = True
            self.replayer.on_step = None
            hooks.observer.set_observer(was)
        ends = [*starts[1:], len(seen)]
        return [slices.read_and_written(seen[a:b]) for a, b in zip(starts, ends)]

    def operands(self, candidate: list[RecordedStep], index: int) -> Met:
        """The comparisons the candidate's steps from index on met (feedback records them on py-evm while the search's
        hooks are on).

        Replayed from index's checkpoint (one in full: the same state as from the start), into empty
        lists (the hooks record up to MAX_OPERANDS): what a replay meets must not depend on what this
        process replayed before (helpers replay some of the candidates). And so a candidate asked again (the round of
        passes that finds nothing more to do) is answered from what its first replay met.
        """
        key = (tuple(s.key for s in candidate), index)
        if key not in self.met:
            if len(self.met) > 1024:
                self.met.clear()
            self.met[key] = self._operands(candidate, index)
        return self.met[key]

    def _operands(self, candidate: list[RecordedStep], index: int) -> Met:
        f = self.feedback
        # Met's, then the search's own lists the hooks fill (kept as they were: a replay here adds nothing to the
        # search)
        lists = (f.operands, f.equalities, f.matched, f.sides, f.time_sides, f.block_sides, f.times, f.blocks, f.zeros)
        kept = [list(recorded) for recorded in lists]
        self.feedback.everywhere = True
        hooks = self.hooks
        if hooks is not None and hooks.feedback is not None:
            if hooks.coverage is not None:
                hooks.coverage.set_coverage({})  # revm's records of a call come with its coverage (evm/revm/sight.py)
            hooks.feedback.set_feedback(self.feedback)
        self.replayer.use_kept = False
        try:
            # from a checkpoint in full at step index or before it: the steps from index on replay with the hooks on
            self.replayer.forget_after(index)
            with contextlib.suppress(Exception):
                self.replayer.run(candidate[: index + 1])  # its checkpoint before step index
            for recorded in lists:
                recorded.clear()
            # in full: the comparisons the invariants' calls meet count too
            result, note = self.judge(candidate, focused=False)
            if note is not None:
                self.left_out.append(note)
            return Met(*(list(recorded) for recorded in lists[:6]))
        finally:
            self.replayer.use_kept = True
            self.feedback.everywhere = False
            if hooks is not None and hooks.feedback is not None:
                hooks.feedback.set_feedback(None)
                if hooks.coverage is not None:
                    hooks.coverage.set_coverage(None)
            for recorded, before in zip(lists, kept):
                recorded[:] = before


def shrink_program(
    spec: MachineSpec,
    project: Project,
    base: Any,
    steps: Sequence[RecordedStep],
    error: BaseException | FailureSignature,
    *,
    budget: Budget | None = None,
    progress: Callable[[int, int], None] = lambda steps, replays: None,
    hints: tuple[int, ...] = (),
    feedback: Any = None,
    constants: frozenset[int] = frozenset(),
) -> Outcome:
    """Shrink a failing program while it still fails with error's signature.

    Each candidate is replayed from a checkpoint of the chain after the class-level __init__
    (base). budget: what shrinking may spend (budget.py; None: no limit). hints: numbers the
    contracts know, tried as arguments (constants: every number their code holds, which a repair never takes for a value
    the changed step moved); feedback: the search's evm.base.Feedback, whose hooks
    record the comparisons a replay meets, for the moves that set values from them.
    Decorator-style initializers always stay: a Hypothesis machine runs each of them once.
    progress(steps, replays) follows the passes.

    A py-evm run's candidates are replayed on revm where it is installed (evm.factory.replay_twin:
    a revm chain holding the state at base) and no coverage report is asked for, and the program
    shrinking ends with is replayed on py-evm, whose error and lines are reported; should py-evm
    not fail the same way on it, the program is shrunk again on py-evm, with what is left of the
    budget. A shrink interrupted on the twin keeps what the twin found.
    """
    target = error if isinstance(error, FailureSignature) else FailureSignature.of(error)
    budget = budget or Budget()
    try:
        return _shrink_where_fastest(spec, project, base, steps, target, budget, progress, (hints, constants), feedback)
    except KeyboardInterrupt:  # while setting up (the twin, the first replay): the program as it came, interrupted
        return Outcome(None, "", {}, StopReason.INTERRUPTED)


def _shrink_where_fastest(
    spec: MachineSpec, project: Project, base: Any, steps: Sequence[RecordedStep],
    target: FailureSignature, budget: Budget,
    progress: Callable[[int, int], None], numbers: tuple[tuple[int, ...], frozenset[int]], feedback: Any,
) -> Outcome:
    project.backend.revert(base)
    # a coverage report counts what shrinking's replays reach: they run where coverage is recorded
    wanted = collector_of(project).wanted
    twin = None if wanted else replay_twin(project.config, project.backend)
    if twin is None:
        if wanted:
            return _shrink(spec, project, base, steps, target, budget, progress, numbers, feedback)
        with _hooks_off(project.backend) as hooks:
            return _shrink(spec, project, base, steps, target, budget, progress, numbers, feedback, hooks)
    with project.stand_in(twin):
        outcome = _shrink(
            spec, project, twin.snapshot(), steps, target, budget, progress, numbers, feedback, hooks_of(twin)
        )
    outcome.replayed_on = "revm"
    if outcome.found is None or outcome.stopped is StopReason.INTERRUPTED:
        return outcome  # interrupted: what the twin found is kept (a replay on py-evm would be interrupted too)
    confirm = Trials(spec, project, base, target, None)
    try:
        again = confirm.judge(outcome.found.steps, focused=False)[0]  # one replay, in full
    finally:
        confirm.replayer.close()
    if again is not None and again.steps == outcome.found.steps:
        again.interrupted = outcome.found.interrupted
        outcome.found = again
        return outcome
    with _hooks_off(project.backend) as hooks:
        return _shrink(spec, project, base, steps, target, budget, progress, numbers, feedback, hooks)


@contextlib.contextmanager
def _hooks_off(backend: Any) -> Iterator[Any]:
    """The backend's hooks off while candidates replay on it, as on a replay twin, then as they were.

    What they record is the search's (its coverage, its dictionary's values); shrinking reads only the comparisons
    operands() records, with the hooks switched on for its replays: yields hooks_of(backend) for that when the search's
    feedback was on, else None (nothing to switch on). Recording every call is a fifth of a shrink's time on revm.
    """
    hooks = hooks_of(backend)
    was = hooks.coverage.hooks_now() if hooks.coverage is not None else None
    if was is None or was == (None, None, None):
        yield None
        return
    if hooks.feedback is not None:
        hooks.feedback.set_feedback(None)
    if hooks.coverage is not None:
        hooks.coverage.set_coverage(None)
    if hooks.observer is not None:
        hooks.observer.set_observer(None)
    try:
        yield hooks if was.feedback is not None else None
    finally:
        if hooks.coverage is not None:
            hooks.coverage.set_coverage(was.coverage)
        if hooks.feedback is not None:
            hooks.feedback.set_feedback(was.feedback)
        if hooks.observer is not None:
            hooks.observer.set_observer(was.observer)


def _shrink(
    spec: MachineSpec,
    project: Project,
    base: Any,
    steps: Sequence[RecordedStep],
    target: FailureSignature,
    budget: Budget,
    progress: Callable[[int, int], None],
    numbers: tuple[tuple[int, ...], frozenset[int]],
    feedback: Any,
    hooks: Any = None,
) -> Outcome:
    """The passes over steps on the project's backend as it stands (hooks: the backend's hooks, to switch on for the
    replays that look for comparisons)."""
    fixed = frozenset(r.name for r in spec.initializers) if spec.style == "decorator" else frozenset()
    domains = {
        (r.name, p.name): d
        for r in (*spec.initializers, *spec.rules)
        for p in r.params
        if p.strategy is not None and (d := domain_of(p.strategy)) is not None
    }
    trials = Trials(spec, project, base, target, feedback, hooks)
    trials.replayer.along(tuple(s.key for s in steps))
    # helper processes, where this worker may lend them
    tries = tries_for(Judge(trials.judge, trials.cached, trials.rejected))
    shrinker = Shrinker(
        steps, trials.attempt, fixed=fixed, domains=domains, earlier=earlier_rules(spec),
        rank={r.name: i for i, r in enumerate(rule_order(spec.rules))}, budget=budget,
        progress=lambda n: progress(n, trials.replayer.runs + tries.elsewhere), hints=numbers[0], constants=numbers[1],
        operands=trials.operands if feedback is not None else None, tries=tries, accesses=trials.accesses,
    )
    progress(len(steps), 0)  # the live line shows evmstate's passes from their start
    try:
        outcome = shrinker.run()
    except KeyboardInterrupt:  # before any candidate was kept: the program as it came is the best, interrupted
        outcome = Outcome(
            None, "", shrinker.passes, StopReason.INTERRUPTED, work=shrinker.budget.spent, rounds=shrinker.rounds
        )
    finally:
        tries.close()
        trials.replayer.close()
    if outcome.found is not None and outcome.found.error.__traceback__ is None:
        # a helper's find, its error pickled without where it was raised: replayed here for that
        again = trials.judge(outcome.found.steps, focused=False)[0]
        outcome.found = again if again is not None else outcome.found
    outcome.left_out, outcome.left_out_first = len(trials.left_out), trials.left_out[0] if trials.left_out else None
    return outcome


def clear_of_known(
    spec: MachineSpec, project: Project, base: Any, steps: Sequence[RecordedStep], error: BaseException,
    passed: Sequence[int], budget: Budget,
) -> tuple[Minimized | None, bool]:
    """A program that fails with error's signature in a fresh run, from one a keep-going run found it by, past failures
    known before (the steps in passed failed so; an invariant may have failed so too, and was not checked after); and
    whether it was found.

    A fresh run checks everything: the program must not meet a known failure first. The steps in passed are left out
    (a known revert left the chain as it was; where nothing fails without them, they stay: a known failure that changed
    the chain, a call that went through where a revert was expected, whose consequence the failure is); then, while the
    program still fails first at another step, one step up to that one at a time (with the steps using what it made),
    kept out when the program then fails later. When no step left out gets it further, the program up to the failure
    a fresh run meets first (a known one, mostly), and False: the failure is reached only past that one. (None, False)
    when the budget ran out, or a fresh run does not fail.
    """
    target = FailureSignature.of(error)
    trials = Trials(spec, project, base, target, None)
    gone = set(passed)
    current = without(list(steps), {i for i in gone if i < len(steps)})
    whole = len(current) < len(steps)
    try:
        while True:
            budget.charge(len(current))
            ran = trials.replayer.run(current)
            if ran.error is None and whole:
                # a known failure that changed the chain (a call that went through where the machine expected a
                # revert): without it nothing fails, so the failure is that one's consequence. The whole program,
                # which a fresh run fails first as the known one
                current, whole = list(steps), False
                continue
            if ran.error is None or is_mistake(ran.error) or isinstance(ran.error, CallTimeout):
                return None, False
            if FailureSignature.of(ran.error) == target:
                return Minimized(current[: ran.at], ran.lines[: ran.at], ran.error), True
            for j in reversed(range(min(ran.at, len(current)))):
                trial = without(current, with_users(current, j))
                budget.charge(len(trial))
                again = trials.replayer.run(trial)
                if again.error is not None and FailureSignature.of(again.error) == target:
                    return Minimized(trial[: again.at], again.lines[: again.at], again.error), True
                if again.error is not None and again.at > ran.at - len(current) + len(trial):
                    current = trial  # it gets past where it failed: kept out
                    break
            else:
                return Minimized(current[: ran.at], ran.lines[: ran.at], ran.error), False
    except (OutOfBudget, InvalidProgram):
        return None, False
    finally:
        trials.replayer.close()


# replays at most that the program of an error of the machine is made shorter with (it is shown, never saved), and
# seconds: on a slow machine the error is shown sooner, with what was found by then
ERROR_REPLAYS = 100
ERROR_SECONDS = 5.0


def shorter_error(
    spec: MachineSpec, project: Project, base: Any, steps: Sequence[RecordedStep], error: BaseException
) -> list[str] | None:
    """The lines of a shorter program that raises the machine's error as steps did, or None when none was found.

    Steps are left out one at a time (with the steps using what each made), from the last, while the program still
    raises it, then the waits before them; ERROR_REPLAYS replays and ERROR_SECONDS at most. An error of the machine
    stops its search (verdicts.is_mistake), and the program that reached it is what the author reads to find it: the
    shortest one points at the rule.
    """
    trials = Trials(spec, project, base, FailureSignature.of(error), None)
    current, lines = list(steps), None
    deadline = time.monotonic() + ERROR_SECONDS

    def left() -> bool:
        return trials.replayer.runs < ERROR_REPLAYS and time.monotonic() < deadline

    def tried(trial: list[RecordedStep]) -> None:
        """Keep trial (up to where it raised) when it still raises the error."""
        nonlocal current, lines
        ran = trials.replayer.run(trial)
        if ran.error is not None and trials._same(ran.error):
            current, lines = trial[: ran.at], ran.lines[: ran.at]

    try:
        i = len(current) - 1
        while i >= 0 and left():
            tried(without(current, with_users(current, i)))
            i = min(i, len(current)) - 1
        for i, step in enumerate(current):  # then each wait left out, while it is still raised
            if step.delay != NO_DELAY and left():
                tried([*current[:i], dataclasses.replace(step, delay=NO_DELAY), *current[i + 1 :]])
    except InvalidProgram:
        pass
    finally:
        trials.replayer.close()
    return None if lines is None else [line for step in lines for line in step.splitlines()]


def earlier_rules(spec: MachineSpec) -> dict[str, list[tuple[str, frozenset[str]]]]:
    """For each rule, the rules Hypothesis samples before it that target nothing and take only arguments it takes, from
    the same strategies."""
    order = rule_order(spec.rules)
    shape = {
        r.name: {
            (p.name, id(p.strategy), p.bundle.name if p.bundle else None, p.predicate is not None, p.consume)
            for p in r.params
        }
        for r in order
    }
    return {
        r.name: [
            (q.name, frozenset(p.name for p in q.params))
            for q in order[:i]
            if not q.targets and shape[q.name] <= shape[r.name]
        ]
        for i, r in enumerate(order)
    }


def has_domains(spec: MachineSpec) -> bool:
    """Whether every argument a rule draws from a strategy has a domain the shrinker can make smaller."""
    return all(
        p.bundle is not None or domain_of(p.strategy) is not None
        for r in (*spec.initializers, *spec.rules)
        for p in r.params
    )
