"""The step-deletion pass's bookkeeping: which steps go together, and renumbered bundle values."""

from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink.passes import relabel, with_users


def step(rule, results=(), **refs):
    return RecordedStep(rule, {k: {"ref": v} for k, v in refs.items()}, tuple(results))


PROGRAM = [
    step("grant", ["active_0"]),
    step("revoke", ["revoked_0"], grant="active_0"),
    step("grant", ["active_1"]),
    step("claim", grant="active_1"),
    step("claim_revoked", grant="revoked_0"),
    RecordedStep("sleep", {"seconds": 3}),
]


def test_a_step_goes_with_every_step_that_uses_its_values_directly_or_not():
    assert with_users(PROGRAM, 0) == {0, 1, 4}
    assert with_users(PROGRAM, 1) == {1, 4}
    assert with_users(PROGRAM, 2) == {2, 3}
    assert with_users(PROGRAM, 5) == {5}


def test_bundle_values_are_numbered_from_zero_again():
    kept = [PROGRAM[2], PROGRAM[3], PROGRAM[5]]
    assert relabel(kept) == [
        step("grant", ["active_0"]),
        step("claim", grant="active_0"),
        RecordedStep("sleep", {"seconds": 3}),
    ]
    assert relabel([step("make", ["my_bundle_3"]), step("use", x="my_bundle_3")]) == [step("make", ["my_bundle_0"]), step("use", x="my_bundle_0")]


def test_steps_needed_only_because_a_wait_was_short_go_once_the_waits_are_longer():
    """As the staking pool's reward: each fund raises the rate, so ten funds overpay after 1.1
    weeks where one fund overpays after 2 weeks. Deleting a fund alone never still fails; with
    every wait longer the funds go, and the wait is then bisected back to the least that fails."""
    from evmstate.engine.shrink.passes import Minimized
    from evmstate.engine.shrink.trials import minimize

    week = 604800

    def attempt(candidate):  # each wait after the stake owes the funds so far times the wait; the pool holds a week per fund
        funds, staked, owed = 0, False, 0
        for at, s in enumerate(candidate):
            if staked:
                owed += funds * s.delay[0]
            if s.rule == "fund":
                funds += 1
            elif s.rule == "stake":
                staked = True
            if staked and owed > week * funds:
                return Minimized(candidate[: at + 1], [], AssertionError("the pool owes more than it holds"))
        return None

    fund, stake = step("fund"), step("stake")
    program = [fund] * 10 + [stake, fund.with_delay((665281, 0))]
    assert attempt(program) is not None
    assert all(attempt(program[:j] + program[j + 1 :]) is None for j in range(10))  # 1-minimal as it stands
    found = minimize(program, attempt)
    assert [s.rule for s in found.steps] == ["fund", "stake", "fund"]
    assert found.steps[2].delay == (2 * week + 1, 0)  # bisected back down: the least wait that fails


def test_a_program_without_waits_is_not_replayed_with_longer_ones():
    from evmstate.engine.shrink.passes import Minimized
    from evmstate.engine.shrink.trials import minimize

    tried = []

    def attempt(candidate):
        tried.append(candidate)
        return Minimized(candidate, [], AssertionError()) if any(s.rule == "b" for s in candidate) else None

    found = minimize([step("a"), step("b"), step("a")], attempt)
    assert [s.rule for s in found.steps] == ["b"]
    assert all(s.delay == (0, 0) for c in tried for s in c)


def test_equal_values_drawn_by_two_rules_alike_shrink_together():
    # an account that deposits in one rule and withdraws in another, each rule with its own
    # strategy("uint8")-like domain: the program fails only while both steps use one value >= 3
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    def attempt(candidate):
        a, b = (s.arguments["n"] for s in candidate) if len(candidate) == 2 else (None, None)
        return Minimized(candidate, [], AssertionError()) if a is not None and a == b and a >= 3 else None

    program = [RecordedStep("deposit", {"n": 200}), RecordedStep("withdraw", {"n": 200})]
    domains = {("deposit", "n"): IntDomain(0, 255), ("withdraw", "n"): IntDomain(0, 255)}
    outcome = Shrinker(program, attempt, domains=domains).run()
    assert [s.arguments["n"] for s in outcome.found.steps] == [3, 3]
    assert IntDomain(0, 255).key() == IntDomain(0, 255).key() != IntDomain(0, 254).key()


def test_a_later_argument_is_repaired_only_with_what_the_replay_compared_it_with():
    # the sale: a quote must be exactly the price plus its fee; lowered alone, the price leaves the quote
    # compared with the new price, which the repair tries; the price's own bounds, met in the same replay,
    # are not tried in the quote's place
    from evmstate.engine.shrink.passes import Met, Minimized, Shrinker
    from evmstate.domains import IntDomain

    def with_fee(price):
        return price + price * 30 // 10_000

    tried = []

    def attempt(candidate):
        tried.append(candidate)
        if [s.rule for s in candidate] != ["set_price", "buy"]:
            return None
        price, quote = (s.arguments["n"] for s in candidate)
        return Minimized(candidate, [], AssertionError()) if price >= 1_000_000 and quote == with_fee(price) else None

    def operands(candidate, index):
        price, quote = (s.arguments["n"] for s in candidate)
        sides = [(price, 1_000_000), (price, 10**30), (quote, with_fee(price))]
        return Met(operands=[o for _, o in sides], sides=sides)

    program = [RecordedStep("set_price", {"n": 123_456_789}), RecordedStep("buy", {"n": with_fee(123_456_789)})]
    domains = {("set_price", "n"): IntDomain(0, 2**256 - 1), ("buy", "n"): IntDomain(0, 2**256 - 1)}
    shrinker = Shrinker(program, attempt, domains=domains, hints=(1_000_000, 10**30), operands=operands)
    assert shrinker.repaired([program[0].with_arguments({"n": 1_000_000}), program[1]], 0)
    assert [c[1].arguments["n"] for c in tried] == [1_003_000]  # the quote's one comparison, its first side
    outcome = Shrinker(program, attempt, domains=domains, hints=(1_000_000, 10**30), operands=operands).run()
    assert [s.arguments["n"] for s in outcome.found.steps] == [1_000_000, 1_003_000]


def test_a_number_compared_with_an_equal_value_costs_one_replay_to_confirm():
    # the forked ledger: a withdrawal of the whole balance fails; the contract compares the amount with the balance,
    # equal (recorded as matched, not as a side): the amount one less confirms it is at that line, where the bound,
    # the contracts' numbers and a bisection, each with a replay for repairs, cost a dozen
    from evmstate.engine.shrink.passes import Met, Minimized, Shrinker
    from evmstate.domains import IntDomain

    balance, tried = 1_234_567_890, []

    def attempt(candidate):
        if len(candidate) != 1:
            return None
        tried.append(candidate[0].arguments["amount"])
        return Minimized(candidate, [], AssertionError()) if candidate[0].arguments["amount"] == balance else None

    def operands(candidate, index):
        amount = candidate[0].arguments["amount"]
        return Met(matched=[amount]) if amount == balance else Met(operands=[balance], sides=[(amount, balance)])

    program = [RecordedStep("withdraw", {"amount": balance})]
    domains = {("withdraw", "amount"): IntDomain(0, 2**256 - 1)}
    outcome = Shrinker(program, attempt, domains=domains, hints=(13, 17), operands=operands).run()
    assert outcome.found is None and tried == [balance - 1]


def test_the_next_number_down_is_not_asked_again_where_a_comparison_gave_it():
    # a minimum of 500 the amount is compared with: 499, 500 and 501 are what it was compared with; 499 and 500 do not
    # fail, and 500, the next one down from 501, is not asked a second time to confirm 501 sits at the line
    from evmstate.engine.shrink.passes import Met, Minimized, Shrinker
    from evmstate.domains import IntDomain

    tried = []

    def attempt(candidate):
        if len(candidate) != 1:
            return None
        tried.append(candidate[0].arguments["amount"])
        return Minimized(candidate, [], AssertionError()) if candidate[0].arguments["amount"] > 500 else None

    def operands(candidate, index):
        return Met(operands=[500], sides=[(candidate[0].arguments["amount"], 500)])

    program = [RecordedStep("buy", {"amount": 501})]
    outcome = Shrinker(program, attempt, domains={("buy", "amount"): IntDomain(0, 10**6)}, operands=operands).run()
    assert outcome.found is None and tried == [499, 500]


def test_equal_numbers_compared_with_an_equal_value_cost_one_replay_to_confirm():
    # two claims of one code that must match the stored one: the pair one less confirms it, not the smallest codes
    from evmstate.engine.shrink.passes import Met, Minimized, Shrinker
    from evmstate.domains import IntDomain

    code, tried = 98_089_824_643_083_573_293, []

    def attempt(candidate):
        if len(candidate) != 2:
            return None
        tried.append(tuple(s.arguments["code"] for s in candidate))
        return Minimized(candidate, [], AssertionError()) if tried[-1] == (code, code) else None

    def operands(candidate, index):
        return Met(matched=[s.arguments["code"] for s in candidate if s.arguments["code"] == code])

    program = [RecordedStep("claim", {"code": code}), RecordedStep("claim", {"code": code})]
    outcome = Shrinker(program, attempt, domains={("claim", "code"): IntDomain(0, 2**256 - 1)}, operands=operands).run()
    # (after the merge's and the scale's tries: the two as one, at their target, halved)
    assert outcome.found is None and (code - 1, code - 1) in tried
    assert not any((k, k) in tried for k in range(1, 16))  # the smallest codes, one by one, were not


def test_a_later_argument_is_never_repaired_to_a_constant_of_the_code():
    # the pool: a first deposit's root is computed by an isqrt that compares its operand with 2**72, 2**40 and 2**24; a
    # smaller first deposit that reverts leaves the second deposit to compute the root of its own small amount, which
    # the replay then meets beside those constants: the amount equals the compared operand by chance, and no repair
    # takes a constant of the code for it (nor its neighbours). A value the change moved (the new price) still is.
    from evmstate.engine.shrink.passes import Met, Shrinker
    from evmstate.domains import IntDomain

    tried = []

    def attempt(candidate):
        tried.append(candidate)
        return None

    constants = frozenset({2**72, 2**40, 2**24})

    def operands(candidate, index):
        first, second = (s.arguments["n"] for s in candidate)
        if first >= 1000:
            return Met(operands=[], sides=[])
        sides = [(second, 2**72), (second, 2**40), (second, 2**24), (second, 3 * first + 7)]
        return Met(operands=[o for _, o in sides], sides=sides)

    program = [RecordedStep("deposit", {"n": 5000}), RecordedStep("deposit", {"n": 8})]
    domains = {("deposit", "n"): IntDomain(0, 2**256 - 1)}
    shrinker = Shrinker(program, attempt, domains=domains, operands=operands, constants=constants)
    assert not shrinker.repaired([program[0].with_arguments({"n": 1}), program[1]], 0)
    assert [c[1].arguments["n"] for c in tried] == [10, 11, 9]  # 3 * 1 + 7 and its neighbours: no constant
    tried.clear()
    without = Shrinker(program, attempt, domains=domains, operands=operands)  # as before: every compared side
    assert not without.repaired([program[0].with_arguments({"n": 1}), program[1]], 0)
    assert {c[1].arguments["n"] for c in tried} >= {2**72, 2**40, 2**24}


def test_a_wait_a_deleted_step_passed_on_goes_before_the_values_are_made_smaller():
    # x goes, and its wait passes on to b, which the sweep down has passed; the wait is not needed
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    tried = []

    def attempt(candidate):
        tried.append(candidate)
        rules = [s.rule for s in candidate]
        return Minimized(candidate, [], AssertionError()) if rules[-2:] == ["a", "b"] and candidate[-1].arguments["n"] >= 3 else None

    program = [RecordedStep("a"), RecordedStep("x", delay=(1000, 10)), RecordedStep("b", {"n": 200})]
    outcome = Shrinker(program, attempt, domains={("b", "n"): IntDomain(0, 255)}).run()
    assert outcome.found.steps == [RecordedStep("a"), RecordedStep("b", {"n": 3})]
    assert outcome.passes["singles"].kept == 2  # x, then the wait it passed on
    assert all(s.delay == (0, 0) for c in tried if c and c[-1].rule == "b" and c[-1].arguments["n"] != 200 for s in c)


def test_a_huge_number_whose_least_is_small_is_bisected_by_its_bit_length_first():
    # drawn near 2**80, least 1003 (a pool's first deposit): the powers of two first, then the last octave
    from evmstate.domains import IntDomain

    asked = []

    def fails(v, repair=False):
        asked.append(v)
        return v >= 1003

    assert IntDomain(0, 2**256 - 1).minimize(2**80 + 12345, fails) == 1003
    assert len(asked) < 40  # target and its neighbour, the small values, one less, 7 powers, 10 in the octave; 80 bisecting
    asked.clear()
    assert IntDomain(0, 2**256 - 1).minimize(2**80, lambda v, repair=False: asked.append(v) or v >= 2**79 + 5) == 2**79 + 5


def test_a_number_near_its_least_is_bisected_from_near_not_from_its_bound():
    # where the scale left a pool's amount (7382; one step less of scaling, 7152, did not fail), its least 7368 is
    # bisected between the two: the bit length from the bound and the octave cost twice as many questions
    from evmstate.domains import IntDomain

    for near, most in ((7152, 12), (None, 18)):
        asked = []

        def fails(v, repair=False):
            asked.append(v)
            return v >= 7368

        assert IntDomain(0, 10**24).minimize(7382, fails, (), near) == 7368
        assert len(asked) == len(set(asked)), asked  # no value asked twice
        assert (len(asked) <= most) if near else (len(asked) > most), (near, asked)
    # a near that fails after all (another number moved since): the least below it is still found
    asked.clear()
    assert IntDomain(0, 10**24).minimize(7382, fails, (), 7500) == 7368
    asked.clear()
    assert IntDomain(0, 10**24).minimize(7382, lambda v, repair=False: asked.append(v) or v >= 300, (), 7152) == 300
    # a least among the small values is kept as found, nothing below it asked again
    asked.clear()
    assert IntDomain(0, 10**24).minimize(2**60, lambda v, repair=False: asked.append(v) or v >= 8) == 8
    assert asked == [0, 1, 2, 3, 4, 5, 6, 7, 8], asked


def test_merging_two_steps_never_leaves_a_number_below_the_strategys_bound():
    # two bids of 1 (strategy min_value=1): merged into one bid of 2, the first bid would be left at 0, which the strategy
    # never draws; the program reported keeps every number within its bounds
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    tried = []

    def attempt(candidate):
        tried.append(candidate)
        bids = [s.arguments["amount"] for s in candidate]
        # "bid too low": a bid not above the best so far
        best = 0
        for bid in bids:
            if bid <= best:
                return Minimized(candidate, [], AssertionError())
            best = bid
        return None

    program = [RecordedStep("bid", {"amount": 1}), RecordedStep("bid", {"amount": 1})]
    outcome = Shrinker(program, attempt, domains={("bid", "amount"): IntDomain(1, 100)}).run()
    assert outcome.found is None  # nothing shorter within the bounds: the program stays as it was found
    assert tried and all(s.arguments["amount"] >= 1 for c in tried for s in c)


def test_a_deposit_goes_while_the_withdrawal_of_the_whole_balance_after_it_takes_up_its_amount():
    # a ledger that refuses a withdrawal of exactly the balance: deposit 3, then withdraw the balance then held. Deleting
    # the deposit alone leaves a withdrawal of more than is held (refused, as expected), and a smaller withdrawal passes:
    # only both moves at once reach the one-step program
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    held = 10**21

    def attempt(candidate):
        balance = held
        for s in candidate:
            if s.rule == "deposit":
                balance += s.arguments["value"]
            elif s.arguments["amount"] == balance:
                return Minimized(candidate, [], AssertionError())
            elif s.arguments["amount"] < balance:
                balance -= s.arguments["amount"]
        return None

    program = [RecordedStep("deposit", {"value": 3}), RecordedStep("withdraw", {"amount": held + 3})]
    domains = {("deposit", "value"): IntDomain(0, 2**256 - 1), ("withdraw", "amount"): IntDomain(0, 2**256 - 1)}
    outcome = Shrinker(program, attempt, domains=domains).run()
    assert [(s.rule, s.arguments) for s in outcome.found.steps] == [("withdraw", {"amount": held})]


def test_a_later_step_goes_while_an_earlier_step_of_another_rule_takes_up_its_amount():
    # a new vault where a deposit of 1 asset and a mint of 1 share each buy one share: the failure needs 2 shares held
    # before the lend. Neither step can go alone, and they are two rules, so no merge of one rule's steps joins them
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    def attempt(candidate):
        shares = 0
        for s in candidate:
            if s.rule in ("deposit", "mint"):
                shares += s.arguments["n"]
            elif s.rule == "lend" and shares == 2:
                return Minimized(candidate, [], AssertionError())
        return None

    program = [RecordedStep("deposit", {"n": 1}), RecordedStep("mint", {"n": 1}), RecordedStep("lend", {})]
    domains = {("deposit", "n"): IntDomain(0, 2**256 - 1), ("mint", "n"): IntDomain(0, 2**256 - 1)}
    outcome = Shrinker(program, attempt, domains=domains).run()
    assert [(s.rule, s.arguments) for s in outcome.found.steps] in (
        [("deposit", {"n": 2}), ("lend", {})], [("mint", {"n": 2}), ("lend", {})],
    )
    assert outcome.passes["offset"].kept >= 1


def test_a_step_goes_while_the_id_later_steps_name_it_by_count_is_one_less():
    # tokens are numbered by count: the fifth mint's token is 4. The actor's mint, stake and unstake of its token fail;
    # the four mints before it by others go only while the id the stake and unstake name goes down with them
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    def attempt(candidate):
        owners, staked = [], set()
        for s in candidate:
            who = s.arguments.get("who")
            if s.rule == "mint":
                owners.append(who)
            elif s.rule == "stake" and s.arguments["token"] < len(owners) and owners[s.arguments["token"]] == who:
                staked.add(s.arguments["token"])
            elif s.rule == "unstake" and s.arguments["token"] in staked and who == "actor":
                return Minimized(candidate, [], AssertionError())
        return None

    program = [*(RecordedStep("mint", {"who": f"a{n}"}) for n in range(4)), RecordedStep("mint", {"who": "actor"}),
               RecordedStep("stake", {"who": "actor", "token": 4}), RecordedStep("unstake", {"who": "actor", "token": 4})]
    domains = {("stake", "token"): IntDomain(0, 2**256 - 1), ("unstake", "token"): IntDomain(0, 2**256 - 1)}
    outcome = Shrinker(program, attempt, domains=domains).run()
    assert [(s.rule, s.arguments) for s in outcome.found.steps] == [
        ("mint", {"who": "actor"}), ("stake", {"who": "actor", "token": 0}), ("unstake", {"who": "actor", "token": 0}),
    ]
    assert outcome.passes["renumber"].kept == 4


def test_an_offset_between_steps_that_act_for_one_account_is_tried_before_the_others():
    # a gain of a strategy, a deposit by accounts[0], a lend to the strategy, a mint by accounts[0]: the mint can go
    # while the deposit takes up its share (both bought for accounts[0], to itself), which the offsets try first; then
    # the moves between the gain and the lend (one strategy: one argument alike); then those between unalike steps
    from evmstate.engine.shrink import moves
    from evmstate.engine.shrink.passes import Shrinker
    from evmstate.domains import IntDomain

    me = {"account": 0}
    program = [
        RecordedStep("gain", {"strategy": 0, "knob": 1}),
        RecordedStep("deposit", {"actor": me, "receiver": me, "assets": 1}),
        RecordedStep("lend", {"strategy": 0, "debt": 1}),
        RecordedStep("mint", {"actor": me, "receiver": me, "shares": 1}),
    ]
    wide = IntDomain(0, 2**256 - 1)
    domains = {
        ("gain", "knob"): wide, ("gain", "strategy"): IntDomain(0, 1), ("deposit", "assets"): wide,
        ("lend", "debt"): wide, ("lend", "strategy"): IntDomain(0, 1), ("mint", "shares"): wide,
    }
    shrinker = Shrinker(program, lambda candidate: None, domains=domains)
    rules = [s.rule for s in program]

    def move(candidate):
        """(the rule deleted, the rule whose number moved, its number now)."""
        gone = next(r for r in rules if r not in [s.rule for s in candidate])
        moved = next(s for s in candidate if s.arguments != program[rules.index(s.rule)].arguments)
        return gone, moved.rule, next(v for k, v in moved.arguments.items() if k in ("knob", "assets", "debt", "shares"))

    tried = [move(c) for c in moves.offsets(shrinker)]
    # a later number less the amount, then more by it; an earlier one more, then less
    assert tried[:4] == [("deposit", "mint", 0), ("deposit", "mint", 2), ("mint", "deposit", 2), ("mint", "deposit", 0)]
    assert tried[4:8] == [("gain", "lend", 0), ("gain", "lend", 2), ("lend", "gain", 2), ("lend", "gain", 0)]
    assert len(tried) == len(set(tried)) == 4 * 3 * 2  # every step deleted, each other step's number moved both ways


def test_a_failing_step_linked_to_others_only_through_storage_is_tried_as_its_backward_slice_in_one_replay():
    # deposit writes the idle slot that lend reads; lend writes the debt slot that report (the failing step) reads; the
    # setters write slots no kept step reads, and the first deposit's idle was overwritten by the second's
    from evmstate.engine.shrink import slices
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.evm.base import ExecResult

    at = b"\x01" * 20
    idle, debt, fee, unlock = 0, 1, 2, 3

    def call(reads=(), writes=(), success=True):
        return ExecResult(
            success=success, output=b"", gas_used=0, storage_writes=tuple((at, s, 1) for s in writes),
            # SSTORE reads the slot it writes: a slot only set is read once per write
            storage_reads=tuple((at, s, 0) for s in (*reads, *writes)),
        )

    calls = {
        "deposit": [call(writes=[idle])], "set_fee": [call(writes=[fee])], "set_unlock": [call(writes=[unlock])],
        "lend": [call(reads=[idle], writes=[debt])], "report": [call(reads=[debt])],
        "top_up": [call(reads=[debt], writes=[debt])],  # a debt added to: it reads what lend wrote
        "noop": [call(reads=[fee], writes=[unlock], success=False)],  # reverted: its write undone
    }
    rules = ["deposit", "set_fee", "deposit", "noop", "lend", "set_unlock", "report"]
    program = [RecordedStep(rule, {"n": i}) for i, rule in enumerate(rules)]
    assert slices.read_and_written(calls["noop"]) == (frozenset({(at, fee)}), frozenset())
    assert slices.read_and_written(calls["lend"]) == (frozenset({(at, idle)}), frozenset({(at, debt)}))

    replayed, recorded = [], []

    def attempt(candidate):
        replayed.append([s.rule for s in candidate])
        names = [s.rule for s in candidate]
        fails = names[-1] == "report" and "lend" in names and "deposit" in names[: names.index("lend")]
        return Minimized(candidate, [], AssertionError()) if fails else None

    def accesses(candidate):
        recorded.append(len(candidate))
        return [slices.read_and_written(calls[s.rule]) for s in candidate]

    shrinker = Shrinker(program, attempt, accesses=accesses)
    assert slices.sliced(shrinker)
    assert [s.rule for s in shrinker.best] == ["deposit", "lend", "report"]
    assert shrinker.best[0].arguments == {"n": 2}  # the deposit whose idle lend read
    assert (recorded, len(replayed)) == ([7], 1)
    # a program shorter than SLICE_FROM is not recorded, nor one tried before; one whose slice is itself costs the
    # recording alone
    assert not slices.sliced(shrinker) and (recorded, len(replayed)) == ([7], 1)
    shrinker.best = program
    assert not slices.sliced(shrinker) and (recorded, len(replayed)) == ([7], 1)
    needed = [program[2], program[4], RecordedStep("top_up"), program[6]]
    shrinker.best = needed
    assert not slices.sliced(shrinker) and (recorded, len(replayed)) == ([7, 4], 1)


def test_a_step_goes_while_the_amounts_before_it_grow_by_one():
    # a strategy's share made worth more by a gain; the vault then takes back all but 1 of its debt and redeems the
    # shares its assets convert to, rounded down: none, for something. With the gain reported (booked as debt), 1 lent
    # and a gain of 1 fail; without the report, 2 must be lent (so that something is taken back). Deleting the report
    # alone passes, and so does raising any one number alone: they go up together, and come down again one by one
    from evmstate.engine.shrink.passes import Minimized, Shrinker
    from evmstate.domains import IntDomain

    def attempt(candidate):
        idle = debt = shares = assets = 0
        for s in candidate:
            a = s.arguments
            if s.rule == "deposit":
                idle += a["assets"]
            elif s.rule == "lend":
                if not 0 < a["debt"] <= idle or debt:
                    return None
                idle -= a["debt"]
                debt = shares = assets = a["debt"]
            elif s.rule == "gain":
                assets += a["knob"]
            elif s.rule == "report":
                debt = assets
            elif s.rule == "update_debt":
                taken = debt - a["debt"]
                if shares and taken > 0 and taken * shares // assets == 0:
                    return Minimized(candidate, [], AssertionError())
                return None
        return None

    program = [RecordedStep("deposit", {"assets": 1}), RecordedStep("lend", {"debt": 1}), RecordedStep("gain", {"knob": 1}),
               RecordedStep("report", {}), RecordedStep("update_debt", {"debt": 1})]
    wide = IntDomain(0, 2**256 - 1)
    domains = {("deposit", "assets"): wide, ("lend", "debt"): wide, ("gain", "knob"): wide, ("update_debt", "debt"): wide}
    outcome = Shrinker(program, attempt, domains=domains).run()
    assert [(s.rule, s.arguments) for s in outcome.found.steps] == [
        ("deposit", {"assets": 2}), ("lend", {"debt": 2}), ("gain", {"knob": 1}), ("update_debt", {"debt": 1}),
    ]
    assert outcome.passes["raise"].kept == 1


def test_a_step_moves_later_while_the_amounts_it_moves_past_go_down_to_one():
    # a strategy's gain before the vault deposits and lends shows (a share rounds the wrong way) only where 3 or more
    # are lent; after the lending it shows with 1. Lowering the 3s with the gain first passes, and the gain moved alone
    # keeps the program as large: the two together make it smaller
    from evmstate.domains import IntDomain
    from evmstate.engine.shrink.passes import Minimized, Shrinker

    def attempt(candidate):
        rules = [s.rule for s in candidate]
        if sorted(rules) != ["deposit", "gain", "lend", "take"] or rules[-1] != "take":
            return None
        n = {s.rule: next(iter(s.arguments.values()), None) for s in candidate}
        if rules.index("deposit") > rules.index("lend") or not 0 < n["lend"] <= n["deposit"] or n["gain"] < 1:
            return None
        if rules.index("gain") < rules.index("deposit"):
            fails = n["lend"] >= 3
        else:
            fails = rules.index("gain") > rules.index("lend")
        return Minimized(candidate, [], AssertionError()) if fails else None

    program = [RecordedStep("gain", {"knob": 1}), RecordedStep("deposit", {"assets": 3}), RecordedStep("lend", {"debt": 3}), RecordedStep("take")]
    wide = IntDomain(0, 2**256 - 1)
    domains = {("gain", "knob"): wide, ("deposit", "assets"): wide, ("lend", "debt"): wide}
    outcome = Shrinker(program, attempt, domains=domains).run()
    assert [(s.rule, s.arguments) for s in outcome.found.steps] == [
        ("deposit", {"assets": 1}), ("lend", {"debt": 1}), ("gain", {"knob": 1}), ("take", {}),
    ]
    assert outcome.passes["later"].kept == 1
