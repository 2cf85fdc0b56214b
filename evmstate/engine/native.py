"""A machine searched by evmstate's own loop, its failure handed to Hypothesis to replay, save and shrink.

Drawing every value through Hypothesis's strategy layer costs 60-110 µs a draw, more than a
revm call; `evmstate fuzz` spends its time finding failures, so there a machine's runs are
drawn by search.native (plain Python generators seeded from the machine's seed) and run by
the same Program as Hypothesis's runs. The Guide keeps and extends them as it does Hypothesis's
(search.guidance), and search.native.mutations splices, interleaves and moves values toward
what the contracts know.

Hypothesis still has the last word on every failure. The failing run's choices are queued
for the guided provider, which returns them to Hypothesis's own engine: Hypothesis runs the
program, checks that it fails, saves it to the example database and reports it, then evmstate's
shrinker makes it minimal, as for any failure Hypothesis finds. A run that Hypothesis does not
reproduce is an internal error naming both programs (NotReproduced), never a failure lost. A run
whose choices exceed Hypothesis's buffer is first cut to its steps up to the failure, then
steps are removed while it still fails.

Before the native loop, Hypothesis replays the example database (its reuse phase), so a failure
saved by an earlier run is found first, as before. A machine the native loop cannot draw (a
user's own strategy, a filter, lists, initializers, a [hypothesis] deadline) runs under Hypothesis
alone, and its statistics say why; so does one most of whose first runs assume() threw away, so
that Hypothesis's health check judges it as under `evmstate run`.

`evmstate run` keeps Hypothesis's loop. With EVMSTATE_NATIVE=run it draws through this one on revm (own_loop()),
for measuring: there it runs 2.2-2.5x the steps per CPU-second on ERC20 machines, but found fewer of the bundled
search-power bugs at run's budget (docs/configuration.md), so it is not the default.
"""

from __future__ import annotations

import dataclasses
import random
import unittest
import warnings
from typing import Any

from hypothesis import HealthCheck, Phase
from hypothesis import settings as Settings
from hypothesis.errors import HypothesisDeprecationWarning, HypothesisException

from ..config import NATIVE_VARIABLE, Config
from ..search.guidance import Entry
from ..search.native import choices as native
from ..search.native.mutations import Mutator
from .tracebacks import FailureSignature
from .events import Failure, MachineFinished, Status
from .machine_run import MachineRun
from .settings import RunSetup
from .program import Crashed, OutOfTime, live_program_lines

# share of native runs whose fresh steps now and then repeat the step before, and at which odds
STICKY = 0.3
STICKINESS = (0.25, 0.5, 0.8)
# Hypothesis's filter_too_much health check: this many rejected runs before this many kept ones
REJECTED, KEPT = 50, 10


def own_loop(config: Config) -> bool:
    """Whether `evmstate run` draws a machine's runs through evmstate's own loop: with EVMSTATE_NATIVE=run, on revm
    alone (not in lockstep).
    """
    return config.environment.run_native and config.backend.name == "revm" and not config.backend.check


class Rejected(Exception):
    """Raised when most of the native loop's first runs were rejected: Hypothesis's loop judges the machine instead."""


class NotReproduced(Exception):
    """Raised when Hypothesis, given the choices of a run evmstate's own loop saw fail, ran a program that does not fail
    so.
    """


@dataclasses.dataclass
class Found:
    """A run of the native loop that failed: its choices, the error and its program."""

    choices: list[native.Choice]
    error: BaseException
    lines: list[str]
    cut: tuple[int, int] | None = None  # (bytes of choices, bytes left): steps removed to fit Hypothesis's buffer
    checked: bool = False  # Hypothesis replayed it
    # what Hypothesis's replay did, when it did not fail the same way
    replayed: tuple[list[str], BaseException | None] | None = None


def run_native(
    spec: Any, project: Any, settings: Settings, seed: int | None, emit: Any, path: str = "", database: Any = None, *,
    position: tuple[int, int] = (0, 0), **options: Any,
) -> MachineFinished:
    """run_machine(), with the machine's runs drawn by evmstate's own loop where it can draw them."""
    return NativeMachineRun(spec, project, settings, seed, emit, RunSetup(path, database, **options)).run(position)


class NativeMachineRun(MachineRun):
    """A MachineRun whose search runs in evmstate's own loop, and whose failure Hypothesis replays."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        native.drawn_by(self.step, self.draw_step)
        self.sticky = 0.0  # the current native run's odds that a fresh step repeats the step before it
        self.last_step: list[native.Choice] = []
        # seeded from the machine's seed: --seed gives the same runs, and so the same failures and reports
        self.random = random.Random(f"evmstate-native-{self.seed}" if self.seed is not None else None)
        self.mutator = Mutator(self.random, self.known_values)
        self.found: Found | None = None
        self.native_runs = 0
        self.off: str | None = None  # why this machine runs under Hypothesis alone
        self.reusing = False  # Hypothesis replays the example database (its reuse phase alone)

    def draw_step(self, draw: Any) -> Any:
        """A step's rule and arguments; in a native run, now and then the step before it again (a call made many times
        in a row).
        """
        data = getattr(draw, "__self__", None)
        if not isinstance(data, native.NativeData):
            return self.program.draw_step(draw)  # type: ignore[union-attr]
        start = len(data.record)
        if self.last_step and start >= len(data.plan) and self.random.random() < self.sticky:
            data.plan = data.record + self.last_step  # replayed while it fits, as any planned choice
        drawn = self.program.draw_step(draw)  # type: ignore[union-attr]
        self.last_step = data.record[start:]
        return drawn

    def known_values(self) -> list[int]:
        d = self.search.dictionary
        return [*d.literals, *d.fixed, *d.observed]

    def why_not(self) -> str | None:
        """Why the native loop cannot run this machine, or None."""
        if not self.project.config.environment.native:
            return f"{NATIVE_VARIABLE} is off"
        if self.as_run:
            return "a machine's first shard searches as `evmstate run --seed` does"
        if self.search.guide is None:
            return "guidance is off (the native loop hands its failures to Hypothesis through the guided provider)"
        if self.spec.initializers:
            return "the machine has initializers (their order is a permutation the native loop does not draw)"
        if self.settings.deadline is not None:
            return "a [hypothesis] deadline is set (Hypothesis times each run against it)"
        drawn = [(f"{r.name}'s {p.name}", p.strategy) for r in self.spec.rules for p in r.params if p.bundle is None]
        return native.check(drawn, random.Random(0))

    # -- the search ------------------------------------------------------------------

    def hypothesis_test(self) -> Any:
        test = super().hypothesis_test()
        if not self.reusing:
            return test

        def reuse() -> None:
            try:
                test()
            except unittest.SkipTest:
                pass  # Hypothesis ran nothing: the example database holds nothing for this machine

        return reuse

    def search_for_failure(self) -> tuple[Status, Failure | None]:
        self.off = self.why_not()
        if self.off is not None:
            return super().search_for_failure()
        phases = tuple(self.settings.phases)
        if self.database is not None and Phase.reuse in phases:
            self.settings, self.reusing = Settings(self.settings, phases=[Phase.reuse]), True
            try:
                status, failure = super().search_for_failure()
            finally:
                self.settings, self.reusing = Settings(self.settings, phases=phases), False
            if status != "passed":
                return status, failure
        try:
            with self.search.running():  # strategy() draws take from the machine's dictionary, as under Hypothesis
                found = self.explore()
        except native.Unsupported as exc:  # a strategy the up-front check did not reach
            self.off = f"a run drew {exc.strategy!r}"
            return super().search_for_failure()
        except Rejected:
            self.off = (
                f"{self.state.rejected} of its first {self.state.runs} runs were rejected by assume() or reject(), "
                "so Hypothesis's search and its health check judge it"
            )
            return super().search_for_failure()
        except KeyboardInterrupt:
            return "interrupted", None
        if found is None:
            return "passed", None
        return self.hand_over(found, phases)

    def explore(self) -> Found | None:
        """Runs drawn by the native loop until one fails (its choices), or the budget ends (None)."""
        with warnings.catch_warnings():
            # the native loop runs a machine's rules outside a Hypothesis test, where assume() warns that it is
            # deprecated there; it still raises and ends the run, counted as rejected, as it would under Hypothesis
            warnings.filterwarnings(
                "ignore", message="Using `assume` outside a property-based test", category=HypothesisDeprecationWarning
            )
            return self._explore()

    def _explore(self) -> Found | None:
        guide, state = self.search.guide, self.state
        assert guide is not None
        while state.runs < self.settings.max_examples:
            plan, inherited = guide.plan()
            plan = self.mutator.mutate(plan, guide.corpus)
            data = native.NativeData(self.random, plan)
            guide.begin(data, inherited)  # type: ignore[arg-type]
            self.native_runs += 1
            # a run in STICKY repeats steps (Echidna's and Medusa's runs of one call): at odds drawn per run
            self.sticky, self.last_step = (self.random.choice(STICKINESS) if self.random.random() < STICKY else 0.0), []
            try:
                self.run_one(data)
            except OutOfTime:
                return None
            except Crashed as crashed:
                # evmstate's chain failed, not the machine: an internal error
                raise (crashed.__cause__ or crashed) from None
            except HypothesisException:
                # assume() or reject(): counted by run_one. Mostly rejected runs are Hypothesis's to judge
                if self.state.rejected >= REJECTED and self.mostly_rejected():
                    raise Rejected() from None
                continue
            except Exception as exc:
                return Found(
                    data.record, exc, live_program_lines(self.spec.name, self.program.steps if self.program else [])
                )
        if self.state.rejected and self.mostly_rejected():
            raise Rejected()
        return None

    def mostly_rejected(self) -> bool:
        """Whether the runs so far are what Hypothesis's filter_too_much check fails (fewer than KEPT kept, more
        rejected than kept) with that check on, or none was kept at all (Hypothesis's Unsatisfiable).
        """
        kept, rejected = self.state.examples, self.state.rejected
        if kept == 0:
            return True
        return (
            HealthCheck.filter_too_much not in self.settings.suppress_health_check and kept < KEPT and rejected > kept
        )

    def hand_over(self, found: Found, phases: tuple[Phase, ...]) -> tuple[Status, Failure | None]:
        """Hypothesis replays the failing run (its choices first in the guide's queue), saves it and reports it."""
        guide = self.search.guide
        assert guide is not None
        size = native.size(found.choices)
        found.choices = self.fitted(found)
        if native.size(found.choices) < size:
            found.cut = (size, native.size(found.choices))
        self.found = found
        guide.queued.insert(0, Entry(list(found.choices), 0, []))
        self.settings = Settings(self.settings, phases=[p for p in phases if p is not Phase.reuse])
        try:
            status, failure = super().search_for_failure()
        finally:
            self.settings = Settings(self.settings, phases=phases)
        replayed = found.replayed
        if status == "interrupted":
            return status, failure  # Ctrl-C before Hypothesis replayed it: nothing to judge
        if replayed is not None or (not found.checked and not self.same(failure)):
            # the replay's program, else the program of the last run Hypothesis made (it never drew the queued one)
            shown = "\n".join(
                replayed[0]
                if replayed is not None
                else failure.program
                if failure is not None
                else live_program_lines(self.spec.name, self.state.last_steps)
            )
            how = (
                f"{type(replayed[1]).__name__}: {replayed[1]}"
                if replayed is not None and replayed[1] is not None
                else "passed"
                if replayed is not None
                else status
            )
            raise NotReproduced(
                f"{self.spec.name}: Hypothesis did not reproduce a failure of evmstate's own search loop (seed "
                f"{self.seed}, run {self.native_runs}).\n"
                f"evmstate's loop ran, and it raised {type(found.error).__name__}: "
                f"{found.error}\n{chr(10).join(found.lines)}\n"
                f"Hypothesis, given the same {len(found.choices)} choices, ran ({how})\n{shown}"
            )
        return status, failure

    def same(self, failure: Failure | None) -> bool:
        return (
            failure is not None
            and FailureSignature.of(self.found.error).same(FailureSignature.of_error(failure.error), where=False)
            if self.found
            else False
        )

    def run_one(self, data: Any) -> None:
        """One run; the run Hypothesis draws from the queued failing choices is checked against the native one."""
        found, guide = self.found, self.search.guide
        if found is None or found.checked or guide is None or isinstance(data, native.NativeData):
            return super().run_one(data)
        # the guided provider takes the queued run when Hypothesis starts a run with it (its
        # simplest example may run before, without it): that run is the replay
        if not (guide.replaying and guide.current is not None):
            return super().run_one(data)
        try:
            super().run_one(data)
        except BaseException as exc:
            self.judge(found, exc)
            raise
        self.judge(found, None)

    def judge(self, found: Found, error: BaseException | None) -> None:
        """The replay ended with error: unless it is the native run's failure, stop the search (hand_over raises)."""
        found.checked = True
        lines = live_program_lines(self.spec.name, self.program.steps if self.program else [])
        ok = (
            isinstance(error, Exception) and not isinstance(error, HypothesisException) and lines == found.lines
            and FailureSignature.of(error).same(FailureSignature.of(found.error), where=False)
        )
        if not ok:
            found.replayed = (lines, error)
            raise OutOfTime()

    # -- Hypothesis's buffer ------------------------------------------------------------

    def fitted(self, found: Found) -> list[native.Choice]:
        """The failing run's choices within Hypothesis's buffer: steps removed, first to last, while it still fails
        within the choices left.
        """
        choices = found.choices
        if native.size(choices) <= native.BUFFER_LIMIT:
            return choices
        guide = self.search.guide
        assert guide is not None
        spans = self.step_spans(choices)
        head = spans[0][0] if spans else 0
        kept = list(spans)
        for span in list(spans):
            if native.size(choices) <= native.BUFFER_LIMIT:
                break
            trial = [s for s in kept if s != span]
            plan = found.choices[:head] + [c for a, b in trial for c in found.choices[a:b]]
            data = native.NativeData(self.random, plan)
            guide.begin(data, [])  # type: ignore[arg-type]
            try:
                self.run_one(data)
            except Exception as exc:
                # it failed the same way within the planned choices (not in fresh steps drawn after them)
                within = len(data.record) <= len(plan) and data.replayed == len(data.record)
                if (
                    within and not isinstance(exc, HypothesisException)
                    and FailureSignature.of(exc).same(FailureSignature.of(found.error), where=False)
                ):
                    kept, choices = trial, data.record
                    found.error, found.lines = (
                        exc, live_program_lines(self.spec.name, self.program.steps if self.program else []),
                    )
            finally:
                guide.current = None
        return choices

    def step_spans(self, choices: list[native.Choice]) -> list[tuple[int, int]]:
        """Where each step's choices start and end, from a run replayed with the choices (its steps' record positions).
        """
        starts: list[int] = []
        guide = self.search.guide
        assert guide is not None
        data = native.NativeData(self.random, choices)
        original = guide.step_started

        def step_started() -> None:
            starts.append(len(data.record))
            original()

        guide.step_started = step_started  # type: ignore[method-assign]
        guide.begin(data, [])  # type: ignore[arg-type]
        try:
            self.run_one(data)
        except Exception:
            pass
        finally:
            guide.step_started = original  # type: ignore[method-assign]
            guide.current = None
        ends = [*starts[1:], len(data.record)]
        return list(zip(starts, ends))

    def handed_over(self) -> str:
        if self.found is None:
            return ""
        if self.found.checked:
            return ", its failure replayed by Hypothesis"
        return ", its failure found again by Hypothesis's simplest run before the replay"

    def cut_note(self) -> str:
        cut = self.found.cut if self.found is not None else None
        return (
            f" (steps removed first: {cut[0]} bytes of choices, {cut[1]} left, "
            f"within Hypothesis's {native.BUFFER_LIMIT})"
            if cut
            else ""
        )

    def statistics(self, failure: Failure | None = None) -> dict[str, Any]:
        stats = super().statistics(failure)
        if self.off is not None:
            stats["evmstate's own loop"] = f"off: {self.off}; Hypothesis drew every run"
        else:
            mutated = ", ".join(f"{n} {k}" for k, n in self.mutator.counts.items() if n)
            stats["evmstate's own loop"] = (
                f"{self.native_runs} run{'' if self.native_runs == 1 else 's'}"
                + (f" ({mutated} mutated)" if mutated else "") + self.handed_over() + self.cut_note()
            )
        return stats
