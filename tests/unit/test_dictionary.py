"""The dictionary: what it holds, and how strategy() draws mix it in."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from evmstate import strategy
from evmstate.search.dictionary import Dictionary, source_literals, using

RARE = 84843314297726


def known(weight: float, literals=(RARE,)) -> Dictionary:
    """A dictionary of the given literals, frozen as the machine's __init__ would leave it."""
    d = Dictionary(weight)
    for v in literals:
        d.literals.append(v)
    d.literals.sort()
    d.freeze()
    return d


def test_source_literals_read_every_base_and_separator():
    text = "X: constant(uint256) = 84_843_314_297_726\nY: constant(bytes4) = 0xdeadbeef\n# 0b101 in a comment\nz: uint8 = 0o17\nv = a.b1"
    assert {RARE, 0xDEADBEEF, 0b101, 0o17} <= source_literals(text)
    assert 1 not in source_literals("v = a.b1")  # part of a name, not a literal


def drawn_with(dictionary: Dictionary | None, strat, n: int = 40) -> list:
    out: list = []

    @settings(max_examples=n, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        with using(dictionary):
            out.append(data.draw(strat))

    collect()
    return out


def test_weight_zero_makes_the_same_choices_as_a_plain_draw():
    for abi_type in ("uint256", "int8", "bytes4"):
        plain = drawn_with(None, strategy(abi_type))
        assert drawn_with(known(0.0), strategy(abi_type)) == plain, abi_type
        assert drawn_with(known(0.5, literals=(RARE, 7, -7, 0xDEADBEEF << 224)), strategy(abi_type)) != plain, abi_type  # the dictionary changes them when on


def test_a_dictionary_value_is_found_where_plain_draws_never_are():
    with using(known(0.25)):
        assert find(strategy("uint256"), lambda v: v == RARE, settings=settings(max_examples=200, database=None, derandomize=True)) == RARE


def test_draws_shrink_toward_plain_draws_then_the_smallest_dictionary_value():
    # nearly every draw takes the dictionary's value, yet the shrunk example is the plain minimum
    # where a plain draw fails too
    d = known(0.99, literals=(RARE, RARE + 1))
    assert set(drawn_with(d, strategy("uint256", min_value=1001), n=20)) & {RARE, RARE + 1}
    with using(d):
        assert find(strategy("uint256", min_value=1001), lambda v: True, settings=settings(database=None, derandomize=True)) == 1001
    # where only a dictionary value fails, toward the smallest one that does
    with using(known(0.5, literals=(5, RARE, RARE + 1))):
        assert find(strategy("uint256"), lambda v: v in (RARE, RARE + 1), settings=settings(database=None, derandomize=True, max_examples=500)) == RARE


def test_bounds_hold_for_dictionary_values():
    values = drawn_with(known(1.0, literals=(-5, 3, 7, 1000, RARE)), strategy("uint256", min_value=4, max_value=999), n=60)
    assert values and all(4 <= v <= 999 for v in values) and 7 in values


def test_observed_values_and_produced_addresses_last_one_run():
    from evmstate.evm.base import ExecResult

    d = known(1.0)
    produced = 0xD13311AED2C5BF3621611C3C77C14B7DCF13B64F
    result = ExecResult(success=True, output=b"", gas_used=0, storage_writes=((b"\x01" * 20, 0, produced), (b"\x01" * 20, 1, 77)))
    d.observe(result)
    assert d.ints_between(0, 100) == ([], [], [77])
    assert d.produced_addresses() == ([], [], [produced.to_bytes(20, "big")])
    d.reset()  # the next run starts from what __init__ left
    assert d.ints_between(0, 100) == ([], [], []) and d.produced_addresses() == ([], [], [])


def three_pools(weight: float, literals: int = 5) -> tuple[Dictionary, list[list[int]]]:
    """A frozen dictionary with five literals, three other fixed values and five values observed in the run."""
    from evmstate.evm.base import ExecResult

    pools = [[RARE + i for i in range(literals)], [7**30 + i for i in range(3)], [11**20 + i for i in range(5)]]
    d = Dictionary(weight)
    d.literals.extend(pools[0])
    d.fixed.extend(pools[1])
    d.freeze()
    d.observe(ExecResult(success=True, output=b"", gas_used=0, storage_writes=tuple((b"\x01" * 20, i, v) for i, v in enumerate(pools[2]))))
    assert d.ints_between(0, 2**256 - 1) == (pools[0], pools[1], pools[2][::-1])
    return d, pools


def test_draws_take_the_dictionary_at_its_weight_and_reach_every_pool_and_value():
    n, weight = 2000, 0.25
    d, pools = three_pools(weight)
    counts = Counter(drawn_with(d, strategy("uint256"), n=n))
    taken = [sum(counts[v] for v in pool) for pool in pools]
    assert abs(sum(taken) / n - weight) < 0.04, taken
    # each pool its band of the dictionary's share: 2/5 literals, 1/5 other fixed values, 2/5 observed
    for got, band in zip(taken, (0.4, 0.2, 0.4)):
        assert abs(got / sum(taken) - band) < 0.1, taken
    # and every value of a pool, each at least a third of an even split of the pool's draws
    for pool, band in zip(pools, (0.4, 0.2, 0.4)):
        even = n * weight * band / len(pool)
        assert all(counts[v] > even / 3 for v in pool), [counts[v] for v in pool]


def test_a_pool_with_nothing_to_give_leaves_its_band_to_the_others():
    d, pools = three_pools(0.25, literals=0)
    counts = Counter(drawn_with(d, strategy("uint256"), n=1000))
    fixed, observed = (sum(counts[v] for v in pool) for pool in pools[1:])
    assert abs((fixed + observed) / 1000 - 0.25) < 0.05 and 0.2 < fixed / (fixed + observed) < 0.5, (fixed, observed)


def test_a_step_draw_makes_the_same_choices_as_the_strategy():
    # machines draw arguments through evmstate_draw, inside the step's own draw
    d, _ = three_pools(0.5)
    for abi_type in ("uint256", "int128", "bytes32"):
        strat = strategy(abi_type)
        direct = st.composite(lambda draw: strat.evmstate_draw(draw))()
        assert drawn_with(d, direct, n=200) == drawn_with(d, strat, n=200), abi_type


def test_the_dictionary_keeps_hypothesis_preference_for_small_and_repeated_values():
    # a machine run draws many values in one example: as many small values (<= 256) and values
    # repeated within the run as Hypothesis's own integers give, or more
    def runs(dictionary, n=40, k=50):
        out = []
        strat = strategy("uint256")

        @settings(max_examples=n, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
        @given(st.data())
        def collect(data):
            with using(dictionary):
                out.append([data.draw(strat) for _ in range(k)])

        collect()
        values = [v for run in out for v in run]
        small = sum(v <= 256 for v in values) / len(values)
        repeated = sum(sum(c for c in Counter(run).values() if c > 1) for run in out) / len(values)
        return small, repeated

    plain_small, plain_repeated = runs(None)
    small, repeated = runs(three_pools(0.25)[0])
    assert plain_small > 0.05 and plain_repeated > 0.05, (plain_small, plain_repeated)
    assert small >= 0.75 * plain_small and repeated >= plain_repeated, (small, plain_small, repeated, plain_repeated)


def test_relations_off_leave_the_draws_as_they_were():
    # the relations band exists only when switched on: off, strategy()'s integers (which give mixed() their bounds)
    # draw what a mixed() without bounds draws, as before relations were built; on, they draw otherwise
    from evmstate.search.dictionary import mixed

    d, _ = three_pools(0.5)
    top = 2**256 - 1
    unbounded = mixed(st.integers(min_value=0, max_value=top), lambda known: known.ints_between(0, top))
    before = drawn_with(d, unbounded, n=200)
    assert drawn_with(d, strategy("uint256"), n=200) == before
    d.relations = True
    assert drawn_with(d, strategy("uint256"), n=200) != before
    assert drawn_with(d, unbounded, n=200) == before  # without bounds (addresses, bytes) never


def test_relations_draw_halves_midpoints_sums_and_differences_of_observed_values():
    d, pools = three_pools(0.5)
    d.relations = True
    observed = pools[2]
    derived = {v // 2 for v in observed} | {(a + b) // 2 for a in observed for b in observed} | {a + b for a in observed for b in observed} | {abs(a - b) for a in observed for b in observed}
    drawn = drawn_with(d, strategy("uint256"), n=1000)
    derived = {v for v in derived if v > 2**32} - set(observed)  # the differences of close values are small: plain draws give them
    related = [v for v in drawn if v in derived]
    # a band of one share in six of the dictionary's half of the draws: about 1000 * 0.5 / 6, less the values that are
    # observed ones themselves (the midpoint of a value with itself)
    assert 40 < len(related) < 130, len(related)
    for name, values in (("half", {v // 2 for v in observed}), ("sum", {a + b for a in observed for b in observed})):
        assert set(related) & values, name
    # off, none of them is drawn (the plain draws never meet these wide values)
    d.relations = False
    assert not set(drawn_with(d, strategy("uint256"), n=1000)) & derived


def test_a_related_value_outside_the_bounds_is_a_plain_draw():
    d, pools = three_pools(1.0)
    d.relations = True
    top = max(pools[2])
    values = drawn_with(d, strategy("uint256", max_value=top), n=1000)
    assert values and all(0 <= v <= top for v in values)
    assert set(values) & {v // 2 for v in pools[2]}  # halves fit; sums of two of them do not, and are not drawn


def test_relations_shrink_toward_a_plain_draw():
    d, pools = three_pools(0.5)
    d.relations = True
    half = pools[2][0] // 2
    with using(d):
        # only the half of an observed value fails: found, and shrunk to it (no plain draw or other pool gives it)
        assert find(strategy("uint256"), lambda v: v == half, settings=settings(database=None, derandomize=True, max_examples=3000)) == half


def stored(d: Dictionary, *writes: tuple[int, int], success: bool = True, reads: tuple[tuple[int, int], ...] = ()) -> None:
    """A call that wrote (slot, value) pairs (and read others) of one contract, observed."""
    from evmstate.evm.base import ExecResult

    at = b"\x02" * 20
    d.observe(ExecResult(success=success, output=b"", gas_used=0, storage_writes=tuple((at, s, v) for s, v in writes), storage_reads=tuple((at, s, v) for s, v in reads)))


def test_the_live_values_are_what_each_slot_holds_now_the_latest_changed_first():
    d = known(0.25)
    d.live_on = True
    stored(d, (0, 5 * 10**12), (1, 7 * 10**9))
    stored(d, (0, 3 * 10**12))  # slot 0 changed: its old value is no longer live, though the run observed it
    stored(d, (2, 9), (3, 0), reads=((4, 10**15),))  # a slot holding 0 offers nothing; one only read is not noted
    stored(d, (1, 7 * 10**9))  # the same value written again moves nothing
    stored(d, (1, 1), success=False)  # a reverted call changed nothing
    assert d.live_between(0, 2**256 - 1) == [9, 3 * 10**12, 7 * 10**9]
    assert d.live_between(10, 10**13) == [3 * 10**12, 7 * 10**9]
    assert 5 * 10**12 in d.observed  # the observed band still has it
    d.reset()  # a new run starts with nothing written
    assert d.live_between(0, 2**256 - 1) == []


def test_live_off_leaves_the_draws_as_they_were():
    d, _ = three_pools(0.5)
    stored(d, (7, 10**30))
    before = drawn_with(d, strategy("uint256"), n=200)
    assert d.live == {}  # off, nothing is noted
    d.live_on = True
    stored(d, (7, 10**30))
    assert drawn_with(d, strategy("uint256"), n=200) != before


def band_draws(d: Dictionary, forms: dict[str, set[int]]) -> tuple[Counter, set[int]]:
    """1200 uint256 draws with d, each form met at least once (its name when not), and every form's values together."""
    drawn = Counter(drawn_with(d, strategy("uint256"), n=1200))
    for name, values in forms.items():
        assert sum(drawn[v] for v in values), name
    return drawn, set().union(*forms.values())


def test_live_draws_take_each_form_near_what_the_slots_hold():
    d, _ = three_pools(0.5)
    d.live_on = True
    idle, debt = 8_300_000_000_123, 98_765_432_101
    stored(d, (20, idle), (21, debt))
    forms = {
        "value": {idle, debt},
        "below": {v - k for v in (idle, debt) for k in range(1, 17)},
        "above": {v + k for v in (idle, debt) for k in range(1, 17)},
        "half": {idle // 2, debt // 2},
        "sum": {a + b for a in (idle, debt) for b in (idle, debt)},
        "sum above": {a + b + k for a in (idle, debt) for b in (idle, debt) for k in range(1, 17)},
    }
    drawn, near = band_draws(d, forms)
    # two shares in seven of the dictionary's half of the draws (bands 2, 1, 2 and 2): about 1200 * 0.5 * 2 / 7, more
    # where Hypothesis's gates favour the top of their range
    assert 100 < sum(drawn[v] for v in near) < 360, sum(drawn[v] for v in near)
    # off, the plain draws and the other bands meet none of them but the values themselves (the observed band has them)
    d.live_on = False
    assert not set(drawn_with(d, strategy("uint256"), n=1200)) & (near - forms["value"])


def test_a_live_value_outside_the_bounds_is_a_plain_draw_and_shrinks_toward_one():
    d = known(0.5)
    d.live_on = True
    stored(d, (0, 1000))
    values = drawn_with(d, strategy("uint256", max_value=1008), n=1000)
    assert all(0 <= v <= 1008 for v in values) and {999, 1000, 1001, 500} <= set(values)
    with using(d):
        # only one below the slot's value fails: found, and shrunk to it
        assert find(strategy("uint256"), lambda v: v == 999, settings=settings(database=None, derandomize=True, max_examples=3000)) == 999


HOLDER, OTHER, TOKEN = b"\x0a" * 20, b"\x0b" * 20, b"\x02" * 20


def entry(base: int, account: bytes) -> int:
    """The slot of account's entry in the mapping at slot base (Vyper's keccak(slot, key))."""
    from eth_utils import keccak

    return int.from_bytes(keccak(base.to_bytes(32, "big") + bytes(12) + account), "big")


def holding(weight: float = 0.5) -> Dictionary:
    """A dictionary that knows where HOLDER's and OTHER's entries of the mappings at slots 3 and 4 are."""
    d, _ = three_pools(weight)
    d.hold_mappings([3, 4], [HOLDER, OTHER])
    return d


def test_what_an_account_holds_is_what_the_run_last_wrote_to_its_entries():
    d = holding()
    stored(d, (entry(3, HOLDER), 5 * 10**18), (entry(4, HOLDER), 0), (entry(3, OTHER), 10**9), (9, 10**21))
    stored(d, (entry(3, HOLDER), 3 * 10**18))  # changed: its old value is no longer held
    stored(d, (entry(4, HOLDER), 7), success=False)  # a reverted call changed nothing
    d.holders = [HOLDER]
    assert d.held_between(0, 2**256 - 1) == [3 * 10**18]  # 0 offers nothing; slot 9 is no entry of HOLDER's
    d.holders = [OTHER, HOLDER]
    assert d.held_between(0, 2**256 - 1) == [10**9, 3 * 10**18]  # the first address's first
    assert d.held_between(0, 10**18) == [10**9]
    d.reset()  # a new run starts from what __init__ left: nothing here
    d.holders = [HOLDER]
    assert d.held_between(0, 2**256 - 1) == []


def test_a_deployed_contract_holds_too_and_is_offered_when_the_step_drew_no_address():
    from evmstate.evm.base import ExecResult

    d = Dictionary(0.5)
    d.hold_mappings([3], [HOLDER])
    strategy_contract = b"\x0c" * 20
    d.observe(ExecResult(success=True, output=b"", gas_used=0, contract_address=strategy_contract))
    d.observe(ExecResult(success=True, output=b"", gas_used=0, storage_writes=((TOKEN, entry(3, strategy_contract), 4 * 10**20), (TOKEN, entry(3, HOLDER), 10**18))))
    d.freeze()  # what __init__ left: every run starts from it
    stored(d, (entry(3, strategy_contract), 6 * 10**20))
    assert d.held_between(0, 2**256 - 1) == [6 * 10**20]  # no address drawn: what the contracts hold
    d.holders = [HOLDER]
    assert d.held_between(0, 2**256 - 1) == [10**18]
    d.reset()  # a new run: what __init__ wrote
    assert d.held_between(0, 2**256 - 1) == [4 * 10**20]
    d.holders = [HOLDER]
    assert d.held_between(0, 2**256 - 1) == [10**18]


def test_an_amount_drawn_after_an_address_takes_parts_of_what_it_holds():
    d = holding()
    shares = 1_000_000_000_000_000_000_003
    stored(d, (entry(3, HOLDER), shares))
    d.holders, d.drawing = [HOLDER], True
    forms = {
        "value": {shares},
        "part": {shares * k // 16 for k in range(1, 16)},
        "below": {shares - k for k in range(1, 17)},
        "dust": set(range(1, 17)),  # a share or a few: where a conversion rounds to nothing
    }
    drawn, near = band_draws(d, forms)
    # three shares in eight of the dictionary's half of the draws (bands 2, 1, 2 and 3): about 1200 * 0.5 * 3 / 8
    assert 120 < sum(drawn[v] for v in near) < 400, sum(drawn[v] for v in near)
    # dust in a quarter of those: 59 draws of 16 or less, where the other bands and plain draws make 24 without it
    assert sum(drawn[v] for v in forms["dust"]) > 40, sum(drawn[v] for v in forms["dust"])
    # outside a step's arguments (drawing off) the band is not there: the draws are those of a dictionary without it
    d.drawing = False
    without = drawn_with(d, strategy("uint256"), n=500)
    plain, _ = three_pools(0.5)
    stored(plain, (entry(3, HOLDER), shares))
    assert without == drawn_with(plain, strategy("uint256"), n=500)


def test_a_machine_step_draws_its_amount_from_what_its_address_holds():
    """engine/example.py: the addresses a rule drew before an integer are the holders its draw looks at, and only while
    the step's arguments are drawn."""
    from evmstate.engine.example import Example, raw_address

    class Account:
        raw_address = HOLDER

    class Param:
        def __init__(self, name, strategy):
            self.name, self.strategy, self.bundle = name, strategy, None

    owner, amount = Account(), 0

    class Rule:
        params = [Param("owner", "an address"), Param("amount", "an amount")]

    seen = []

    class Spy:
        def __init__(self, dictionary):
            self.dictionary = dictionary

    d = holding()
    example = Example.__new__(Example)
    example.run = type("Run", (), {"search": Spy(d)})()

    def draw(strategy):
        seen.append((list(d.holders), d.drawing))
        return owner if strategy == "an address" else amount

    kwargs, raw = example.arguments(draw, Rule)
    assert kwargs == raw == {"owner": owner, "amount": 0}
    assert seen == [([], True), ([HOLDER], True)]  # the amount is drawn knowing the owner
    assert (d.holders, d.drawing) == ([], False)
    assert raw_address("0x" + "0a" * 20) == HOLDER and raw_address(5) is None
