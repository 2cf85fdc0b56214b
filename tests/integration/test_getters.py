"""Public getters read from storage: the value running the getter returns, for every one-word type,
for the contract's own variables and for those of the modules it exports from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from evmstate import ContractError, Project
from evmstate.contracts import calls
from evmstate import config as config_mod
from evmstate.compiler.sources import Artifact
from evmstate.config import Config
from evmstate.hooks import FAST_PATHS

from ..conftest import kept_build, used_entry, warm_build

HERE = Path(__file__).parent
SNEKMATE = HERE.parent / "projects" / "snekmate"


@pytest.fixture(scope="module")
def getters_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("getters")
    shutil.copytree(HERE / "revm" / "contracts", root / "contracts")
    return kept_build(root, "kept-revm-contracts", lambda: Project(Config(root=root)))


def both(project: Project, address: str, name: str = "Getters"):
    """The contract bound twice: getters read from storage, and getters run as calls."""
    fast = getattr(project, name).at(address)
    project.fast_getters = False
    try:
        slow = getattr(project, name).at(address)
    finally:
        project.fast_getters = True
    return fast, slow


def read_from_storage(bound) -> set[str]:
    return {name for name, fn in bound._functions.items() if fn._getter is not None}


def ints(bits: int, signed: bool) -> st.SearchStrategy[int]:
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else st.integers(0, 2**bits - 1)


def test_only_one_word_storage_variables_are_read_from_storage(getters_project):
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
    # Getters.at() refuses an address without code: bound while there was some, then the code taken away
    gone = project.Getters.deploy()
    nowhere = both(project, gone.address)
    project.chain.set_code(gone, b"")
    errors = []
    for bound in nowhere:
        with pytest.raises(ContractError) as info:
            bound.small()
        errors.append(str(info.value))
    assert errors[0] == errors[1], "no code there: the getter runs, and fails as a call does"


# -- variables of imported modules ---------------------------------------------

ERC20_GETTERS = {"owner", "balanceOf", "allowance", "totalSupply", "is_minter", "nonces"}
PERMIT_TYPES = {
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ]
}


@pytest.fixture(scope="module")
def erc20_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """snekmate's ERC20Mock alone: its variables live in the modules ownable and erc20."""
    root = tmp_path_factory.mktemp("snekmate-erc20")
    shutil.copy(SNEKMATE / "evmstate.toml", root / "evmstate.toml")
    (root / "contracts").mkdir()
    shutil.copy(SNEKMATE / "contracts" / "ERC20Mock.vy", root / "contracts" / "ERC20Mock.vy")
    # the snekmate project's build (compiled once for every test process and run) holds ERC20Mock's, same source, settings and path
    shutil.copytree(warm_build(SNEKMATE), root / ".evmstate" / "build")
    return Project(config_mod.load(root))


def test_the_compiler_lists_the_getters_of_module_variables_with_their_slots(erc20_project):
    artifact = erc20_project.build.artifacts["ERC20Mock"]
    # name, symbol and decimals are immutables: their getters are not listed
    assert artifact.getters == {
        "owner": {"slot": 0, "type": "address"},
        "balanceOf": {"slot": 1, "type": "HashMap[address, uint256]"},
        "allowance": {"slot": 2, "type": "HashMap[address, HashMap[address, uint256]]"},
        "totalSupply": {"slot": 3, "type": "uint256"},
        "is_minter": {"slot": 4, "type": "HashMap[address, bool]"},
        "nonces": {"slot": 5, "type": "HashMap[address, uint256]"},
    }
    # the same slots as vyper's storage layout, where they are nested under the module's alias
    layout = artifact.layout["storage_layout"]
    assert {name: layout["ow" if name == "owner" else "erc20"][name]["slot"] for name in ERC20_GETTERS} == {
        name: found["slot"] for name, found in artifact.getters.items()
    }
    cached = used_entry(erc20_project.config.state_dir / "build", "ERC20Mock")
    data = json.loads(cached.read_text())["artifact"]
    assert data["getters"] == artifact.getters and Artifact.from_dict(data).to_dict() == data


def test_getters_of_module_variables_are_read_from_storage_and_return_what_the_call_returns(erc20_project):
    project = erc20_project
    a, chain = project.accounts, project.chain
    with chain.anchor():
        token = project.ERC20Mock.deploy("Token", "TKN", 1000, "Token", "1", {"from": a[0]})
        fast, slow = both(project, token.address, "ERC20Mock")
        assert read_from_storage(fast) == ERC20_GETTERS
        assert not read_from_storage(slow)
        token.transfer(a[1], 300, {"from": a[0]})
        token.approve(a[2], 55, {"from": a[1]})
        token.set_minter(a[3], True, {"from": a[0]})
        token.mint(a[2], 40, {"from": a[3]})
        deadline = chain.time() + 3600
        message = {"owner": a[2], "spender": a[1], "value": 9, "nonce": 0, "deadline": deadline}
        domain = {"name": "Token", "version": "1", "chainId": chain.id, "verifyingContract": token}
        signed = a[2].sign_typed_data(domain, PERMIT_TYPES, message)
        token.permit(a[2], a[1], 9, deadline, signed.v, signed.r, signed.s, {"from": a[1]})
        token.transfer_ownership(a[3], {"from": a[0]})
        holders = [*a, token]
        for who in holders:
            for name in ("balanceOf", "is_minter", "nonces"):
                assert fast.function(name)(who) == slow.function(name)(who), (name, who)
            for spender in holders:
                assert fast.allowance(who, spender) == slow.allowance(who, spender), (who, spender)
        assert (fast.totalSupply(), fast.owner()) == (slow.totalSupply(), slow.owner()) == (1040, a[3].address)
        assert (fast.balanceOf(a[1]), fast.allowance(a[1], a[2]), fast.allowance(a[2], a[1]), fast.nonces(a[2])) == (300, 55, 9, 1)
        assert (fast.is_minter(a[3]), fast.is_minter(a[0])) == (True, False), "transfer_ownership drops the old owner's minter role"
        # a call recorded for a trace runs the getter, and returns what the storage read did
        seen: list[calls.CallRecord] = []
        with calls.recording(seen.append):
            ran = fast.balanceOf(a[2])
        assert [(r.function, r.kind, r.return_value) for r in seen] == [("balanceOf", "call", 40)]
        assert ran == fast.balanceOf(a[2]) == 40
        # immutables run as calls
        assert (fast.name(), fast.symbol(), fast.decimals()) == ("Token", "TKN", 18)


LEDGER = """\
# pragma version ~=0.4.3
# A module whose non-public variables are named like functions of the contract that imports it.

balances: HashMap[address, uint256]
total: uint256
stored: public(uint256)
marks: public(HashMap[uint256, bool])


@internal
def _credit(who: address, amount: uint256):
    self.balances[who] += amount
    self.total += amount
    self.stored = amount
    self.marks[amount] = True


@external
@view
def peek() -> uint256:
    return self.total
"""

LEDGERED = """\
# pragma version ~=0.4.3
import ledger

initializes: ledger
exports: (ledger.stored, ledger.marks, ledger.peek)

count: public(uint256)
hidden: uint256


@external
def credit(who: address, amount: uint256):
    ledger._credit(who, amount)
    self.count += 1
    self.hidden = amount


# named like the module's variables; they return something other than what those hold
@external
@view
def balances(who: address) -> uint256:
    return ledger.balances[who] + 1


@external
@view
def total() -> uint256:
    return ledger.total * 2


@external
@view
def doubled(x: uint256) -> uint256:
    return x * 2
"""


def test_a_function_named_like_a_non_public_module_variable_runs_as_a_call(tmp_path):
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "ledger.vy").write_text(LEDGER)
    (tmp_path / "contracts" / "Ledgered.vy").write_text(LEDGERED)
    project = Project(Config(root=tmp_path))
    assert project.build.artifacts["Ledgered"].getters == {
        "stored": {"slot": 2, "type": "uint256"},
        "marks": {"slot": 3, "type": "HashMap[uint256, bool]"},
        "count": {"slot": 4, "type": "uint256"},
    }
    a = project.accounts
    contract = project.Ledgered.deploy()
    fast, slow = both(project, contract.address, "Ledgered")
    assert read_from_storage(fast) == {"stored", "marks", "count"}
    contract.credit(a[1], 5)
    contract.credit(a[2], 7)
    # what the contract's own functions compute, not the module's slots (6 and 12 there)
    assert fast.balances(a[1]) == slow.balances(a[1]) == 6
    assert fast.balances(a[3]) == slow.balances(a[3]) == 1
    assert fast.total() == slow.total() == 24
    assert fast.doubled(21) == slow.doubled(21) == 42
    assert fast.peek() == slow.peek() == 12
    assert (fast.stored(), fast.count()) == (slow.stored(), slow.count()) == (7, 2)
    assert [fast.marks(n) for n in (5, 6, 7)] == [slow.marks(n) for n in (5, 6, 7)] == [True, False, True]


def _outcome(fn, *args):
    try:
        return "value", fn(*args)
    except ContractError as e:
        return "error", str(e)


@settings(max_examples=30)
@given(data=st.data())
def test_the_reader_by_key_value_answers_as_the_codec_and_the_call_do(getters_project, data):
    """Keys of every kind a user may pass (accounts, checksummed and lower-case hex, raw bytes, bools and
    ints of the wrong size): the reader's fast path, its codec path (FAST_PATHS off) and the call agree."""
    project = getters_project
    a = project.accounts
    with project.chain.anchor():
        contract = project.Getters.deploy()
        fast, slow = both(project, contract.address)
        with FAST_PATHS.using(False):
            general = project.Getters.at(contract.address)
        assert fast.by_id._read is not None and general.by_id._read is not None and slow.by_id._read is None
        uid, who = data.draw(ints(8, False)), data.draw(st.sampled_from(list(a)))
        contract.set_maps(b"\1" * 32, -5, uid, who, True, -3, b"\1\2", True, 2**255)
        # few keys, so that one is often read again: then the reader answers from its slots
        address = st.sampled_from([a[0], a[0].address, a[0].address.lower(), a[0].raw_address, who, who.address, 0, True, b"\1"])
        small = st.sampled_from([0, 1, True, False, 1.0, "1 wei", uid, -1, 256, 2**256])
        shapes = {
            "by_id": st.tuples(small, address),
            "by_sign": st.tuples(st.one_of(small, st.just(-3), ints(16, True))),
            "by_flag": st.tuples(small),
            "by_key": st.tuples(st.sampled_from([b"\1" * 32, b"\0" * 32, b"\1", 1, True, "0x" + "01" * 32])),
        }
        # several keys in a row: a key read before is answered from the reader's slots, and must still be this one's
        for name, args in data.draw(st.lists(st.sampled_from(sorted(shapes)).flatmap(lambda n: st.tuples(st.just(n), shapes[n])), min_size=1, max_size=8)):
            outcomes = [_outcome(bound.function(name), *args) for bound in (fast, general, slow)]
            assert outcomes[0] == outcomes[1] == outcomes[2], (name, args)
