"""One example of a machine under Hypothesis: a new instance, and the steps drawn for it one by one.

The run loop (machines.MachineRun) makes an Example per Hypothesis example; the example draws
each step (its wait, its rule, its arguments), runs it and keeps it as a program.Step.

With [fuzz] invariant_interval = N > 1 the invariants are checked after every N-th step and at the
run's end. A run that fails where a check was left out is played again from its start, checking
after every step (recheck()), and fails as N = 1 fails on the same choices: at the same step, with
the same error. From the machine's first failure on (shrinking, replays), every step is checked.
"""

from __future__ import annotations

from typing import Any, Callable

import hypothesis
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException

from ..contracts import calls
from ..errors import CallTimeout
from ..failures import Ref
from ..spec.machine import RuleSpec
from . import delays
from .tracebacks import identity_of, user_error
from .verdicts import escaped, is_mistake
from .program import (
    SetupFailed,
    Step,
    Stopped,
    check_all_invariants,
    holds,
    index_strategy,
    new_machine,
    produced,
    set_up,
    raise_if_diverged,
    stop_if_diverged,
    tear_down,
)


def known_as(run: Any, exc: Exception, steps: list[Step]) -> str | None:
    """The id of the known failure (the machines.MachineRun's known) exc is, else None: an error of the machine, a limit
    of evmstate or a run Hypothesis threw away never is."""
    if not run.known or isinstance(exc, (HypothesisException, CallTimeout)) or is_mistake(exc):
        return None
    return run.known.get(identity_of(run.path, run.spec.name, exc, [s.rule for s in steps]))


def raw_address(value: Any) -> bytes | None:
    """The 20 bytes of an address a rule drew (an account, an actor, a contract, a 0x string), else None."""
    found = getattr(value, "raw_address", None)
    if isinstance(found, bytes) and len(found) == 20:
        return found
    if isinstance(value, str) and len(value) == 42 and value[:2] in ("0x", "0X"):
        try:
            return bytes.fromhex(value[2:])
        except ValueError:
            return None
    return None


class Example:
    """One example of a machine: a new instance, and the steps Hypothesis draws for it."""

    def __init__(self, run: Any, data: Any) -> None:  # run: the machines.MachineRun drawing it
        self.run = run
        self.data = data
        self.spec = run.spec
        self.machine = new_machine(run.spec)
        self.steps: list[Step] = []
        self.bundles: dict[str, list[tuple[str, Any]]] = {b.name: [] for b in run.spec.bundles}
        self.counters: dict[str, int] = {b: 0 for b in self.bundles}
        self.enabled: set[str] | frozenset[str] = frozenset()
        self.left_out: frozenset[str] = frozenset()  # the rules this run's swarm leaves out
        self.calls: dict[str, int] = {}  # calls of each rule with a max_times, this run
        self.exhausted: set[str] = set()  # the rules that ran max_times already
        self.outcomes: list[tuple[str, int, int]] = []  # (rule, transactions sent, reverted) of each step
        self.streaks: dict[str, int] = {}  # each rule's latest calls this run that all reverted, in a row
        self.delay = delays.NO_DELAY  # what the next step waits before its call
        # the invariants after every interval-th step and at the end (every step once the machine has failed)
        self.interval = 1 if run.state.failing else run.invariant_interval
        self.unchecked = 0  # steps since the invariants were last checked
        self.skipped = False  # a check was left out: a failure is played again (recheck)
        self.replaying = False
        self.played: list[tuple[RuleSpec, dict[str, Any], Any]] = []  # each step's rule, values as drawn and wait
        # keep-going (MachineRun.known): the known failures this run went past, by id; the steps whose rule failed as
        # one (the run went on after them); the invariants that failed as one, not checked again in this run
        self.met: set[str] = set()
        self.passed: list[int] = []
        self.broken: set[str] = set()

    def matching(self, p: Any) -> list[int]:
        """Indexes of the bundle values the parameter may take now."""
        values = self.bundles[p.bundle.name]
        if p.predicate is None:
            return list(range(len(values)))
        try:
            return [i for i, (_, v) in enumerate(values) if p.predicate(v)]
        except BaseException as exc:
            wrapped = escaped(exc)
            if wrapped is None:
                raise
            raise wrapped from None

    def ready(self, r: RuleSpec, count: bool = False) -> bool:
        """Whether the rule can run now; with count, record filter statistics."""
        if not holds(r, self.machine):
            return False
        ok = True
        for p in r.params:
            if p.bundle is None:
                continue
            found = bool(self.matching(p))
            if p.predicate is not None and count:
                fs = self.run.stats[r.name].filters[p.name]
                if found:
                    fs.enabled += 1
                else:
                    fs.skipped += 1
            ok = ok and found
        return ok

    def arguments(self, draw: Callable[[Any], Any], r: RuleSpec) -> tuple[dict[str, Any], dict[str, Any]]:
        """Draw the rule's arguments: (values, how they are recorded: a Ref for a bundle value)."""
        kwargs: dict[str, Any] = {}
        raw: dict[str, Any] = {}
        # the addresses drawn so far: an integer drawn after one may take part of what it holds (dictionary.HELD)
        known = self.run.search.dictionary
        # (with the held band off, nothing reads them: none are collected)
        holders = known.holders = []
        known.drawing = known.holdings_on
        try:
            self._draw_arguments(draw, r, kwargs, raw, holders if known.drawing else None)
        finally:
            known.holders = []
            known.drawing = False
        return kwargs, raw

    def _draw_arguments(
        self,
        draw: Callable[[Any], Any],
        r: RuleSpec,
        kwargs: dict[str, Any],
        raw: dict[str, Any],
        holders: list[bytes] | None,
    ) -> None:
        for p in r.params:
            if p.bundle is not None:
                values = self.bundles[p.bundle.name]
                # draw among the values that match now; shrinks toward the earliest
                candidates = self.matching(p)
                if not candidates:
                    hypothesis.reject()  # only when two arguments consume the last match
                i = candidates[draw(index_strategy(len(candidates)))]
                label, value = values.pop(i) if p.consume else values[i]
                kwargs[p.name] = value
                raw[p.name] = Ref(label)
            else:
                # evmstate's own strategies make their choices inside this draw, without spans of their own
                direct = getattr(p.strategy, "evmstate_draw", None)
                value = direct(draw) if direct is not None else draw(p.strategy)
                kwargs[p.name] = value
                raw[p.name] = value
            if holders is not None:
                address = raw_address(value)
                if address is not None:
                    holders.append(address)

    def draw_step(self, draw: Callable[[Any], Any]) -> tuple[RuleSpec, tuple[Any, ...]]:
        """A rule among the allowed ones and its arguments, in one draw (each top-level draw costs Hypothesis far more
        than the choices in it).
        """
        options = self.run.search.options
        if options.max_time_delay or options.max_block_delay:
            # the time and blocks the chain moves on before the step's call (see delays)
            backend, known = self.run.backend, self.run.search.dictionary
            clock = (backend.timestamp, backend.block_number)
            self.delay = delays.draw_delay(
                draw, options.max_time_delay, options.max_block_delay, clock, (known.times, known.blocks)
            )
        # the rules enabled now, less those the run's swarm leaves out (unless that leaves none)
        guide = self.run.search.guide
        source = guide.current if guide is not None else None  # whose fresh draws a rare rule is moved off
        r = self.run.rules.draw(draw, (self.enabled - self.left_out) or self.enabled, source, self.streaks)
        return r, self.arguments(draw, r)

    def execute(self, r: RuleSpec, drawn: tuple[Any, ...] | None = None) -> None:
        """Run one step: the rule with its arguments, its results into bundles, then the invariants."""
        run = self.run
        kwargs, raw = drawn if drawn is not None else self.arguments(self.data.draw, r)
        step = Step(r.name, raw, first_call=run.backend.calls, delay=self.delay)
        if self.interval > 1:
            self.played.append((r, raw, self.delay))
        self.delay = delays.NO_DELAY
        self.steps.append(step)
        rs = run.stats[r.name]
        if not self.replaying:
            rs.calls += 1
            run.state.steps += 1
        run.state.current = rs
        tally = calls.tally
        sent, failed = tally.sent, tally.failed
        result, went_past = None, False
        try:
            result = r.function(self.machine, **kwargs)
        except BaseException as exc:
            wrapped = escaped(exc)
            if wrapped is not None:
                raise wrapped from None
            if not (isinstance(exc, Exception) and self.past(exc)):
                raise
            # a known failure (a revert leaves the chain as it was): counted, and the run goes on
            went_past = True
            self.passed.append(len(self.steps) - 1)
        finally:
            run.state.current = None
            sent, failed = tally.sent - sent, tally.failed - failed
            rs.transactions += sent
            rs.transactions_reverted += failed
            self.outcomes.append((r.name, sent, failed))
            if sent and self.run.rules.streaks:  # counted only where they are on (the default)
                self.streaks[r.name] = self.streaks.get(r.name, 0) + 1 if failed == sent else 0
            if r.max_times is not None:
                self.calls[r.name] = self.calls.get(r.name, 0) + 1
                if self.calls[r.name] >= r.max_times:
                    self.exhausted.add(r.name)
        raise_if_diverged(run.backend)
        makes = (result is not None or r.targets) and not went_past  # most rules return nothing
        for bundle, value in produced(r, result) if makes else ():
            label = f"{bundle}_{self.counters.setdefault(bundle, 0)}"
            self.counters[bundle] += 1
            self.bundles.setdefault(bundle, []).append((label, value))
            step.results.append(label)
        self.unchecked += 1
        if self.unchecked >= self.interval:
            self.check_invariants()
        else:
            self.skipped = True
            stop_if_diverged(run.backend, self.steps)
        if not self.replaying:
            run.search.step_finished(reverted=bool(sent) and failed == sent, rule=r.name)
            optimum = run.optimum
            # a step that raised an optimize method's best: the guide keeps the run up to here, to extend it
            if optimum is not None and not run.state.failing:
                if optimum.observe(self.machine, self.steps, run.state.runs) and run.search.guide is not None:
                    run.search.guide.raised()

    def past(self, error: Exception) -> bool:
        """Whether error is a failure found before (MachineRun.known): if so, the run counts it and goes past it."""
        rid = known_as(self.run, error, self.steps)
        if rid is None:
            return False
        self.met.add(rid)
        return True

    def check_invariants(self) -> None:
        self.unchecked = 0
        try:
            check_all_invariants(self.spec, self.machine, self.past if self.run.known else None, self.broken)
            raise_if_diverged(self.run.backend)
        finally:
            stop_if_diverged(self.run.backend, self.steps)

    def recheck(self, error: Exception) -> None:
        """The run played again from its start with the same values, the invariants checked after every step: raises the
        first failure that finds (N = 1's on these choices), else error."""
        run = self.run
        played, self.played = self.played, []
        run.backend.revert(run.base)
        self.machine = new_machine(self.spec)
        self.steps.clear()  # the same list: the run loop holds it
        self.bundles = {b.name: [] for b in self.spec.bundles}
        self.counters = {b: 0 for b in self.bundles}
        self.interval, self.unchecked, self.replaying = 1, 0, True
        self.passed, self.broken = [], set()
        with self.machine._evmstate_stack:
            self.start()
            for r, raw, delay in played:
                kwargs = {}
                for p in r.params:
                    if p.bundle is None:
                        kwargs[p.name] = raw[p.name]
                        continue
                    values = self.bundles[p.bundle.name]
                    i = next(i for i, (label, _) in enumerate(values) if label == raw[p.name].name)
                    kwargs[p.name] = (values.pop(i) if p.consume else values[i])[1]
                self.delay = delay
                if delay != delays.NO_DELAY:
                    delays.wait(run.backend, delay)
                self.execute(r, (kwargs, raw))
        raise error

    def start(self) -> None:
        """setup() and the first check of the invariants."""
        try:
            set_up(self.machine)
        except SetupFailed as failed:
            raise Stopped(
                user_error(f"{self.spec.name}.setup", failed.error), mistake=is_mistake(failed.error)
            ) from failed.error
        self.check_invariants()

    def play(self, steps: st.SearchStrategy[tuple[RuleSpec, tuple[Any, ...]]], max_steps: int) -> None:
        """setup(), the initializers, up to max_steps rules while any is enabled, teardown()."""
        self.start()
        try:
            self.play_steps(steps, max_steps)
        except HypothesisException:
            raise  # a run thrown away (reject(), assume()), not a failure
        except Exception as error:
            if not self.skipped:
                raise
            self.recheck(error)
        if self.run.optimum is not None and not self.run.state.failing:
            self.run.optimum.run_finished()  # the run's highest values, to Hypothesis's target()
        tear_down(self.machine)

    def play_steps(self, steps: st.SearchStrategy[tuple[RuleSpec, tuple[Any, ...]]], max_steps: int) -> None:
        """The initializers, then up to max_steps rules while any is enabled, then the invariants if the last step
        left them out."""
        spec, data = self.spec, self.data
        if spec.initializers:
            order = data.draw(st.permutations(spec.initializers))
            for init in order:
                # Brownie's initializers may be skipped; Hypothesis's always run once
                if spec.style == "brownie" and not data.draw(st.booleans()):
                    continue
                if self.ready(init, count=True):
                    self.execute(init)
        self.left_out = data.draw(self.run.swarm)
        # rules without preconditions or bundle arguments are always ready: the others are asked each step
        always = frozenset(
            r.name for r in spec.rules if not r.preconditions and all(p.bundle is None for p in r.params)
        )
        asked = [r for r in spec.rules if r.name not in always]
        for _ in range(max_steps):
            self.enabled = {*always, *(r.name for r in asked if self.ready(r, count=True))} if asked else always
            if self.exhausted:
                self.enabled = self.enabled - self.exhausted
            if not self.enabled:
                break
            self.run.search.step_started()
            drawn = data.draw(steps)
            if self.delay != delays.NO_DELAY:
                delays.wait(self.run.backend, self.delay)
            self.execute(*drawn)
        if self.unchecked:
            self.check_invariants()
