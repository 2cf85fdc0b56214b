"""Progress beyond new branches (hit-count buckets, new small stored values) and the pieces of
comparison operand logging that need no EVM: which comparisons feed a branch, what the dictionary takes."""

from __future__ import annotations

import pytest

from evmstate.evm.base import Feedback
from evmstate.evm.pyevm.opcodes import clock_source, compared, recorded, zero_tested
from evmstate.evm.pyevm.solving import ADD, DIV, MUL, SHR, SUB, derive, solve, solve_top
from evmstate import config as config_mod
from evmstate.search import feedback
from evmstate.search.dictionary import Dictionary
from eth_utils import keccak

from evmstate.search.feedback import (
    LARGE, SLOT_VALUES, SMALL, UNWRITTEN, VARIABLE_SLOTS, ZERO, Families, Progress, bucket, mapping_slots,
)

A = b"\x01" * 20


def test_hit_counts_fall_in_afls_buckets():
    assert [bucket(n) for n in (1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 10**6)] == [1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]


def test_a_branch_taken_more_often_than_in_any_run_before_is_progress():
    p = Progress()
    branch = 2 * 100 + 1  # the JUMPI at pc 100, taken
    p.run_started()
    assert p.counted("C", {branch: 1}, {100})
    assert p.counted("C", {branch: 1}, {100})  # twice in the run: bucket 2
    p.run_started()
    assert not p.counted("C", {branch: 2}, {100})  # another run, the same count: nothing new
    assert p.counted("C", {branch: 2}, {100})  # four in all: bucket 4-7
    assert not p.counted("C", {branch: 3}, {100})  # seven: still 4-7
    # only the branches of the sources count, and only with the signal on
    assert not p.counted("C", {2 * 7: 1}, {100})
    assert not Progress(on=("storage",)).counted("C", {branch: 1}, {100})
    assert p.new_buckets == 3


def test_a_small_value_a_slot_never_held_is_progress_until_the_slot_held_many():
    p = Progress({"storage"})
    assert p.stored([(A, 0, 1)])
    assert not p.stored([(A, 0, 1)])  # held before, in this run or another
    assert p.stored([(A, 0, 2), (A, 0, 1)])
    assert not p.stored([(A, 1, SMALL)])  # a balance, a price, a hash: not a stage or a counter
    assert p.stored([(A, 1, SMALL - 1)])
    for value in range(3, SLOT_VALUES + 1):
        assert p.stored([(A, 0, value)])
    assert len(p.slots[(A, 0)]) == SLOT_VALUES
    assert not p.stored([(A, 0, SLOT_VALUES + 1)])  # past SLOT_VALUES values: a balance after all
    assert not Progress(on=("counts",)).stored([(A, 0, 1)])


def test_an_entry_of_a_mapping_is_no_stage():
    """A HashMap entry (a balance per account) sits at a hash of its key and the map's slot, as a
    dynamic array's items at a hash of its slot: small values there are amounts, not stages."""
    p = Progress({"storage"})
    balance = int.from_bytes(keccak(bytes(12) + A + (2).to_bytes(32, "big")), "big")
    assert balance >= VARIABLE_SLOTS
    assert not p.stored([(A, balance, 5)])
    assert p.stored([(A, 2, 5)])  # a declared variable
    assert p.new_values == 1


def _entry(mapping: int, key: bytes, field: int = 0) -> int:
    """The slot of a Vyper HashMap's entry (or a field of its struct): keccak(the mapping's slot, the key)."""
    return int.from_bytes(keccak(mapping.to_bytes(32, "big") + bytes(12) + key), "big") + field


def test_a_state_is_a_slot_family_whose_value_changed_class_for_the_first_time():
    """Zero, small and large values are classes; a slot's first write in a run comes from UNWRITTEN. A mapping's entries
    are one family (the mapping's slot, found from the accounts' addresses): one account's balance emptied is a new state,
    another's after it is not."""
    B, C = b"\x02" * 20, b"\x03" * 20
    p = Progress({"states"})
    p.key(B)
    p.key(C)
    p.run_started()
    assert p.stored([(A, 5, 10**18)])  # a total: (unwritten, large)
    assert not p.stored([(A, 5, 2 * 10**18)])  # an amount that changed, not its class
    assert p.stored([(A, 5, 0)])  # emptied: (large, zero)
    assert p.stored([(A, _entry(3, B), 10**18)])
    assert p.stored([(A, _entry(3, B), 0)])  # a balance emptied
    assert not p.stored([(A, _entry(3, C), 10**18), (A, _entry(3, C), 0)])  # another account's: the same states
    assert p.stored([(A, _entry(4, B, field=2), 10**18)])  # a field of another mapping's struct: a family of its own
    assert p.families.of(_entry(4, B, field=2)) == 4
    assert p.families.of(_entry(3, b"\x09" * 20)) is None  # a key never seen: the contract's entries, together
    assert p.new_states == 5 and not p.slots  # the small values are the storage signal's
    p.run_finished()
    p.run_started()
    assert not p.stored([(A, 5, 10**18)])  # reached before, in another run
    p.run_finished()
    assert p.states[(A, 5, UNWRITTEN, LARGE)] == 2 and p.states[(A, 5, LARGE, ZERO)] == 1
    # the rarest state a run reached: 1 / the runs that reached it
    assert p.rarity({(A, 5, UNWRITTEN, LARGE), (A, 5, LARGE, ZERO)}) == 1.0
    assert p.rarity({(A, 5, UNWRITTEN, LARGE)}) == 0.5
    assert p.rarity(()) == 0.0
    assert not Progress({"storage"}).stored([(A, 5, 10**18)])


def test_the_mappings_are_those_the_storage_layout_names():
    """Vyper 0.4's layout (a vault over snekmate's erc4626 module, trimmed): the HashMaps' slots, modules' included."""
    layout = {"storage_layout": {
        "erc4626": {"ownable": {"owner": {"type": "address", "n_slots": 1, "slot": 0}},
                    "erc20": {"balanceOf": {"type": "HashMap[address, uint256]", "n_slots": 1, "slot": 1},
                              "allowance": {"type": "HashMap[address, HashMap[address, uint256]]", "n_slots": 1, "slot": 2},
                              "totalSupply": {"type": "uint256", "n_slots": 1, "slot": 3}}},
        "strategies": {"type": "HashMap[address, StrategyParams]", "n_slots": 1, "slot": 8},
        "default_queue": {"type": "DynArray[address, 10]", "n_slots": 11, "slot": 9}},
        "transient_storage_layout": {"$.nonreentrant_key": {"type": "nonreentrant lock", "slot": 0, "n_slots": 1}}}
    assert mapping_slots(layout) == {1, 2, 8}
    families = Families({1, 2, 8})
    families.key(bytes(12) + A)
    assert families.of(_entry(8, A, field=3)) == 8 and families.of(_entry(1, A)) == 1
    assert families.of(_entry(5, A)) is None  # no mapping at slot 5
    assert families.of(7) == 7  # a declared variable is its own family


@pytest.mark.parametrize(
    "text, on",
    [(None, {"storage", "cmplog", "streaks", "held", "closing"}), ("storage,cmplog", {"storage", "cmplog"}), ("storage,cmplog,held", {"storage", "cmplog", "held"}), ("counts,storage,cmplog", {"counts", "storage", "cmplog"}), ("storage,states", {"storage", "states"}), ("storage,cmplog,relations", {"storage", "cmplog", "relations"}), ("storage,cmplog,live", {"storage", "cmplog", "live"}), ("storage,cmplog,streaks", {"storage", "cmplog", "streaks"}), ("storage,cmplog,closing", {"storage", "cmplog", "closing"}), ("", set()), ("cmplog", {"cmplog"}), ("counts, storage,nope", {"counts", "storage"})],
)
def test_the_signals_are_switched_by_the_environment(monkeypatch, tmp_path, text, on):
    if text is None:
        monkeypatch.delenv(feedback.ENVIRONMENT, raising=False)
    else:
        monkeypatch.setenv(feedback.ENVIRONMENT, text)
    environment = config_mod.load(tmp_path).environment  # read once, with the settings
    monkeypatch.setenv(feedback.ENVIRONMENT, "counts")  # later changes are not seen
    assert feedback.signals(environment.feedback) == on


def test_every_comparison_is_recorded_and_an_xor_or_sub_where_its_result_is_tested():
    PUSH1, PUSH2, EQ, LT, GT, XOR, SUB_, ISZERO = 0x60, 0x61, 0x14, 0x10, 0x11, 0x18, 0x03, 0x15
    JUMPI, JUMP, CALLVALUE, OR, ADD_, MSTORE = 0x57, 0x56, 0x34, 0x17, 0x01, 0x52
    code = bytes(
        [PUSH1, 5, PUSH1, 4, XOR, PUSH2, 0, 40, JUMPI]  # `!=` as vyper writes it: XOR, destination, JUMPI (XOR at 4)
        + [PUSH1, 5, PUSH1, 4, LT, ISZERO, PUSH2, 0, 40, JUMPI]  # `>=`: LT ISZERO (LT at 13)
        + [PUSH1, 5, PUSH1, 4, LT, CALLVALUE, OR, PUSH2, 0, 40, JUMPI]  # a size check joined to another (LT at 23)
        + [PUSH1, 5, PUSH1, 4, GT, JUMPI]  # GT at 34
        + [PUSH1, 1, PUSH1, 2, EQ, PUSH1, 1, ADD_]  # a comparison whose result is a value (EQ at 40)
        + [PUSH1, 1, PUSH1, 2, XOR, ISZERO, PUSH2, 0, 40, JUMP]  # `==` carried to an `and`'s join (XOR at 48)
        + [PUSH1, 1, PUSH1, 2, SUB_, PUSH2, 0, 40, JUMP]  # `!=` carried to a join (SUB at 58)
        + [PUSH1, 1, PUSH1, 2, XOR, PUSH1, 0, MSTORE]  # an XOR that is arithmetic (XOR at 67): not recorded
        + [PUSH1, 1, PUSH1, 2, SUB_, JUMP]  # a SUB whose result is where to jump (SUB at 75): not recorded
    )
    assert recorded(code) == {4, 13, 23, 34, 40, 48, 58}


@pytest.mark.parametrize(
    "steps, result",
    [
        # 3 * x + 7: vyper's MUL then ADD (the constant on top of the stack or below it)
        ([(MUL, 3, 5), (ADD, 7, 15)], 22),
        ([(MUL, 5, 3), (ADD, 15, 7)], 22),
        # x // 4 as vyper writes it (SHR 2), and x // 10
        ([(SHR, 2, 4000)], 1000),
        ([(DIV, 50_000, 10)], 5000),
        # x - fee and total - x
        ([(SUB, 50, 30)], 20),
        ([(SUB, 70, 50)], 20),
    ],
)
def test_a_value_computed_from_an_argument_is_solved_back_to_it(steps, result):
    words = frozenset({5, 4000, 50_000, 50})
    derived: dict = {}
    value = None
    for op, a, b in steps:
        value = {ADD: a + b, MUL: a * b, SHR: b >> a, DIV: a // b, SUB: a - b}[op]
        derive(derived, words, op, a, b, value)
    assert value == result and value in derived
    argument, path = derived[value]
    assert solve(path, value) == argument  # the steps undone give the argument back


def test_solving_undoes_each_step_and_gives_up_past_the_word():
    assert solve(((MUL, 3), (ADD, 7)), 1000) == 331  # 3 * 331 + 7 == 1000
    assert solve(((MUL, 3), (ADD, 7)), 1001) == 331  # no exact one: the nearest below, with its neighbours tried too
    assert solve(((SHR, 2),), 1000) == 4000
    assert solve(((DIV, 10),), 2**255) is None  # 10 * 2**255 is no word
    assert solve(((-SUB, 50),), 20) == 30  # 50 - x == 20


def test_a_value_tested_for_zero_is_solved_to_the_largest_argument_it_is_zero_for():
    # shares * 501 // 1001: a share worth about half an asset, and 1 share pays nothing
    assert solve_top(((MUL, 501), (DIV, 1001)), 0) == 1
    assert solve_top(((MUL, 10), (DIV, 1001)), 0) == 100  # 100 * 10 // 1001 == 0, 101 * 10 // 1001 == 1
    assert solve_top(((SHR, 4),), 0) == 15
    assert solve_top(((ADD, 7),), 0) is None  # x + 7 is 0 only past the word, which checked arithmetic refuses
    assert solve_top(((-SUB, 50),), 0) == 50  # 50 - x
    assert solve_top(((SUB, 50),), 0) == 50  # x - 50
    feedback = Feedback()
    zero_tested(feedback, (7, ((MUL, 501), (DIV, 1001))))
    assert feedback.zeros == [(7, 1)] and feedback.operands == [1]
    zero_tested(feedback, (7, ((MUL, 4001), (DIV, 1001))))  # a share worth 4 assets: only 0 shares pay nothing
    zero_tested(feedback, (1, ((MUL, 501), (DIV, 1001))))  # the argument is already the largest
    assert feedback.zeros == [(7, 1)] and feedback.equalities == []


def test_arithmetic_of_two_arguments_or_of_none_derives_nothing():
    words = frozenset({5, 9})
    derived: dict = {}
    derive(derived, words, ADD, 5, 9, 14)  # both sides arguments: no single one to solve for
    derive(derived, words, ADD, 3, 4, 7)  # neither
    derive(derived, words, MUL, 1, 5, 5)  # times one: the argument itself
    derive(derived, words, DIV, 5, 1, 5)
    derive(derived, words, DIV, 100, 5, 20)  # c // x: not followed
    assert derived == {}


def test_an_elapsed_time_compared_with_a_duration_gives_the_time_it_comes_to_it():
    """`block.timestamp - start + 1 >= CLIFF`: the time at which the elapsed time meets the duration is one the contract
    waits for, though it never stored it; the subtraction's own underflow check and the addition's overflow check give
    none, and an elapsed time already past the duration gives none."""
    now, start, cliff = 1_700_000_000, 1_699_999_000, 90 * 86400
    words = frozenset({7})  # an argument of the call, beside the clock
    sources = clock_source(words, now)
    assert sources == {7, now}
    derived: dict = {}
    elapsed = now - start
    derive(derived, sources, SUB, now, start, elapsed)  # block.timestamp - start (the clock on top of the stack)
    derive(derived, sources, ADD, elapsed, 1, elapsed + 1)
    feedback = Feedback(everywhere=True)
    compared(feedback, words, elapsed, now, now, 1, False, derived)  # an underflow check: elapsed > now?
    compared(feedback, words, elapsed + 1, elapsed, now, 1, False, derived)  # the overflow check: both sides derived
    ahead = lambda: [t for t in feedback.times if t > now]  # noqa: E731 (a comparison with the clock keeps its other side)
    assert ahead() == [] and feedback.operands == []
    compared(feedback, words, elapsed + 1, cliff, now, 1, False, derived)  # elapsed + 1 < CLIFF
    assert ahead() == [start + cliff - 1]  # a second early: the time the wait must land on
    assert (now, start + cliff - 1) in feedback.time_sides
    assert feedback.operands == []  # no argument's value
    compared(feedback, words, elapsed + 1, 10, now, 1, False, derived)  # a duration already past: no time ahead
    assert ahead() == [start + cliff - 1]


def test_a_clock_set_near_zero_is_not_followed():
    assert clock_source(frozenset({7}), 3600) == {7}  # its value is one that memory arithmetic meets


def test_the_times_a_wait_may_jump_to_are_those_ahead_of_the_clock():
    """A stored word counts as a time only ahead of the chain's clock (a small amount, a time gone by never is one), and
    so does a time compared: a run's places for times are left to those a wait can take."""
    from evmstate.evm.base import ExecResult

    now = 1_700_000_000
    d = Dictionary(0.25)
    d.clock = lambda: (now, 20)
    d.freeze()
    contract = b"\x07" * 20
    stored = [(contract, 0, 1000), (contract, 1, now - 86400), (contract, 2, now), (contract, 3, now + 86400)]
    d.observe(ExecResult(True, b"", 21000, storage_writes=tuple(stored)))
    assert d.times == [now + 86400]
    d.add_times([now - 5, now, now + 7, now + 86400])
    assert d.times == [now + 86400, now + 7]
    d.add_times([3, 20, 21], blocks=True)
    assert d.blocks == [21]
    d.reset()
    assert d.times == [] and d.blocks == []


def test_the_dictionary_takes_an_operand_last_after_its_neighbours():
    d = Dictionary(0.25)
    d.freeze()
    d.add_operands([1_003_000])
    assert d.ints_between(0, 2**256 - 1)[2] == [1_003_000, 1_003_001, 1_002_999]  # the latest first
    address = int.from_bytes(b"\x42" * 20, "big")
    d.add_operands([address])
    assert d.observed[-1] == address and address - 1 not in d.observed and d.addresses[-1] == b"\x42" * 20
    d.reset()
    assert d.observed == []  # a run's operands end with it
