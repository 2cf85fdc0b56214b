"""The shrink budget counts work, not time: the same program and the same work however fast the replays go, in order or ahead."""

from __future__ import annotations

import random
import time

import pytest

from evmstate.domains import IntDomain
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink import budget as budget_mod
from evmstate.engine.shrink.budget import Budget, StopReason, cost, stopped_at, steps_of
from evmstate.engine.shrink.candidates import InOrder
from evmstate.engine.shrink.passes import Minimized, Shrinker

DOMAIN = IntDomain(0, 2**256 - 1)


def program() -> list[RecordedStep]:
    """Twelve deposits and a withdrawal of 10**20: the withdrawal alone, of at least 777, fails."""
    return [RecordedStep("deposit", {"n": 10**6 + k}) for k in range(12)] + [RecordedStep("withdraw", {"n": 10**20})]


def attempt_with(delay: float = 0.0):
    def attempt(candidate: list[RecordedStep]) -> Minimized | None:
        if delay:
            time.sleep(random.uniform(0, delay))  # a loaded machine: replays take longer, and vary
        fails = any(s.rule == "withdraw" and s.arguments["n"] >= 777 for s in candidate)
        return Minimized(candidate, [], AssertionError("too much")) if fails else None

    return attempt


DOMAINS = {("deposit", "n"): DOMAIN, ("withdraw", "n"): DOMAIN}


def test_a_candidate_costs_the_steps_it_does_not_share_with_the_best_program_and_its_start():
    best = program()
    assert cost(best[:5], best) == 1  # a prefix: nothing to replay but its start
    assert cost(best[1:], best) == 13  # the first step deleted: every step after it
    changed = [*best[:12], best[12].with_arguments({"n": 5})]
    assert cost(changed, best) == 2


def test_the_budget_in_work_ends_shrinking_at_the_same_program_however_slow_the_replays():
    quick = Shrinker(program(), attempt_with(), domains=DOMAINS, budget=Budget(60)).run()
    slow = Shrinker(program(), attempt_with(0.002), domains=DOMAINS, budget=Budget(60)).run()
    assert quick.stopped is slow.stopped is StopReason.BUDGET
    assert quick.minimality == "" and quick.found is not None
    assert quick.found.steps == slow.found.steps and quick.work == slow.work <= 60
    assert quick.replays == slow.replays


def test_unbounded_shrinking_reaches_the_least_program_and_says_which_passes_ran():
    outcome = Shrinker(program(), attempt_with(), domains=DOMAINS).run()
    assert outcome.stopped is None and outcome.found.steps == [RecordedStep("withdraw", {"n": 777})]
    assert outcome.work == sum(p.work for p in outcome.passes.values()) > 0
    assert outcome.tried[:2] == ("chunks", "singles") and "values" in outcome.tried


class Ahead:
    """A Tries that replays every candidate of a pass before answering (as helpers replay ahead), then keeps the first in order."""

    workers = 2
    elsewhere = 0

    def first(self, candidates, attempt, accept):
        results = [(tag, attempt(c)) for tag, c in candidates]
        return next(((tag, r) for tag, r in results if accept(r)), None)

    def close(self) -> None:
        pass


@pytest.mark.parametrize("steps", [25, 60, 200, None])
def test_candidates_replayed_ahead_are_charged_as_one_process_charges_them_in_order(steps):
    one = Shrinker(program(), attempt_with(), domains=DOMAINS, budget=Budget(steps), tries=InOrder()).run()
    ahead = Shrinker(program(), attempt_with(), domains=DOMAINS, budget=Budget(steps), tries=Ahead()).run()
    assert (one.found.steps if one.found else None) == (ahead.found.steps if ahead.found else None)
    assert one.work == ahead.work and one.stopped is ahead.stopped


def test_the_clocks_stop_shrinking_only_as_safety_stops_and_say_which_did():
    past = time.monotonic() - 1
    assert Shrinker(program(), attempt_with(), domains=DOMAINS, budget=Budget(None, safety=past)).run().stopped is StopReason.WALL_CLOCK
    assert Shrinker(program(), attempt_with(), domains=DOMAINS, budget=Budget(None, deadline=past)).run().stopped is StopReason.DEADLINE
    assert stopped_at(StopReason.BUDGET, 20, "[fuzz] shrink_time") == f"the shrink budget (20 s of work: {steps_of(20)} replayed steps, [fuzz] shrink_time)"
    assert stopped_at(StopReason.WALL_CLOCK, 20, "[fuzz] shrink_time").startswith(f"the wall-clock safety stop ({budget_mod.SAFETY * 20} s of wall time for 20 s of work")
    assert budget_mod.safety_seconds(0.1) == budget_mod.SAFETY_AT_LEAST
    bought = Budget.of_seconds(2)
    assert bought.steps == 2 * budget_mod.STEPS_PER_SECOND and bought.safety is not None
    assert Budget.of_seconds(0).steps is None and Budget.of_seconds(0).safety is None


def test_a_pass_that_changed_nothing_is_not_run_again_on_the_same_program():
    # a program already minimal: one round, each pass once, then nothing more
    minimal = [RecordedStep("withdraw", {"n": 777})]
    asked = []

    def attempt(candidate):
        asked.append(candidate)
        return attempt_with()(candidate)

    outcome = Shrinker(minimal, attempt, domains=DOMAINS).run()
    assert outcome.found is None and outcome.rounds == 1
    again = len(asked)
    assert again == outcome.replays and again < 40


def test_the_scan_spends_at_most_its_share_of_the_budget():
    from evmstate.engine.shrink.outcome import Met

    # a number that fails only at scattered values (a hash), compared with nothing: the scan's case
    def attempt(candidate):
        fails = bool(candidate) and candidate[-1].arguments["n"] % 1000 == 999
        return Minimized(candidate, [], AssertionError()) if fails else None

    start = [RecordedStep("solve", {"n": 10**9 + 999})]
    domains = {("solve", "n"): DOMAIN}
    short = Shrinker(start, attempt, domains=domains, budget=Budget(400), operands=lambda c, i: Met()).run()
    assert 0 < short.passes["scan"].work <= budget_mod.SCAN_SHARE * 400
    assert short.found is None and short.stopped is None  # the scan's share spent, the rest of the passes ran to their end
    # without a limit, its share of the default budget: enough for the 983 numbers below 999
    unbounded = Shrinker(start, attempt, domains=domains, operands=lambda c, i: Met()).run()
    assert unbounded.found.steps[0].arguments["n"] == 999
    assert unbounded.passes["scan"].work <= budget_mod.SCAN_SHARE * steps_of(budget_mod.DEFAULT_SECONDS)


def test_a_scan_out_of_its_share_does_not_keep_the_rounds_going():
    from evmstate.engine.shrink.outcome import Met

    # two numbers the scan would lower (each fails at ...999 only); its share runs out on the first, after it kept one value
    def attempt(candidate):
        fails = len(candidate) == 2 and all(s.arguments["n"] % 1000 == 999 for s in candidate)
        return Minimized(candidate, [], AssertionError()) if fails else None

    start = [RecordedStep("solve", {"n": 5 * 10**9 + 999}), RecordedStep("solve", {"n": 10**9 + 1999})]
    outcome = Shrinker(start, attempt, domains={("solve", "n"): DOMAIN}, budget=Budget(8000), operands=lambda c, i: Met()).run()
    assert outcome.stopped is None and outcome.rounds < 5
    assert outcome.passes["scan"].work <= budget_mod.SCAN_SHARE * 8000
