"""The shrinker's passes for coupled values (engine/shrink/coupled.py) on small fake machines: each program
fails only while two of its values keep a relation, so neither can move alone."""

from __future__ import annotations

import base64
import hashlib
import math
from types import SimpleNamespace

import pytest

from evmstate.contracts.address import checksum
from evmstate.contracts.api import current_project
from evmstate.engine.shrink.coupled import SCAN_UP_TO, account_places, account_renames, scale, scale_groups
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink.passes import Met, Minimized, Shrinker
from evmstate.domains import SMALL_TRIED, AddressDomain, ArrayDomain, BytesDomain, IntDomain, TextDomain

from .batches import Batches


def raw(i: int) -> bytes:
    return hashlib.sha256(b"account %d" % i).digest()[:20]


class Accounts(list):
    """The project's accounts as the shrinker's address domain reads them: a list, with the deployed actors (none here)."""

    actors: dict = {}


ACCOUNTS = Accounts(SimpleNamespace(raw_address=raw(i), address=checksum(raw(i))) for i in range(10))


# not named accounts: evmstate's pytest plugin would load the project of the folder pytest runs in for every test
@pytest.fixture(autouse=True)
def fake_accounts():
    with current_project.using(SimpleNamespace(accounts=ACCOUNTS)):
        yield


def failing(candidate):
    return Minimized(candidate, [], AssertionError())


def word(value) -> int:
    return int.from_bytes(ACCOUNTS[value["account"]].raw_address, "big") if isinstance(value, dict) else int(value, 16)


def shrink(program, attempt, domains, width=1, **kwargs):
    return Shrinker(program, attempt, domains=domains, tries=Batches(width) if width > 1 else None, **kwargs).run()


def test_the_accounts_a_program_uses_are_renamed_in_the_order_it_first_uses_them():
    # a staking pool that overpays after a claim by an account that did not stake: the staker and
    # the claimer only have to differ, so neither can become accounts[0] alone
    def attempt(candidate):
        rules = [s.rule for s in candidate]
        if rules != ["stake", "claim"]:
            return None
        return failing(candidate) if candidate[0].arguments["staker"] != candidate[1].arguments["staker"] else None

    staker = AddressDomain(3)
    domains = {("stake", "staker"): staker, ("claim", "staker"): staker}
    program = [RecordedStep("stake", {"staker": {"account": 1}}), RecordedStep("claim", {"staker": {"account": 0}})]
    outcome = shrink(program, attempt, domains)
    assert [s.arguments["staker"] for s in outcome.found.steps] == [{"account": 0}, {"account": 1}]
    assert outcome.passes["accounts"].kept == 1
    # renames only go toward programs whose accounts come first in order: from the result, only
    # the merge of its two accounts into one, never the swap back
    order = [a for _, _, a in account_places(outcome.found.steps, domains)]
    assert [[a for _, _, a in account_places(c, domains)] for _, c in account_renames(outcome.found.steps, domains)] == [[0, 0]] < [order]


def inbox(account) -> str:
    """The address a fake contract derives for an account, as Inbox.vy does (keccak of it, cut)."""
    return checksum(hashlib.sha256(b"inbox" + word(account).to_bytes(20, "big")).digest()[:20])


def test_an_account_merged_into_another_takes_the_address_the_contract_compared_with():
    # Inbox.vy: sending to your own inbox credits you twice; accounts[2] needs accounts[0]'s 1 to
    # send at all, and the inbox is an address the contract derives from its owner
    def run(candidate):
        balances, opened = {0: 1000}, set()
        for at, s in enumerate(candidate):
            who = s.arguments["who"]["account"]
            if s.rule == "open":
                opened.add(who)
            elif balances.get(who, 0) >= s.arguments["amount"] > 0:
                to = s.arguments["to"]
                if who in opened and not isinstance(to, dict) and to == inbox({"account": who}):
                    return at
                balances[who] -= s.arguments["amount"]
                if isinstance(to, dict):
                    balances[to["account"]] = balances.get(to["account"], 0) + s.arguments["amount"]
        return None

    def attempt(candidate):
        at = run(candidate)
        return None if at is None else failing(candidate[: at + 1])

    def operands(candidate, index):  # each send compared `to` for equality with the sender's inbox
        return Met(equalities=[(word(s.arguments["to"]), word(inbox(s.arguments["who"]))) for s in candidate[index:] if s.rule == "send"])

    who, to, amount = AddressDomain(3), AddressDomain(None), IntDomain(0, 1000)
    domains = {("open", "who"): who, ("send", "who"): who, ("send", "to"): to, ("send", "amount"): amount}
    program = [
        RecordedStep("open", {"who": {"account": 2}}),
        RecordedStep("send", {"who": {"account": 0}, "to": {"account": 2}, "amount": 1}),
        RecordedStep("send", {"who": {"account": 2}, "to": inbox({"account": 2}), "amount": 1}),
    ]
    assert attempt(program) is not None
    without = shrink(program, attempt, domains)  # no comparisons recorded: nothing to repair with
    assert len(without.found.steps if without.found else program) == 3
    outcome = shrink(program, attempt, domains, operands=operands)
    assert outcome.found.steps == [
        RecordedStep("open", {"who": {"account": 0}}),
        RecordedStep("send", {"who": {"account": 0}, "to": inbox({"account": 0}), "amount": 1}),
    ]


def sale(candidate):
    """Sale.vy's planted bug: a quote of exactly the price plus its 0.3% fee is refused."""
    if [s.rule for s in candidate] != ["set_price", "buy"]:
        return None
    price, quote = candidate[0].arguments["price"], candidate[1].arguments["quote"]
    return failing(candidate) if 10**6 <= price <= 10**30 and quote == price + price * 30 // 10_000 else None


SALE = {("set_price", "price"): IntDomain(0, 2**256 - 1), ("buy", "quote"): IntDomain(0, 2**256 - 1)}


@pytest.mark.parametrize("width", [1, 3])
def test_a_price_and_the_quote_that_matches_it_are_lowered_together(width):
    price = 134_217_729
    program = [RecordedStep("set_price", {"price": price}), RecordedStep("buy", {"quote": price + price * 30 // 10_000})]
    # neither number moves alone; the contract's minimum price is among its constants
    outcome = shrink(program, sale, SALE, width, hints=(30, 10_000, 10**6, 10**30))
    assert [s.arguments for s in outcome.found.steps] == [{"price": 10**6}, {"quote": 1_003_000}]
    assert outcome.passes["together"].kept >= 1


def test_without_the_contract_s_numbers_the_pair_is_bisected_down_to_the_least():
    price = 5_000_000_000
    program = [RecordedStep("set_price", {"price": price}), RecordedStep("buy", {"quote": price + price * 30 // 10_000})]
    outcome = shrink(program, sale, SALE)
    found = [s.arguments for s in outcome.found.steps]
    assert found[0]["price"] == 10**6 and found[1]["quote"] == 1_003_000, found


def solves(level: int, nonce: int) -> bool:
    """A proof of work as Puzzle.vy's, one nonce in 64 solving a level."""
    return hashlib.sha256(b"%d:%d" % (level, nonce)).digest()[0] < 4


def puzzle(candidate):
    level = 0
    for s in candidate:
        if solves(level, s.arguments["nonce"]):
            level += 1
    return failing(candidate) if level == len(candidate) == 3 else None


@pytest.mark.parametrize("width", [1, 4])
def test_numbers_that_fail_only_at_scattered_values_are_scanned_from_the_bottom(width):
    least = [next(n for n in range(10**6) if solves(level, n)) for level in range(3)]
    assert all(SMALL_TRIED < n < SCAN_UP_TO for n in least[1:]), least  # what the values pass alone would not find
    program = [RecordedStep("solve", {"nonce": next(n for n in range(10**20, 10**21) if solves(level, n))}) for level in range(3)]
    domains = {("solve", "nonce"): IntDomain(0, 2**256 - 1)}
    blind = shrink(program, puzzle, domains)  # without recorded comparisons the scan cannot tell a line from luck
    assert blind.passes["scan"].runs == 0
    outcome = shrink(program, puzzle, domains, width, operands=lambda candidate, index: Met())
    assert [s.arguments["nonce"] for s in outcome.found.steps] == least


def test_a_number_the_contract_compared_with_itself_is_not_scanned():
    # a claim code the contract derived: it matches one value only, which the replay saw compared with itself
    code = 98_089_824_643_083_573_293
    program = [RecordedStep("claim", {"code": code})]
    domains = {("claim", "code"): IntDomain(0, 2**256 - 1)}

    def attempt(candidate):
        return failing(candidate) if candidate and candidate[0].arguments["code"] == code else None

    outcome = shrink(program, attempt, domains, operands=lambda candidate, index: Met(matched=[code]))
    assert outcome.found is None and outcome.passes["scan"].runs == 0
    scanned = shrink(program, attempt, domains, operands=lambda candidate, index: Met())
    assert scanned.passes["scan"].runs > SCAN_UP_TO - SMALL_TRIED  # the same program, had nothing been recorded


def test_a_number_at_its_strategys_bound_is_not_scanned():
    # an id's total supply overflowed by a second mint: the least amount given a first mint of 1 is the bound itself,
    # whose next number up the strategy cannot draw; it is at the line the bound draws, not a lucky value
    top = 2**256 - 1
    program = [RecordedStep("mint", {"amount": 1}), RecordedStep("mint", {"amount": top})]
    domains = {("mint", "amount"): IntDomain(0, top)}

    def attempt(candidate):
        return failing(candidate) if sum(s.arguments["amount"] for s in candidate) > top else None

    outcome = shrink(program, attempt, domains, operands=lambda candidate, index: Met())
    assert outcome.found is None  # minimal as it came
    assert outcome.passes["scan"].runs == 0 and outcome.replays < 40, outcome.replays


def test_lists_of_one_length_lose_an_item_together():
    # a batch transfer whose ids and amounts must be as long as each other: neither list can lose an item alone
    lists = ArrayDomain(IntDomain(0, 255), 0, 3)
    domains = {("batch", "ids"): lists, ("batch", "amounts"): lists}

    def attempt(candidate):
        if len(candidate) != 1:
            return None
        ids, amounts = candidate[0].arguments["ids"], candidate[0].arguments["amounts"]
        return failing(candidate) if len(ids) == len(amounts) and any(amounts[1:]) else None

    program = [RecordedStep("batch", {"ids": [0, 0, 0], "amounts": [0, 0, 1]})]
    outcome = shrink(program, attempt, domains)
    assert outcome.found.steps[0].arguments == {"ids": [0, 0], "amounts": [0, 1]}


def test_bytes_and_texts_lose_bytes_anywhere():
    # a base64 table that maps "+" and "/" wrong: a byte string fails where its encoding has one; the 6-bit group that
    # makes it may stand anywhere, so the shortest prefix alone leaves the 14 bytes as they were
    def bad(v, repair=False):
        return any(c in base64.b64encode(bytes.fromhex(v["bytes"])) for c in b"+/")

    data = {"bytes": "953d1c683f7217df7df7df7df7e0"}
    least = BytesDomain(0, 64).minimize(data, bad)
    assert bad(least) and len(least["bytes"]) <= 4, least  # two bytes at most (0xf8 alone is the shortest)
    assert BytesDomain(32, 32).minimize({"bytes": "00" * 31 + "07"}, lambda v, repair=False: v["bytes"] != "00" * 32) == {"bytes": "00" * 31 + "01"}
    assert TextDomain(0).minimize("abxcd", lambda v: "x" in v) == "x"


def test_a_large_number_gives_its_amount_to_one_of_its_kind_in_another_step():
    # a withdrawal of the whole balance rounds the wrong way where its product with the supply passes 2**256: found with
    # a small deposit and a large donation, neither of which can move alone (the withdrawal must stay under their sum)
    def attempt(candidate):
        if [s.rule for s in candidate] != ["deposit", "donate", "withdraw"]:
            return None
        d, b, w = (s.arguments["assets"] for s in candidate)
        return failing(candidate) if 0 < w <= d + b and w * (d + 1) >= 2**256 and w * (d + 1) % (d + b + 1) else None

    amounts = IntDomain(0, 2**200)
    domains = {(rule, "assets"): amounts for rule in ("deposit", "donate", "withdraw")}
    d, b = 119830375281074650187864652509, 966299979998508446248209555845518865109115114739
    program = [RecordedStep("deposit", {"assets": d}), RecordedStep("donate", {"assets": b}), RecordedStep("withdraw", {"assets": d + b})]
    assert attempt(program)
    outcome = shrink(program, attempt, domains)
    d, b, w = (s.arguments["assets"] for s in outcome.found.steps)
    # the donation gave its amount to the deposit, then deposit and withdrawal went down together to about 2**128
    assert b == 1 and d.bit_length() + w.bit_length() <= 258, (d, b, w)


def test_a_step_goes_while_another_calls_an_earlier_rule():
    # a donation and a mint of one share, where one deposit does the same
    def attempt(candidate):
        return failing(candidate) if [s.rule for s in candidate] in (["deposit", "redeem"], ["donate", "mint", "redeem"]) else None

    program = [RecordedStep("donate", {"amount": 7}), RecordedStep("mint", {"amount": 1}), RecordedStep("redeem", {"amount": 1})]
    outcome = Shrinker(program, attempt, earlier={"mint": [("deposit", frozenset({"amount"}))]}).run()
    assert [s.rule for s in outcome.found.steps] == ["deposit", "redeem"]


def test_a_transfer_goes_while_the_step_that_funded_its_sender_funds_its_receiver():
    # a bank that the actor drains through a re-entered transfer: handed a deposit by accounts[0], it fails as it does
    # when it deposits itself; no single step can go, and renaming accounts[0] to the actor everywhere passes
    actor = {"actor": "reenters-other"}

    def attempt(candidate):
        steps = [(s.rule, s.arguments.get("holder"), s.arguments.get("to")) for s in candidate]
        handed = [("deposit", {"account": 0}, None), ("transfer", {"account": 0}, actor), ("transfer", {"account": 0}, {"account": 0}), ("withdraw", actor, None)]
        itself = [("deposit", actor, None), ("transfer", {"account": 0}, {"account": 0}), ("withdraw", actor, None)]
        return failing(candidate) if steps in (handed, itself) else None

    program = [
        RecordedStep("deposit", {"holder": {"account": 0}, "amount": 1}),
        RecordedStep("transfer", {"holder": {"account": 0}, "to": actor, "amount": 1}),
        RecordedStep("transfer", {"holder": {"account": 0}, "to": {"account": 0}, "amount": 1}),
        RecordedStep("withdraw", {"holder": actor}),
    ]
    outcome = Shrinker(program, attempt).run()
    assert [(s.rule, s.arguments["holder"]) for s in outcome.found.steps] == [("deposit", actor), ("transfer", {"account": 0}), ("withdraw", actor)]
    assert outcome.passes["reroute"].kept == 1


def test_a_renamed_account_takes_its_own_balance_in_the_same_step():
    # a ledger that refuses a withdrawal of a holder's whole balance: accounts[2] withdrawing its 8 fails; accounts[0]
    # fails only with its own balance, 1234, which the replay compared the amount with (larger: a rename may raise it)
    balances = {0: 1234, 1: 42, 2: 8}

    def attempt(candidate):
        if len(candidate) != 1:
            return None
        (s,) = candidate
        return failing(candidate) if s.arguments["amount"] == balances[s.arguments["owner"]["account"]] else None

    def operands(candidate, index):
        (s,) = candidate
        return Met(sides=[(s.arguments["amount"], balances[s.arguments["owner"]["account"]])])

    domains = {("withdraw", "owner"): AddressDomain(3), ("withdraw", "amount"): IntDomain(0, 2**256 - 1)}
    program = [RecordedStep("withdraw", {"owner": {"account": 2}, "amount": 8})]
    outcome = shrink(program, attempt, domains, operands=operands)
    assert outcome.found.steps == [RecordedStep("withdraw", {"owner": {"account": 0}, "amount": 1234})]
    # a number lowered in a step never raises another of that step: two amounts compared with each other would take turns
    pair = {("add", "a"): IntDomain(0, 2**256 - 1), ("add", "b"): IntDomain(0, 2**256 - 1)}

    def both(candidate):
        if len(candidate) != 1:
            return None
        (s,) = candidate
        return failing(candidate) if s.arguments["a"] >= 10 and s.arguments["b"] >= 10 else None

    def compared(candidate, index):
        (s,) = candidate
        return Met(sides=[(s.arguments["a"], s.arguments["b"]), (s.arguments["b"], s.arguments["a"])])

    outcome = shrink([RecordedStep("add", {"a": 500, "b": 70})], both, pair, operands=compared)
    assert outcome.found.steps == [RecordedStep("add", {"a": 10, "b": 10})]
    assert outcome.stopped is None and outcome.work < 2000


def test_an_address_the_dictionary_gave_shrinks_to_the_first_account_that_still_fails():
    # recorded as its text (an address the contracts produced, drawn from the dictionary): each account is tried
    # in its place, first to last, as for a recorded account
    given = "0x00000000FfFfFffffFFffFfFfFfFFFFfFFffFFFD"
    tried = []

    def fails(candidate, repair=False):
        tried.append(candidate)
        return candidate == {"account": 2}

    assert AddressDomain(None).minimize(given, fails) == {"account": 2}
    assert tried == [{"account": 0}, {"account": 1}, {"account": 2}]
    # where no account fails the same way, the address stays
    assert AddressDomain(None).minimize(given, lambda candidate, repair=False: False) == given


def pool(candidate):
    """Pair.vy's planted bug: a second deposit out of the pool's ratio is minted the larger of its two shares; the first
    deposit must mint more than the 1000 shares the pool keeps (isqrt(a0 * a1) > 1000)."""
    if [s.rule for s in candidate] != ["add", "add"]:
        return None
    (a0, a1), (b0, b1) = ((s.arguments["amount0"], s.arguments["amount1"]) for s in candidate)
    supply = math.isqrt(a0 * a1)
    if supply <= 1000:
        return None
    shares = (b0 * supply // a0, b1 * supply // a1)
    return failing(candidate) if 0 < min(shares) < max(shares) else None


POOL = {("add", "amount0"): IntDomain(0, 10**24), ("add", "amount1"): IntDomain(0, 10**24)}


@pytest.mark.parametrize("width", [1, 3])
def test_large_numbers_on_a_hyperbola_are_scaled_down_together(width):
    program = [RecordedStep("add", {"amount0": 778_085_808, "amount1": 13_276_441}), RecordedStep("add", {"amount0": 8, "amount1": 418_197})]
    # the program's large numbers, then the first step's own
    assert scale_groups(program, POOL) == [[(0, "amount0"), (0, "amount1"), (1, "amount1")], [(0, "amount0"), (0, "amount1")]]
    outcome = shrink(program, pool, POOL, width)
    (a0, a1), (b0, b1) = ((s.arguments["amount0"], s.arguments["amount1"]) for s in outcome.found.steps)
    # on the hyperbola: neither number of the first deposit can be lower given the other, nor can the second's
    values = [a0, a1, b0, b1]
    assert pool(outcome.found.steps) and all(
        pool([RecordedStep("add", dict(zip(("amount0", "amount1"), v[:2]))), RecordedStep("add", dict(zip(("amount0", "amount1"), v[2:])))]) is None
        for k in range(4) if values[k] > 0 for v in [values[:k] + [values[k] - 1] + values[k + 1 :]]
    ), values
    assert math.isqrt(a0 * a1) <= 1100, values  # scaled to the floor, not left where one-at-a-time moves stop
    # and balanced there (moves.balance): the first deposit's two numbers equal, its fewest bits on the hyperbola
    assert (a0, a1) == (1001, 1001), values
    # the one-at-a-time walk from where it was found costs several rounds of bisections; scaled, a few replays; each
    # number then bisected from where the scale left it, and in the next round from its least (103 replays when both
    # bisected from the bound: 47); balanced inside the values pass, step by step from the last, 64 replays (72 with
    # helpers) for (1001, 1001), (2, 1), 3 bits fewer, where (7649, 131), (8, 1) took 47 (59); balanced in a pass of
    # its own before any number is lowered alone, the second deposit is lowered once, against (1001, 1001): 43 (49)
    numbers = sum(outcome.passes[name].runs for name in ("scale", "balance", "values"))
    assert outcome.passes["balance"].kept >= 1 and numbers < 55, {k: v.runs for k, v in outcome.passes.items()}


def test_two_numbers_of_a_step_on_a_hyperbola_are_balanced_to_its_fewest_bits():
    # one deposit whose product must pass a floor, found at (1, 1002001): each number is the least given the other, so
    # the values pass alone stops there; set both to their mean (product held), then lowered together: (1001, 1001)
    tried = []

    def attempt(candidate):
        if len(candidate) != 1:
            return None
        tried.append(tuple(candidate[0].arguments.values()))
        a0, a1 = candidate[0].arguments["amount0"], candidate[0].arguments["amount1"]
        return failing(candidate) if math.isqrt(a0 * a1) > 1000 else None

    program = [RecordedStep("add", {"amount0": 1, "amount1": 1_002_001})]
    outcome = shrink(program, attempt, POOL, hints=(1000,))
    assert [tuple(s.arguments.values()) for s in outcome.found.steps] == [(1001, 1001)]
    # the mean first (it fails: 1001 * 1001 is the product), then the pair at the contract's 1000 does not
    assert tried[:4] == [(1001, 1001), (0, 0), (1, 1), (1000, 1000)], tried
    # numbers not coupled so (the failure needs the larger alone) cost one replay: their mean does not fail
    tried.clear()
    alone = shrink(program, lambda c: failing(c) if c and c[0].arguments["amount1"] >= 1_000_000 else None, POOL)
    assert [tuple(s.arguments.values()) for s in alone.found.steps] == [(0, 1_000_000)]


def test_numbers_that_cannot_move_together_cost_one_replay_to_scale():
    # a withdrawal of 1000 more than the deposit: halved together they differ by less
    program = [RecordedStep("deposit", {"amount": 5_000_000_000}), RecordedStep("withdraw", {"amount": 5_000_001_000})]
    domains = {("deposit", "amount"): IntDomain(0, 2**256 - 1), ("withdraw", "amount"): IntDomain(0, 2**256 - 1)}
    tried = []

    def attempt(candidate):
        tried.append([s.arguments["amount"] for s in candidate])
        a, b = (s.arguments["amount"] for s in candidate)
        return failing(candidate) if b == a + 1000 else None

    shrinker = Shrinker(program, attempt, domains=domains)
    # each number at its target alone first (the later one first), as the values pass would try it; then halved together
    assert not scale(shrinker)
    assert tried == [[5_000_000_000, 0], [0, 5_000_001_000], [2_500_000_000, 2_500_000_500]]
    assert shrinker.best == program


def test_a_number_that_fails_at_its_target_alone_is_not_scaled():
    # an auction's reserve bid and a later bid of any amount: the later goes to 0 alone, the reserve is not scaled
    program = [RecordedStep("bid", {"amount": 24_999_999_999_999_999_999}), RecordedStep("bid", {"amount": 78_925_946})]
    domains = {("bid", "amount"): IntDomain(0, 2**256 - 1)}

    tried = []

    def attempt(candidate):
        tried.append([s.arguments["amount"] for s in candidate])
        return failing(candidate) if len(candidate) == 2 and candidate[0].arguments["amount"] >= 10**17 else None

    shrinker = Shrinker(program, attempt, domains=domains)
    assert scale(shrinker) and [s.arguments["amount"] for s in shrinker.best] == [24_999_999_999_999_999_999, 0]
    # the later bid at 0, the reserve at 0; then one large number is left: nothing is scaled
    assert tried == [[24_999_999_999_999_999_999, 0], [0, 0]]


def test_a_repair_that_did_not_fail_is_not_tried_again_while_the_same_number_moves():
    # every move of the first number meets the same comparison of the second with 3003 (a constant of the pool's path
    # the move opened, not set by the number): a repair to it is replayed once, not once for each value tried
    program = [RecordedStep("add", {"amount0": 5000, "amount1": 5000}), RecordedStep("add", {"amount0": 1, "amount1": 7})]

    def attempt(candidate):
        if [s.rule for s in candidate] != ["add", "add"]:
            return None
        first, second = candidate[0].arguments, candidate[1].arguments
        return failing(candidate) if first["amount0"] >= 4000 and second == {"amount0": 1, "amount1": 7} else None

    def operands(candidate, index):
        return Met(sides=[(7, 3003)] if candidate[0].arguments["amount0"] < 4000 else [])

    repairs = []
    original = Shrinker.attempt

    def counting(self, candidate):
        if len(candidate) == 2 and candidate[1].arguments["amount1"] in (3002, 3003, 3004):
            repairs.append(candidate[1].arguments["amount1"])
        return original(self, candidate)

    domains = {("add", "amount0"): IntDomain(0, 10**24), ("add", "amount1"): IntDomain(0, 10**24)}
    Shrinker.attempt = counting
    try:
        outcome = shrink(program, attempt, domains, operands=operands)
    finally:
        Shrinker.attempt = original
    assert outcome.found.steps[0].arguments["amount0"] == 4000
    # once each while the number moves, though it tried 0 and 1 (and a repair each); and not again when the next round
    # lowers it to 0 again (the second number's moves meet no comparison)
    assert sorted(repairs) == [3002, 3003, 3004], repairs


def test_a_small_number_at_the_line_an_earlier_one_drew_moves_down_with_it():
    # a lending pool whose borrow checks only the amount against half the deposit (not the debt plus the amount): deposit
    # 30, borrow 15 (exactly half: the pool compared 15 with 15), borrow 1. A smaller deposit alone makes the first borrow
    # too large, a smaller borrow alone leaves the second within the limit: only the two along their ratio move, and the
    # contract's own small numbers (1 to 33 here, as in any contract's code) are no line for the deposit
    from evmstate.domains import IntDomain
    from evmstate.engine.shrink.passes import Met, Minimized, Shrinker

    def attempt(candidate):
        deposit = borrowed = 0
        for s in candidate:
            n = s.arguments["n"]
            if s.rule == "deposit":
                deposit += n
            elif 0 < n <= deposit // 2:
                borrowed += n
                if borrowed > deposit // 2:
                    return Minimized(candidate, [], AssertionError())
        return None

    def operands(candidate, index):
        deposit = sum(s.arguments["n"] for s in candidate[:index] if s.rule == "deposit")
        step = candidate[index]
        sides = [(step.arguments["n"], 10**24)] if step.rule == "deposit" else [(step.arguments["n"], deposit // 2)]
        return Met(operands=[o for _, o in sides], sides=sides)

    program = [RecordedStep("deposit", {"n": 30}), RecordedStep("borrow", {"n": 15}), RecordedStep("borrow", {"n": 1})]
    domains = {("deposit", "n"): IntDomain(0, 2**256 - 1), ("borrow", "n"): IntDomain(0, 2**256 - 1)}
    outcome = Shrinker(program, attempt, domains=domains, operands=operands, hints=tuple(range(34))).run()
    assert [s.arguments["n"] for s in outcome.found.steps] == [2, 1, 1]
    assert outcome.passes["together"].kept >= 1


def test_a_number_at_a_line_past_the_scans_reach_moves_down_with_an_earlier_one_a_step_from_its_bound():
    # a pool that lets a borrow reach exactly its limit (1500 units a wei of collateral): collateral 2, borrow 3000. The
    # collateral is one above its least (1) and the borrow past the scan's reach: neither moves alone
    from evmstate.domains import IntDomain
    from evmstate.engine.shrink.passes import Met, Minimized, Shrinker

    def attempt(candidate):
        if [s.rule for s in candidate] != ["deposit", "borrow"]:
            return None
        collateral, amount = (s.arguments["n"] for s in candidate)
        return Minimized(candidate, [], AssertionError()) if amount == collateral * 1500 else None

    def operands(candidate, index):
        step = candidate[index]
        if step.rule == "deposit":
            sides = [(step.arguments["n"], 10**19)]
        else:
            sides = [(step.arguments["n"], sum(s.arguments["n"] for s in candidate[:index] if s.rule == "deposit") * 1500)]
        return Met(operands=[o for _, o in sides], sides=sides)

    program = [RecordedStep("deposit", {"n": 2}), RecordedStep("borrow", {"n": 3000})]
    domains = {("deposit", "n"): IntDomain(1, 10**19), ("borrow", "n"): IntDomain(0, 2**256 - 1)}
    outcome = Shrinker(program, attempt, domains=domains, operands=operands).run()
    assert [s.arguments["n"] for s in outcome.found.steps] == [1, 1500]
    assert outcome.passes["together"].kept == 1


def test_small_equal_numbers_go_down_while_a_large_one_grows():
    # a vault whose redeem burns assets instead of shares reverts once a share is worth more than an asset: after a
    # donation d, a mint of m shares and their redeem burn more than m where d * m >= 10**9 * (m + 1). Where it was
    # found, 151 shares: neither share count can go lower alone, nor both (the donation is then too small), nor all
    # three scaled together; the shares at 1 with the donation doubled fail, and the donation then goes down to 2 * 10**9
    def attempt(candidate):
        if [s.rule for s in candidate] != ["donate", "mint", "redeem"]:
            return None
        d, m, r = (s.arguments["n"] for s in candidate)
        return failing(candidate) if m == r and m > 0 and d * m >= 10**9 * (m + 1) else None

    def operands(candidate, index):
        # the redeem's burn compares the shares it burns with those the owner holds: the redeem's own number, at a line
        step = candidate[index]
        return Met(sides=[(step.arguments["n"], step.arguments["n"] + 1)] if step.rule == "redeem" else [])

    amounts = IntDomain(0, 2**256 - 1)
    domains = {(rule, "n"): amounts for rule in ("donate", "mint", "redeem")}
    program = [RecordedStep("donate", {"n": 1_006_622_517}), RecordedStep("mint", {"n": 151}), RecordedStep("redeem", {"n": 151})]
    outcome = shrink(program, attempt, domains, operands=operands)
    assert [s.arguments["n"] for s in outcome.found.steps] == [2 * 10**9, 1, 1]
    # one replay for the trade; the pass's shift then tries the donation given to a share count, which does not fail
    assert outcome.passes["trade"].kept == 1 and outcome.passes["trade"].runs <= 3, outcome.passes["trade"]
