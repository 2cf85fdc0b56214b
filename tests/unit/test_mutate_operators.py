"""Mutants made on vyper's syntax tree: which spans each operator replaces, and what it leaves alone."""

from __future__ import annotations

import textwrap

import pytest

from evmstate.compiler import vyper_outputs
from evmstate.mutate.operators import OPERATORS, make_mutants
from evmstate.mutate.plan import without_metadata

SOURCE = textwrap.dedent(
    '''\
    # pragma version ~=0.4.3
    # a comment with msg.sender, True and 1 + 2 in it: never mutated

    event Paid:
        to: indexed(address)
        amount: uint256

    FEE: constant(uint256) = 3
    total: public(uint256)
    owner: public(address)
    names: public(DynArray[uint256, 4])


    @external
    @nonreentrant
    def pay(to: address, amount: uint256, extra: uint256) -> bool:
        assert msg.sender == self.owner, "owner only"
        fee: uint256 = (amount + extra) * FEE
        self.total += amount
        if amount > 10:
            raise "too much"
        self.names.append(amount)
        log Paid(to=to, amount=amount - fee)
        return True


    @internal
    def _spare(a: uint256) -> uint256:
        return a // 2
    '''
)


@pytest.fixture(scope="module")
def mutants():
    return make_mutants("Paying.vy", SOURCE, vyper_outputs.syntax_tree(SOURCE))


def diffs(mutants, operator):
    return [(m.line, m.before, m.after) for m in mutants if m.operator == operator]


def test_each_operator_makes_the_mutants_of_its_kind(mutants):
    assert {m.operator for m in mutants} == set(OPERATORS)
    assert diffs(mutants, "comparison") == [
        (17, 'assert msg.sender == self.owner, "owner only"', 'assert msg.sender != self.owner, "owner only"'),
        (20, "if amount > 10:", "if amount >= 10:"),
    ]
    assert diffs(mutants, "arithmetic") == [
        (18, "fee: uint256 = (amount + extra) * FEE", "fee: uint256 = (amount - extra) * FEE"),
        (18, "fee: uint256 = (amount + extra) * FEE", "fee: uint256 = (amount + extra) // FEE"),
        (19, "self.total += amount", "self.total -= amount"),
        (23, "log Paid(to=to, amount=amount - fee)", "log Paid(to=to, amount=amount + fee)"),
        (29, "return a // 2", "return a * 2"),
    ]
    assert diffs(mutants, "off by one") == [
        (8, "FEE: constant(uint256) = 3", "FEE: constant(uint256) = 2"),
        (8, "FEE: constant(uint256) = 3", "FEE: constant(uint256) = 4"),
        (20, "if amount > 10:", "if amount > 11:"),
        (20, "if amount > 10:", "if amount > 9:"),
        (29, "return a // 2", "return a // 1"),
        (29, "return a // 2", "return a // 3"),
    ]
    assert [(m.line, m.after) for m in mutants if m.operator in ("assert removed", "raise removed", "log removed", "state write removed")] == [
        (17, "pass"),
        (19, "pass"),
        (21, "pass"),
        (22, "pass"),
        (23, "pass"),
    ]
    assert diffs(mutants, "decorator removed") == [(15, "@nonreentrant", "")]
    assert diffs(mutants, "sender swapped") == [(17, 'assert msg.sender == self.owner, "owner only"', 'assert tx.origin == self.owner, "owner only"')]
    assert diffs(mutants, "augmented assignment") == [(19, "self.total += amount", "self.total = amount")]
    assert diffs(mutants, "boolean flipped") == [(24, "return True", "return False")]


def test_a_variable_is_swapped_only_for_another_of_its_type_in_scope(mutants):
    swapped = diffs(mutants, "variable swapped")
    # amount and extra are uint256 arguments, fee a uint256 local from line 18 on; to is an address: alone
    assert (18, "fee: uint256 = (amount + extra) * FEE", "fee: uint256 = (extra + extra) * FEE") in swapped
    assert (18, "fee: uint256 = (amount + extra) * FEE", "fee: uint256 = (amount + amount) * FEE") in swapped
    assert (23, "log Paid(to=to, amount=amount - fee)", "log Paid(to=to, amount=fee - fee)") in swapped
    assert (23, "log Paid(to=to, amount=amount - fee)", "log Paid(to=to, amount=amount - extra)") in swapped
    # fee is not in scope before its declaration, nor is anything swapped for to, nor in another function
    assert not any("fee" in after.split(" = ")[1] for line, _, after in swapped if line == 18)
    assert not any(after.startswith("log Paid(to=amount") or line == 29 for line, _, after in swapped)


def test_comments_types_and_the_assigned_name_are_left_alone(mutants):
    assert all(m.line > 2 for m in mutants)
    assert not any(m.line in (11,) for m in mutants), "DynArray[uint256, 4] is a type: its 4 is no constant"
    assert not any(m.line == 18 and m.after.startswith(("amount:", "extra:")) for m in mutants), "the name a line declares is not swapped"


def test_a_mutant_keeps_the_lines_and_applies_to_the_text(mutants):
    for m in mutants:
        mutated = m.apply(SOURCE)
        assert mutated.count("\n") == SOURCE.count("\n")
        vyper_outputs.syntax_tree(mutated)  # every mutant still parses
    removal = next(m for m in mutants if m.operator == "decorator removed")
    assert "@nonreentrant" not in removal.apply(SOURCE)
    assert removal.reach == (14, 24), "a decorator is reached when its function is"


def test_a_statement_over_several_lines_is_removed_whole_and_the_lines_stay():
    source = 'x: uint256\n\n@external\ndef f(a: uint256):\n    assert (\n        a > 1\n    ), "small"\n    self.x = a\n'
    found = [m for m in make_mutants("F.vy", source, vyper_outputs.syntax_tree(source)) if m.operator == "assert removed"]
    assert [(m.line, m.end_line, m.after) for m in found] == [(5, 7, "pass")]
    assert found[0].apply(source).splitlines()[4:8] == ["    pass", "", "", "    self.x = a"]


def test_a_negative_literal_moves_with_its_sign():
    source = "@external\ndef f(a: int256) -> int256:\n    return a + -5\n"
    found = sorted(m.after for m in make_mutants("F.vy", source, vyper_outputs.syntax_tree(source)) if m.operator == "off by one")
    assert found == ["return a + -4", "return a + -6"]


def test_inside_a_log_the_operands_are_found_where_the_text_has_them():
    """vyper writes `log` as `yield` before parsing: some end positions on that line are off by two."""
    source = "event E:\n    v: uint256\n\n@external\ndef f(a: uint256, b: uint256):\n    log E(v=a - b)\n"
    found = sorted(m.after for m in make_mutants("F.vy", source, vyper_outputs.syntax_tree(source)) if m.line == 6)
    assert found == ["log E(v=a + b)", "log E(v=a - a)", "log E(v=b - b)", "pass"]


def test_the_metadata_vyper_appends_is_left_out_of_a_contract_code():
    runtime = bytes.fromhex("6001600055")
    cbor = bytes.fromhex("85582001020304050607080910111213141516171819202122232425262728293031321903ba810c00a1657679706572830004030036")
    assert len(cbor) == 0x36
    assert without_metadata(runtime + cbor) == runtime
    assert without_metadata(runtime) == runtime
