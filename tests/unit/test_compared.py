"""Values set from what the contract compared them with (engine/shrink/compared.py): a line found in a replay or two, not bisected."""

from __future__ import annotations

from evmstate.domains import IntDomain
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink import compared
from evmstate.engine.shrink.outcome import Met
from evmstate.engine.shrink.passes import Minimized, Shrinker

UINT = IntDomain(0, 2**256 - 1)
BALANCE = 1_234_567_890_123_456_789_012
END = 1_700_086_401  # an auction's end time
DAY = 86_400


def test_a_number_takes_the_values_it_was_compared_with_nearest_its_target_first():
    drawn = 5 * 10**21 + 7  # compared with the balance below it, and a bound above it; 99 with 3
    met = Met(sides=[(drawn, BALANCE), (drawn, 10**30), (99, 3)])
    assert compared.number_values(met, UINT, drawn) == [BALANCE - 1, BALANCE, BALANCE + 1]
    assert compared.number_values(met, IntDomain(0, BALANCE), drawn) == [BALANCE - 1, BALANCE]
    assert compared.number_values(Met(), UINT, 5) == []


def test_a_wait_takes_the_time_the_contract_compared_the_clock_with_one_before_it_or_one_past_it():
    # the clock was a day and 5 seconds past the end when compared: the wait 5 s shorter lands on it
    met = Met(times=[(END + 5, END)])
    assert compared.clock_values(met, DAY + 5, 0) == [DAY - 1, DAY, DAY + 1]
    assert compared.clock_values(met, 3, 0) == []  # a wait shorter than the gap cannot land on it
    steps = [RecordedStep("bid", {"amount": 1}), RecordedStep("bid", {"amount": 0}, delay=(DAY + 5, 7))]
    at, shorter = compared.wait_candidates(steps, 1, met, 0)
    assert not at and [c[1].delay for _, c in shorter] == [(DAY - 1, 7), (DAY, 7), (DAY + 1, 7)]
    # a wait on the time itself: the second before is the one shorter candidate
    at, shorter = compared.wait_candidates(steps, 1, Met(times=[(END, END)]), 0)
    assert at and [c[1].delay for _, c in shorter] == [(DAY + 4, 7)]
    # one before: already on a line
    assert compared.wait_candidates(steps, 1, Met(times=[(END, END + 1)]), 0) == (True, [])


def shrinker_for(fails, steps, met_of):
    domains = {(s.rule, name): UINT for s in steps for name in s.arguments}
    asked = []

    def attempt(candidate):
        asked.append(candidate)
        return Minimized(candidate, [], AssertionError("refused")) if fails(candidate) else None

    return Shrinker(steps, attempt, domains=domains, operands=met_of), asked


def test_the_whole_balance_compared_is_found_in_a_few_replays_where_bisection_takes_seventy():
    # a withdrawal of exactly the whole balance is refused (a `>` for `>=`): one value fails, the balance it was compared with
    def fails(candidate):
        return [s.arguments["amount"] for s in candidate] == [BALANCE]

    def met_of(candidate, index):
        return Met(sides=[(candidate[index].arguments["amount"] % 2**256, BALANCE)])

    shrinker, asked = shrinker_for(fails, [RecordedStep("withdraw", {"amount": BALANCE})], met_of)
    outcome = shrinker.run()
    assert outcome.found is None  # already least
    assert outcome.passes["values"].runs <= 4 and len(asked) < 30


def test_a_wait_past_an_end_time_is_set_to_it_and_not_bisected():
    # a bid taken at exactly the end (a `<=` for `<`), the wait drawn a day and an hour: set to the day from the time compared
    def fails(candidate):
        return len(candidate) == 1 and candidate[0].delay[0] == DAY

    def met_of(candidate, index):
        wait = candidate[index].delay[0]
        return Met(times=[(END - DAY + wait, END)])

    shrinker, asked = shrinker_for(fails, [RecordedStep("bid", {}, delay=(DAY, 0))], met_of)
    outcome = shrinker.run()
    # the two longer waits (for steps a longer wait makes unneeded), none, then a second less: the line
    assert outcome.found is None and outcome.passes["waits"].runs == 4


def test_a_wait_past_an_end_time_is_set_to_the_second_before_it_where_that_is_the_one_that_fails():
    # a lock withdrawn a second before its end (`>= end - 1` for `>= end`), the wait drawn a day and an hour: set to
    # the second before the end the contract compared the clock with, not bisected
    def fails(candidate):
        return len(candidate) == 1 and candidate[0].delay[0] == DAY - 1

    def met_of(candidate, index):
        wait = candidate[index].delay[0]
        return Met(times=[(END - DAY + wait, END)])

    shrinker, asked = shrinker_for(fails, [RecordedStep("withdraw", {}, delay=(DAY + 3600, 0))], met_of)
    outcome = shrinker.run()
    assert outcome.found is not None and outcome.found.steps[0].delay == (DAY - 1, 0)
    # the two longer waits, none, the second before the end (kept), then a second less: the line; and the round after
    # (the pass changed the program) the same but the candidate, the wait already on the second before
    assert outcome.passes["waits"].runs == 5 + 4, outcome.passes["waits"]


def test_a_value_compared_for_equality_is_not_scanned():
    # a code that must equal what the contract derived: the equality gives it, no number is tried one by one
    code = 98_089_824_643_083_573_293_214_571_647_689_440_406_858_891_577_231_276_115_043_090_024_928_635_288_419

    def fails(candidate):
        return [s.arguments["code"] for s in candidate] == [code]

    def met_of(candidate, index):
        return Met(sides=[(candidate[index].arguments["code"] % 2**256, code)], equalities=[(candidate[index].arguments["code"], code)])

    shrinker, asked = shrinker_for(fails, [RecordedStep("claim", {"code": code})], met_of)
    outcome = shrinker.run()
    assert outcome.found is None and outcome.passes["scan"].runs == 0 and len(asked) < 30


def test_a_wait_set_to_none_of_its_blocks_is_not_made_a_block_less():
    # the failure needs the day to pass, not the blocks; the contract compared the block number as it was before the
    # wait, so the blocks' candidates start at none, which still fails: nothing is left to take a block off (a wait of
    # chain.mine(-1) would be refused as a use of the chain no machine can make)
    def fails(candidate):  # a negative wait is refused by the chain, not this failure
        return len(candidate) == 1 and candidate[0].delay[0] >= DAY and candidate[0].delay[1] >= 0

    def met_of(candidate, index):
        wait, blocks = candidate[index].delay
        return Met(times=[(END - DAY + wait, END)], blocks=[(100 + blocks, 100)])

    shrinker, asked = shrinker_for(fails, [RecordedStep("vote", {}, delay=(DAY, 5))], met_of)
    outcome = shrinker.run()
    assert outcome.found is not None and outcome.found.steps[0].delay == (DAY, 0)
    assert [s.delay for c in asked for s in c if min(s.delay) < 0] == []


def test_a_number_found_at_a_line_is_not_set_again_to_the_values_compared_below_its_least():
    # a first deposit that must pass 1000 and a mint after it that must reach 3 while the deposit is above 2000, else
    # 2: the deposit lands on its line (1001) after the mint stopped at 3, and the mint's move to 2 in the next round
    # asks the deposit again: 0 and 1, compared and tried then, far below 1001, are not tried again
    def fails(candidate):
        amounts = {s.rule: s.arguments["amount"] for s in candidate}
        if len(candidate) != 2 or amounts["deposit"] < 1001:
            return False
        return amounts["mint"] >= (3 if amounts["deposit"] > 2000 else 2)

    def met_of(candidate, index):
        return Met(sides=[(candidate[0].arguments["amount"], 0), (candidate[0].arguments["amount"], 1000)])

    steps = [RecordedStep("deposit", {"amount": 5000}), RecordedStep("mint", {"amount": 10})]
    shrinker, asked = shrinker_for(fails, steps, met_of)
    outcome = shrinker.run()
    assert [s.arguments["amount"] for s in outcome.found.steps] == [1001, 2]
    deposits = [c[0].arguments["amount"] for c in asked if len(c) == 2 and c[0].rule == "deposit"]
    # once each, in the round that found the line; the values compared near it (999, 1000) in both rounds
    assert deposits.count(0) == 1 and deposits.count(1) == 1 and deposits.count(999) == 2, deposits


def test_a_number_the_machine_waits_by_landing_on_a_compared_time_is_not_scanned():
    # a delay of 1000 s scheduled, then an execution that fails only when the clock is exactly at the operation's ready
    # time (the machine waits by the delay in Python): no comparison meets the number itself, the clock's does
    def fails(candidate):
        return len(candidate) == 2 and candidate[0].arguments["extra"] == 1000

    def met_of(candidate, index):
        if len(candidate) < 2:
            return Met()  # the schedule alone compares nothing
        return Met(times=[(END + candidate[0].arguments["extra"] - 1000, END)])

    steps = [RecordedStep("schedule", {"extra": 1000}), RecordedStep("execute", {})]
    shrinker, asked = shrinker_for(fails, steps, met_of)
    outcome = shrinker.run()
    assert outcome.found is None  # already least
    assert outcome.passes["scan"].runs == 0 and len(asked) < 30, (outcome.passes["scan"], len(asked))


def test_the_failing_step_alone_takes_the_value_its_replay_compared_it_with():
    # deposits and a transfer that build an account's balance up, then a withdrawal of the whole of it, refused: the
    # withdrawal alone, of the balance the account held before them all, fails the same way (one candidate, one repair)
    def balance(candidate, upto):
        held = BALANCE
        for s in candidate[:upto]:
            held += s.arguments["amount"] if s.rule == "deposit" else -s.arguments["amount"]
        return held

    def fails(candidate):
        last = candidate[-1] if candidate else RecordedStep("none", {})
        return last.rule == "withdraw" and last.arguments["amount"] == balance(candidate, len(candidate) - 1)

    def met_of(candidate, index):
        return Met(sides=[(s.arguments["amount"], balance(candidate, j)) for j, s in enumerate(candidate) if j >= index])

    steps = [
        RecordedStep("deposit", {"amount": 70}), RecordedStep("give", {"amount": 30}),
        RecordedStep("deposit", {"amount": 5}), RecordedStep("withdraw", {"amount": BALANCE + 45}),
    ]
    shrinker, asked = shrinker_for(fails, steps, met_of)
    outcome = shrinker.run()
    assert [(s.rule, s.arguments["amount"]) for s in outcome.found.steps] == [("withdraw", BALANCE)]
    assert outcome.passes["chunks"].runs == 2 and outcome.passes["chunks"].kept == 1, outcome.passes["chunks"]
