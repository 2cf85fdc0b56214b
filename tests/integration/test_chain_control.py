"""Writes no transaction makes: chain.set_balance, get/set_storage, set_code, deal, and sending from any address, on both backends."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eth_utils import keccak

from evmstate import Project, deal, reverts
from evmstate.contracts import calls
from evmstate.engine.trace import Names, chain_text
from evmstate.config import BackendConfig, Config, ProjectConfig
from evmstate.errors import ContractError, UsageError

from ..conftest import BACKENDS

HERE = Path(__file__).resolve().parents[1]

SHARES = """# pragma version ~=0.4.3
# balanceOf computes its answer (shares times a rate): no slot holds it
shares: HashMap[address, uint256]
rate: uint256


@deploy
def __init__():
    self.rate = 2
    self.shares[msg.sender] = 50


@external
@view
def balanceOf(owner: address) -> uint256:
    return self.shares[owner] * self.rate


@external
@view
def totalSupply() -> uint256:
    return 100
"""

READER = """# pragma version ~=0.4.3
a: uint256
b: uint256


@external
@view
def both() -> uint256:
    return self.a + self.b


@external
@view
def only_b() -> uint256:
    return self.b * 3


@external
@payable
def pay() -> uint256:
    return msg.value
"""


@pytest.fixture(scope="module")
def chain_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chain-control")
    (root / "contracts").mkdir()
    shutil.copy(HERE / "contracts" / "Token.vy", root / "contracts" / "Token.vy")
    (root / "contracts" / "Shares.vy").write_text(SHARES)
    (root / "contracts" / "Reader.vy").write_text(READER)
    return root


def _project(root: Path, backend: str) -> Project:
    return Project(Config(root=root, project=ProjectConfig(contracts="contracts"), backend=BackendConfig(name=backend)))


def _slot(base: int, key: object) -> int:
    """vyper's HashMap slot: keccak256(slot . key)."""
    raw = bytes.fromhex(str(key)[2:]) if isinstance(key, str) else key.raw_address  # type: ignore[attr-defined]
    return int.from_bytes(keccak(base.to_bytes(32, "big") + bytes(12) + raw), "big")


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_balance_and_sending_from_any_address(chain_root: Path, backend: str):
    p = _project(chain_root, backend)
    chain, stranger = p.chain, "0x" + "ab" * 20
    chain.set_balance(stranger, "2 ether")
    assert p.backend.get_balance(bytes.fromhex("ab" * 20)) == 2 * 10**18
    reader = p.Reader.deploy()
    # any address sends, with {"from": address}; it pays what it sends from what it holds
    assert reader.pay({"from": stranger, "value": "1 ether"}).return_value == 10**18
    assert p.backend.get_balance(bytes.fromhex("ab" * 20)) == 10**18
    token = p.Token.deploy("T", "T", 18, 1000)
    token.transfer(stranger, 10)
    token.transfer(p.accounts[1], 4, {"from": stranger})
    assert token.balanceOf(stranger) == 6 and token.balanceOf(p.accounts[1]) == 4
    chain.set_balance(p.accounts[2], 0)
    assert p.accounts[2].balance() == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_get_and_set_storage_and_a_scope_that_undoes_them(chain_root: Path, backend: str):
    p = _project(chain_root, backend)
    chain = p.chain
    token = p.Token.deploy("T", "T", 18, 1000)
    layout = p.artifacts["Token"].getters
    supply, balances = layout["totalSupply"]["slot"], layout["balanceOf"]["slot"]
    assert chain.get_storage(token, supply) == 1000
    chain.set_storage(token, _slot(balances, p.accounts[3]), 77)
    assert token.balanceOf(p.accounts[3]) == 77
    token.transfer(p.accounts[1], 7, {"from": p.accounts[3]})  # the contract acts on what was written
    assert token.balanceOf(p.accounts[3]) == 70
    with chain.anchor():
        chain.set_storage(token, supply, (5).to_bytes(32, "big"))
        assert token.totalSupply() == 5
        chain.set_storage(token, supply, -1)  # two's complement
        assert chain.get_storage(token, supply) == 2**256 - 1
    assert token.totalSupply() == 1000
    with pytest.raises(UsageError, match=r"chain.set_storage value: expected an int, a bool, 32 bytes"):
        chain.set_storage(token, supply, b"\x01")
    with pytest.raises(UsageError, match="does not fit in a 256-bit storage word"):
        chain.set_storage(token, supply, 2**256)


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_code_plants_a_contract_and_removes_it(chain_root: Path, backend: str):
    p = _project(chain_root, backend)
    token = p.Token.deploy("T", "T", 18, 1000)
    where = "0x" + "cd" * 20
    p.chain.set_code(where, token)  # the code at the token's address
    planted = p.Token.at(where)
    assert planted.totalSupply() == 0  # the code, not the storage
    p.chain.set_storage(where, p.artifacts["Token"].getters["totalSupply"]["slot"], 9)
    assert planted.totalSupply() == 9
    p.chain.set_code(where, b"")
    assert p.backend.get_code(bytes.fromhex("cd" * 20)) == b""
    p.chain.set_code(where, p.Reader)  # a container's runtime code
    assert p.Reader.at(where).only_b() == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_deal_finds_the_balance_slot_and_adjusts_the_supply_when_asked(chain_root: Path, backend: str):
    p = _project(chain_root, backend)
    token = p.Token.deploy("T", "T", 18, 1000)
    p.chain.deal(token, p.accounts[1], 500)
    assert token.balanceOf(p.accounts[1]) == 500 and token.totalSupply() == 1000
    deal(token, p.accounts[1], "1 ether", adjust_total_supply=True)
    assert token.balanceOf(p.accounts[1]) == 10**18 and token.totalSupply() == 1000 - 500 + 10**18
    deal(token, p.accounts[1], 0, adjust_total_supply=True)
    assert token.totalSupply() == 500
    shares = p.Shares.deploy()
    with pytest.raises(UsageError, match=r"does not return a word held in one storage slot .* a token that computes balances"):
        deal(shares, p.accounts[1], 5)
    assert shares.balanceOf(p.accounts[0]) == 100  # the probes left nothing behind
    with pytest.raises(UsageError, match="there is no code at that address"):
        p.chain.deal("0x" + "ee" * 20, p.accounts[1], 5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_call_cache_after_set_storage_runs_again_exactly_the_calls_that_read_the_slot(chain_root: Path, backend: str):
    p = _project(chain_root, backend)
    reader = p.Reader.deploy()
    cache = p.backend.call_cache
    assert reader.both() == 0 and reader.only_b() == 0
    hits, misses = cache.hits, cache.misses
    assert reader.both() == 0 and reader.only_b() == 0
    assert (cache.hits, cache.misses) == (hits + 2, misses)
    p.chain.set_storage(reader, 0, 5)  # a: read by both() alone
    assert reader.both() == 5 and reader.only_b() == 0
    assert (cache.hits, cache.misses) == (hits + 3, misses + 1)
    with p.chain.anchor():
        p.chain.set_storage(reader, 1, 2)
        assert reader.both() == 7 and reader.only_b() == 6
    assert reader.both() == 5 and reader.only_b() == 0  # the values read are back: the kept answers hold
    p.chain.set_code(reader, p.Token)  # new code where the calls ran: none of them holds
    with reverts():
        reader.both()


def test_the_checked_backend_writes_both_and_reports_no_difference(chain_root: Path):
    p = Project(Config(root=chain_root, project=ProjectConfig(contracts="contracts"), backend=BackendConfig(check=True)))
    token = p.Token.deploy("T", "T", 18, 1000)
    deal(token, p.accounts[2], 42, adjust_total_supply=True)
    p.chain.set_code("0x" + "cd" * 20, token)
    p.chain.set_balance(p.accounts[2], 1)
    token.transfer(p.accounts[3], 2, {"from": p.accounts[2]})
    assert token.balanceOf(p.accounts[3]) == 2 and token.totalSupply() == 1042
    assert p.backend.divergence is None


def test_bad_arguments_say_what_is_expected(chain_root: Path):
    p = _project(chain_root, "pyevm")
    with pytest.raises(ContractError, match="chain.set_balance: expected an account, a contract or a 0x-prefixed 40-digit hex address"):
        p.chain.set_balance("nobody", 1)
    with pytest.raises(UsageError, match="chain.set_code: expected the code as bytes or hex"):
        p.chain.set_code(p.accounts[1], 12)


def test_each_write_is_told_to_whoever_records_calls_as_the_line_that_makes_it(chain_root: Path):
    p = _project(chain_root, "pyevm")
    token = p.Token.deploy("T", "T", 18, 1000)
    seen: list = []
    with calls.recording(seen.append):
        p.chain.set_balance(p.accounts[1], "1 gwei")
        p.chain.set_storage(token, 5, 3)
        p.chain.set_code(p.accounts[2], b"\x00")
        deal(token, p.accounts[1], 8, adjust_total_supply=True)
        p.chain.sleep(5)
        p.chain.mine(2)
        now = p.chain.time()
        p.chain.warp(now + 10)
        p.chain.roll(p.chain.height + 1)
        assert p.chain.get_storage(token, 5) == 11  # a read is not a write: not told
    names = Names(p)
    shown = [chain_text(r, names) for r in seen]
    assert shown == [
        "chain.set_balance(accounts[1], 1000000000)",
        "chain.set_storage(<Token " + token.address + ">, 5, 3)",
        "chain.set_code(accounts[2], <1 bytes of code, keccak 0xbc36789e>)",
        "chain.deal(<Token " + token.address + ">, accounts[1], 8, True)",
        "chain.sleep(5)",
        "chain.mine(2)",
        f"chain.warp({now + 10})",
        f"chain.roll({p.chain.height})",
    ]
