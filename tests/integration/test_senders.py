"""Who may send and what an address holds: a contract's own address as a sender (revm refuses it unaided, EIP-3607),
an account for any address (accounts.at), and Name.at() on an address without code; on py-evm, revm and both in lockstep."""

from __future__ import annotations

from pathlib import Path

import pytest
from eth_utils import keccak

from evmstate import Project, reverts
from evmstate.config import Config, ProjectConfig
from evmstate.errors import ContractError, TransactionReverted, UsageError

from ..conftest import BACKENDS, CHECK, backend_config

# "check" runs revm and py-evm side by side and keeps the first call on which they differ
WITH_CHECK = [*BACKENDS, CHECK]

# an actor contract: the harness sends from its address; the pool calls it back, and its callback creates a contract
ACTOR = """# pragma version ~=0.4.3
pinged: public(uint256)
made: public(address)


@external
@payable
def ping():
    self.pinged += 1
    self.made = create_minimal_proxy_to(self)


@external
@payable
def __default__():
    pass
"""

POOL = """# pragma version ~=0.4.3
interface Actor:
    def ping(): payable

last: public(address)
code_size: public(uint256)


@external
@payable
def hit(back: uint256):
    self.last = msg.sender
    self.code_size = msg.sender.codesize
    extcall Actor(msg.sender).ping(value=back)


@external
def refuse():
    raise "pool closed"


@external
@view
def who() -> address:
    return msg.sender
"""

# code that reads a code hash (EXTCODEHASH): the one thing revm's way of letting a contract send would show
HASHER = """# pragma version ~=0.4.3
seen: public(bytes32)


@external
@view
def hash_of(a: address) -> bytes32:
    return a.codehash


@external
def note_sender():
    self.seen = msg.sender.codehash
"""


@pytest.fixture(scope="module")
def senders_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("senders")
    (root / "contracts").mkdir()
    for name, source in (("Actor", ACTOR), ("Pool", POOL), ("Hasher", HASHER)):
        (root / "contracts" / f"{name}.vy").write_text(source)
    return root


def _project(root: Path, backend: str) -> Project:
    return Project(Config(root=root, project=ProjectConfig(contracts="contracts"), backend=backend_config(backend)))


@pytest.mark.parametrize("backend", WITH_CHECK)
def test_a_contract_sends_transactions_calls_and_deployments(senders_root: Path, backend: str):
    p = _project(senders_root, backend)
    actor, pool = p.Actor.deploy(), p.Pool.deploy()
    p.chain.set_balance(actor, "1 ether")
    nonce = p.accounts.at(actor).nonce
    tx = pool.hit(5, {"from": actor, "value": 7})
    assert tx.sender == actor
    assert pool.last() == actor.address and pool.code_size() == len(p.backend.get_code(actor.raw_address)) > 0
    # the pool called the sender back: its code ran, and the contract it created is where its nonce (bumped first) puts it
    assert actor.pinged() == 1
    made = actor.made()
    assert p.backend.get_code(bytes.fromhex(made[2:]))
    assert p.accounts.at(actor).nonce == nonce + 2  # the transaction's, then the creation's
    assert actor.balance() == 10**18 - 7 + 5
    assert pool.who({"from": actor}) == actor.address
    with reverts("pool closed"):
        pool.refuse({"from": actor})
    assert p.accounts.at(actor).nonce == nonce + 3  # a reverted transaction still takes its nonce
    child = p.Pool.deploy({"from": actor})
    expected = keccak(bytes([0xD6, 0x94]) + actor.raw_address + bytes([nonce + 3]))[12:]
    assert child.raw_address == expected
    assert p.backend.divergence is None


@pytest.mark.parametrize("backend", WITH_CHECK)
def test_code_that_reads_a_contract_senders_code_hash_sees_its_own(senders_root: Path, backend: str):
    p = _project(senders_root, backend)
    actor, hasher = p.Actor.deploy(), p.Hasher.deploy()
    own = keccak(p.backend.get_code(actor.raw_address))
    hasher.note_sender({"from": actor})
    assert hasher.seen() == own
    assert hasher.hash_of(actor, {"from": actor}) == own
    # and after it, the sender's account is as it was: its hash read by anyone
    assert hasher.hash_of(actor) == own and keccak(p.backend.get_code(actor.raw_address)) == own
    assert p.backend.divergence is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_accounts_at_gives_an_account_for_any_address(senders_root: Path, backend: str):
    p = _project(senders_root, backend)
    accounts, pool = p.accounts, p.Pool.deploy()
    assert accounts.at(accounts[3].address) is accounts[3]
    whale = accounts.at("0x" + "7a" * 20)
    assert whale.index == -1 and whale.balance() == 0 and whale.address.lower() == "0x" + "7a" * 20
    p.chain.set_balance(whale, "3 ether")
    assert whale.balance() == 3 * 10**18  # the balance the chain holds for the address
    whale.transfer(accounts[1], "1 ether")
    assert whale.balance() == 2 * 10**18 and whale.nonce == 1
    assert pool.who({"from": whale}) == whale.address
    # Brownie's spelling, accepted as it is; a contract's address is an account too
    assert accounts.at(pool.address, force=True) == pool.address
    assert accounts.at(pool).balance() == 0
    with pytest.raises(UsageError, match=r"sign_message: the private key of 0x(?:7[aA]){20} is not known, so it cannot sign: .*accounts\.at\(address\)"):
        whale.sign_message(b"hi")
    with pytest.raises(UsageError, match="accounts.at: force must be True or False, got 'yes'"):
        accounts.at(whale, force="yes")
    with pytest.raises(ContractError, match="accounts.at: expected an account, a contract or a 0x-prefixed 40-digit hex address, got 'whale'"):
        accounts.at("whale")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_sender_without_the_ether_it_sends_is_told_how_to_give_it_some(senders_root: Path, backend: str):
    p = _project(senders_root, backend)
    pool, poor = p.Pool.deploy(), "0x" + "3c" * 20
    told = (
        r"sender 0x(?:3c){20} has 0 wei, needs 10 for value and gas\. Give it ether first "
        r"\(chain\.set_balance\(\"0x(?:3c){20}\", \"1 ether\"\)\) or send from a funded account .*"
        r"strategy\(\"address\"\) also draws addresses the contracts produced, which hold no ether"
    )
    with pytest.raises(UsageError, match=told):
        pool.hit(0, {"from": poor, "value": 10})
    with pytest.raises(UsageError, match=told):
        p.accounts.at(poor).transfer(pool, 10)
    p.chain.set_balance(poor, 10)  # as the message says: then it sends
    p.accounts.at(poor).transfer(p.accounts[0], 10)
    # a funded account that spent its ether is named as one, not taken for an address strategy("address") drew
    spent = p.accounts[2]
    p.chain.set_balance(spent, 5)
    with pytest.raises(UsageError, match=r"sender accounts\[2\] \(0x[0-9a-f]{40}\) has 5 wei left, needs 10 for value and gas: the machine's earlier transactions spent") as told_funded:
        pool.hit(0, {"from": spent, "value": 10})
    assert "strategy(" not in str(told_funded.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_attaching_to_an_address_without_code_is_refused(senders_root: Path, backend: str):
    p = _project(senders_root, backend)
    empty = "0x" + "5e" * 20
    with pytest.raises(ContractError, match=r"Pool.at\(0x(?:5[eE]){20}\): there is no code at that address on this chain \(block 1\); deploy one with Pool.deploy\(...\)"):
        p.Pool.at(empty)
    with pytest.raises(ContractError, match="there is no code at that address"):
        p.Pool.at(p.accounts[2])  # an account is no contract
    p.chain.set_code(empty, p.Pool)
    assert p.Pool.at(empty).who() == p.accounts[0].address
    with pytest.raises(TransactionReverted):
        p.Pool.at(empty).refuse()
