"""Public getters read from storage: the value running the getter returns, for every one-word type."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from evmstate import ContractError, Project
from evmstate.config import Config

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def getters_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("getters")
    shutil.copytree(HERE / "revm" / "contracts", root / "contracts")
    return Project(Config(root=root))


def both(project: Project, address: str):
    """The contract bound twice: getters read from storage, and getters run as calls."""
    fast = project.Getters.at(address)
    project.fast_getters = False
    try:
        slow = project.Getters.at(address)
    finally:
        project.fast_getters = True
    return fast, slow


def ints(bits: int, signed: bool) -> st.SearchStrategy[int]:
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else st.integers(0, 2**bits - 1)


def test_only_top_level_one_word_variables_are_read_from_storage(getters_project):
    fast, slow = both(getters_project, getters_project.Getters.deploy().address)
    read = {name for name, fn in fast._functions.items() if fn._getter is not None}
    assert read == {"small", "signed", "wide", "switch", "who", "tag", "word", "by_key", "by_id", "by_sign", "by_flag"}
    assert all(fn._getter is None for fn in slow._functions.values())
    # strings, arrays, constants and immutables run as calls, and still answer
    assert (fast.text(), fast.LIMIT(), fast.owner(), fast.fixed(1)) == ("", 7, getters_project.accounts[0].address, 0)


@settings(max_examples=40)
@given(data=st.data())
def test_a_getter_read_from_storage_returns_what_running_it_returns(getters_project, data):
    project = getters_project
    a = project.accounts
    with project.chain.anchor():
        contract = project.Getters.deploy()
        fast, slow = both(project, contract.address)
        for _ in range(data.draw(st.integers(1, 3), label="writes")):
            words = (
                data.draw(ints(8, False)), data.draw(ints(128, True)), data.draw(ints(256, True)), data.draw(st.booleans()),
                data.draw(st.sampled_from(list(a))), data.draw(st.binary(min_size=4, max_size=4)), data.draw(st.binary(min_size=32, max_size=32)),
            )
            contract.set_words(*words)
            keys = (
                data.draw(st.binary(min_size=32, max_size=32)), data.draw(ints(256, True)), data.draw(ints(8, False)), data.draw(st.sampled_from(list(a))),
                data.draw(st.booleans()), data.draw(ints(16, True)), data.draw(st.binary(min_size=2, max_size=2)), data.draw(st.booleans()), data.draw(ints(256, False)),
            )
            contract.set_maps(*keys)
        for name in ("small", "signed", "wide", "switch", "who", "tag", "word"):
            assert fast.function(name)() == slow.function(name)(), name
        # keys that were written and keys that were not
        key = data.draw(st.one_of(st.just(keys[0]), st.binary(min_size=32, max_size=32)))
        assert fast.by_key(key) == slow.by_key(key)
        uid, who = data.draw(st.one_of(st.just((keys[2], keys[3])), st.tuples(ints(8, False), st.sampled_from(list(a)))))
        assert fast.by_id(uid, who) == slow.by_id(uid, who)
        sign = data.draw(st.one_of(st.just(keys[5]), ints(16, True)))
        assert fast.by_sign(sign) == slow.by_sign(sign)
        flag = data.draw(st.booleans())
        assert fast.by_flag(flag) == slow.by_flag(flag)


def test_a_getter_reports_bad_arguments_and_missing_code_as_a_call_does(getters_project):
    project = getters_project
    contract = project.Getters.deploy()
    fast, slow = both(project, contract.address)
    for bound in (fast, slow):
        with pytest.raises(ContractError, match=r"Getters.by_id argument 1 \(uint8\): 256 does not fit in uint8"):
            bound.by_id(256, project.accounts[0])
        with pytest.raises(ContractError, match="takes 2"):
            bound.by_id(1)
    nowhere = both(project, project.accounts[3].address)
    errors = []
    for bound in nowhere:
        with pytest.raises(ContractError) as info:
            bound.small()
        errors.append(str(info.value))
    assert errors[0] == errors[1], "no code there: the getter runs, and fails as a call does"
