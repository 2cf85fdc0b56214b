"""Both backends over a chain anvil holds, forked at a pinned block: the state is the block's, and snapshots,
reverts, the call cache, time travel and chain control work over it as over a fresh chain."""

from __future__ import annotations

from pathlib import Path

import pytest

from evmstate.config import ForkConfig
from evmstate.errors import ContractError
from evmstate.contracts.project import Project
from evmstate.evm.fork.store import forget_sources, loopback_answers, requests_made

from ..conftest import BACKENDS, CHECK, backend_config, needs_revm
from .nodes import Anvil, rpc
from .project import Forked, make_project

pytestmark = pytest.mark.processes

WITH_CHECK = [*BACKENDS, CHECK]


def forked_project(forked: Forked, url: str, block: int, backend: str) -> Project:
    return Project.load(forked.root, fork=ForkConfig(url=url, block=block), backend=backend_config(backend))


@pytest.fixture()
def forked(tmp_path: Path, anvil: Anvil) -> Forked:
    return make_project(tmp_path / "project", anvil)


@pytest.mark.parametrize("backend", WITH_CHECK)
def test_the_state_and_block_are_the_pinned_blocks(forked: Forked, anvil: Anvil, backend: str) -> None:
    project = forked_project(forked, anvil.url, forked.pinned, backend)
    limits = project.containers["Limits"].at(forked.address)
    assert limits.limit() == 1500 and limits.total() == 0
    assert limits.owner().lower() == anvil.account
    block = rpc(anvil.url, "eth_getBlockByNumber", hex(forked.pinned), False)
    assert project.chain.height == forked.pinned and project.chain.time() == int(block["timestamp"], 16)
    assert project.chain.id == 31337
    # the owner's balance is the node's at that block (a later block has paid for more gas)
    assert project.backend.get_balance(bytes.fromhex(anvil.account[2:])) == int(rpc(anvil.url, "eth_getBalance", anvil.account, hex(forked.pinned)), 16)
    later = forked_project(forked, anvil.url, forked.later, backend)
    assert later.containers["Limits"].at(forked.address).limit() == 10**18


@pytest.mark.parametrize("backend", WITH_CHECK)
def test_snapshots_cache_time_and_chain_control_over_forked_state(forked: Forked, anvil: Anvil, backend: str) -> None:
    project = forked_project(forked, anvil.url, forked.pinned, backend)
    chain, accounts = project.chain, project.accounts
    limits = project.containers["Limits"].at(forked.address)
    assert limits.safe() is True
    snapshot = chain.snapshot()
    limits.add(1000, {"from": accounts[0]})
    limits.add(600, {"from": accounts[1]})
    assert limits.total() == 1600 and limits.safe() is False  # the call cache saw the write
    limits.set_limit(0, {"from": anvil.account})  # the forked owner, impersonated
    chain.set_storage(forked.address, 1, 0)  # total back to zero: written as zero, not the fork's value
    assert limits.limit() == 0 and limits.total() == 0 and limits.safe() is True
    chain.sleep(7 * 86400)
    chain.mine(5)
    assert chain.height == forked.pinned + 5 and limits.limit() == 0
    chain.revert(snapshot)
    assert limits.limit() == 1500 and limits.total() == 0 and chain.height == forked.pinned
    with chain.anchor():
        chain.set_balance(anvil.account, 0)
        assert project.backend.get_balance(bytes.fromhex(anvil.account[2:])) == 0
    assert project.backend.get_balance(bytes.fromhex(anvil.account[2:])) > 0
    if backend == "check":
        assert project.backend.divergence is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_process_reads_the_cache_folder_not_the_node(forked: Forked, anvil: Anvil, backend: str) -> None:
    """The cache on disk is enough: with the node stopped (any request would fail), a new source, as in a worker or a later run, reads every value from it."""
    project = forked_project(forked, anvil.url, forked.pinned, backend)
    limits = project.containers["Limits"].at(forked.address)
    before = (limits.limit(), limits.total(), limits.owner(), limits.safe())
    anvil.stop()
    forget_sources()  # as a fresh process would start
    again = forked_project(forked, anvil.url, forked.pinned, backend)
    again_limits = again.containers["Limits"].at(forked.address)
    assert (again_limits.limit(), again_limits.total(), again_limits.owner(), again_limits.safe()) == before
    assert requests_made() == 0


@needs_revm
def test_revm_starts_with_the_cache_in_its_own_database(forked: Forked, anvil: Anvil) -> None:
    """A new revm backend over a cache that holds what its calls read asks its loopback node nothing (the cache was loaded into revm's
    database), and snapshots, reverts, writes by the forked owner and a contract created here behave as they do over the node."""
    backend = "revm"
    project = forked_project(forked, anvil.url, forked.pinned, backend)
    limits = project.containers["Limits"].at(forked.address)
    limits.add(1000, {"from": project.accounts[0]})
    assert limits.safe() is True and limits.owner().lower() == anvil.account
    limits.set_limit(1500, {"from": anvil.account})
    made = project.containers["Limits"].deploy({"from": project.accounts[1]})
    assert made.limit() == 0 and made.owner() == project.accounts[1]
    assert loopback_answers() > 0  # this first backend's revm read the fork through its loopback node
    anvil.stop()  # from here on, any request to the node fails
    forget_sources()
    again = forked_project(forked, anvil.url, forked.pinned, backend)
    chain, limits = again.chain, again.containers["Limits"].at(forked.address)
    snapshot = chain.snapshot()
    limits.add(1000, {"from": again.accounts[0]})
    limits.add(600, {"from": again.accounts[0]})
    assert limits.total() == 1600 and limits.safe() is False
    limits.set_limit(2000, {"from": anvil.account})  # the forked owner, impersonated
    assert limits.limit() == 2000 and limits.safe() is True
    chain.revert(snapshot)
    assert limits.limit() == 1500 and limits.total() == 0 and limits.owner().lower() == anvil.account
    assert loopback_answers() == 0 and requests_made() == 0
    # a contract created where the first run created one: that address was empty at the block, its storage is all zero
    made = again.containers["Limits"].deploy({"from": again.accounts[1]})
    assert made.owner() == again.accounts[1] and made.total() == 0
    made.add(5, {"from": again.accounts[1]})
    assert made.total() == 5 and requests_made() == 0


@pytest.mark.parametrize("backend", WITH_CHECK)
def test_impersonated_accounts_and_contracts_send_over_the_fork(forked: Forked, anvil: Anvil, backend: str) -> None:
    """Any address of the forked chain sends: its owner by accounts.at(address, force=True), with the fork's balance; a contract
    deployed there from its own address (revm refuses senders with code unaided); Name.at() on an empty address says which block."""
    project = forked_project(forked, anvil.url, forked.pinned, backend)
    limits = project.containers["Limits"].at(forked.address)
    owner = project.accounts.at(anvil.account, force=True)
    assert owner.balance() == int(rpc(anvil.url, "eth_getBalance", anvil.account, hex(forked.pinned)), 16) > 0
    limits.set_limit(7, {"from": owner})
    assert limits.limit() == 7
    owner.transfer(project.accounts[1], 1)  # a plain transfer, without a key
    limits.add(5, {"from": limits})  # the contract itself as the sender
    assert limits.total() == 5
    with pytest.raises(ContractError, match=rf"there is no code at that address at block {forked.pinned} of the forked chain \(chain id 31337, forked at block {forked.pinned}\)"):
        project.containers["Limits"].at("0x" + "5e" * 20)
    if backend == "check":
        assert project.backend.divergence is None
