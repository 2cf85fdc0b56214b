"""Every type of the strategy grammar round-trips through deployed Vyper echo contracts."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from evmstate import ContractError, Project, strategy
from evmstate.contracts.abi import DECIMAL_MAX, DECIMAL_MIN
from evmstate.compiler.sources import compile_project
from evmstate.config import Config, ProjectConfig

from ..conftest import BUILDS, interprocess_lock
from ..abi_grammar import ECHO_COMPOSITES, ECHO_LEAVES, LEAVES, assert_same, echo_contract, expected_output

SIGNATURES = {**ECHO_LEAVES, **ECHO_COMPOSITES}


@pytest.fixture(scope="session")
def echo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project holding the echo contracts, compiled once into a folder kept between runs beside the other compiled projects; each copy starts from its build cache.

    Every test process shares the folder under a lock, so that the two contracts are compiled by
    one worker, not by each, and by no run after the first until they change (the build cache is
    keyed on their content).
    """
    shared = BUILDS / "echo-project"
    BUILDS.mkdir(parents=True, exist_ok=True)
    with interprocess_lock(shared.with_suffix(".lock")):
        (shared / "contracts").mkdir(parents=True, exist_ok=True)
        (shared / "contracts" / "EchoLeaves.vy").write_text(echo_contract(ECHO_LEAVES))
        (shared / "contracts" / "EchoComposites.vy").write_text(echo_contract(ECHO_COMPOSITES))
        built = compile_project(shared / "contracts", shared / ".evmstate" / "build", root=shared)
        assert not built.errors, built.errors
        root = tmp_path_factory.mktemp("echo-project")
        shutil.copytree(shared, root, dirs_exist_ok=True)
    return root


@pytest.fixture(scope="session")
def echo(echo_root: Path):
    """Both echo contracts deployed once; their functions are pure, so tests can share them."""
    project = Project(Config(root=echo_root, project=ProjectConfig(contracts="contracts")))
    leaves = project.EchoLeaves.deploy()
    composites = project.EchoComposites.deploy()
    return project, {**{n: leaves.function(n) for n in ECHO_LEAVES}, **{n: composites.function(n) for n in ECHO_COMPOSITES}}


def test_echo_contracts_cover_every_leaf_type():
    covered = {t for types in SIGNATURES.values() for t in types}
    assert set(LEAVES) <= covered and len(LEAVES) == 32 + 32 + 32 + 5


@pytest.mark.parametrize("name", sorted(SIGNATURES), ids=lambda n: ",".join(SIGNATURES[n]) if len(SIGNATURES[n]) == 1 else n)
@settings(max_examples=8)
@given(data=st.data())
def test_every_type_round_trips_through_vyper(echo, name, data):
    _, functions = echo
    types = SIGNATURES[name]
    values = data.draw(st.tuples(*(strategy(t) for t in types)), label="arguments")
    got = functions[name](*values)
    expected = tuple(expected_output(t, v) for t, v in zip(types, values))
    assert_same(got if len(types) > 1 else (got,), expected)


def test_integer_arrays_come_back_whole(echo):
    """The arrays that once crashed the contract layer or came back as a single int."""
    _, functions = echo
    composite = {ts[0]: n for n, ts in ECHO_COMPOSITES.items() if len(ts) == 1}
    assert functions[composite["uint256[]"]]([0, 7, 14]) == [0, 7, 14]
    assert functions[composite["uint8[3]"]]([1, 2, 255]) == [1, 2, 255]
    assert functions[composite["uint256[][]"]]([[1], [], [2, 3]]) == [[1], [], [2, 3]]
    assert functions[composite["int64[2][3]"]]([[-1, 1], [0, 2**63 - 1], [-(2**63), 5]]) == [[-1, 1], [0, 2**63 - 1], [-(2**63), 5]]


def test_decimals_go_in_and_come_back_as_decimal(echo):
    _, functions = echo
    other = functions["echo_other"]
    project = echo[0]
    a = project.accounts
    got = other(True, a[1], b"\x01", "hi", Decimal("-1.5"))
    assert got == (True, a[1].address, b"\x01", "hi", Decimal("-1.5")) and isinstance(got[4], Decimal)
    # ints and exact strings are decimals too; floats are refused as inexact
    assert other(False, a[0], b"", "", 3)[4] == Decimal(3)
    assert other(False, a[0], b"", "", "0.0000000001")[4] == Decimal("1E-10")
    with pytest.raises(ContractError, match=r"argument 5 \(decimal\): a float is inexact; pass Decimal\('0.1'\)"):
        other(False, a[0], b"", "", 0.1)
    with pytest.raises(ContractError, match="more than 10 decimal places"):
        other(False, a[0], b"", "", Decimal("1.00000000001"))
    # the exact bounds of int168 / 10**10, both ways, and one step past them
    for bound in (DECIMAL_MIN, DECIMAL_MAX):
        assert other(False, a[0], b"", "", bound)[4] == bound
        assert str(bound).endswith(".9365500928" if bound < 0 else ".9365500927")
    for beyond in (DECIMAL_MIN - Decimal("1E-10"), DECIMAL_MAX + Decimal("1E-10")):
        with pytest.raises(ContractError, match="does not fit in a decimal"):
            other(False, a[0], b"", "", beyond)


def test_structs_come_back_named_and_go_in_as_dicts(echo):
    _, functions = echo
    name = next(n for n, ts in ECHO_COMPOSITES.items() if ts == ["(uint256,bool)"])
    got = functions[name]({"f0": 5, "f1": True})
    assert got == (5, True) and got.f0 == 5 and got.f1 is True
    with pytest.raises(ContractError, match="has the fields f0, f1; missing \\['f1'\\], unknown \\['x'\\]"):
        functions[name]({"f0": 5, "x": True})


def test_values_that_do_not_fit_are_clear_errors(echo):
    _, functions = echo
    with pytest.raises(ContractError, match=r"EchoLeaves.echo_uints argument 1 \(uint8\): 256 does not fit in uint8"):
        functions["echo_uints"](256, *[0] * 31)
    name = next(n for n, ts in ECHO_COMPOSITES.items() if ts == ["uint8[3]"])
    with pytest.raises(ContractError, match=r"argument 1 \(uint8\[3\]\): uint8\[3\] needs exactly 3 items, got 2"):
        functions[name]([1, 2])
    with pytest.raises(ContractError, match=r"argument 1 \(uint8\[3\]\)\[1\]: -1 does not fit in uint8"):
        functions[name]([1, -1, 2])
    with pytest.raises(ContractError, match=r"bytes4 takes exactly 4 bytes, got 2"):
        functions["echo_bytes_n"](*[b"\0" * n if n != 4 else b"\0\0" for n in range(1, 33)])


def test_a_trailing_struct_given_as_a_dict_is_an_argument_not_options(tokens):
    a = tokens.accounts
    shapes = tokens.Shapes.deploy()
    moved = shapes.shift(1, {"x": 2, "y": -3})
    assert moved == (3, -2) and (moved.x, moved.y) == (3, -2)
    assert shapes.shift(1) == (1, 1)
    assert shapes.shift(1, {"x": 2, "y": -3}, {"from": a[1]}) == (3, -2)
    assert shapes.shift(1, {"from": a[1]}) == (1, 1) and shapes.caller({"from": a[2]}) == a[2]
