"""Each backend: gas as py-evm's own chain charges it, value, nonces, reverts and time, and snapshots (and kept states) that
restore everything."""

from __future__ import annotations

from typing import Any

import pytest
from eth.chains.base import MiningChain
from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.db.atomic import AtomicDB
from eth.vm.forks import PragueVM
from eth_keys import keys
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from evmstate import Project
from evmstate.config import Config, ProjectConfig
from evmstate.evm.base import Backend
from evmstate.evm.pyevm.backend import PyEVMBackend

from ..conftest import BACKENDS, backend_config


@pytest.fixture(params=BACKENDS)
def project(request: pytest.FixtureRequest, contracts_root) -> Project:
    """A fresh chain over the test contracts on each backend (what revm alone does: test_revm.py)."""
    return Project(Config(root=contracts_root, project=ProjectConfig(contracts="contracts"), backend=backend_config(request.param)))


def test_the_py_evm_backend_implements_the_interface():
    assert isinstance(PyEVMBackend(accounts=1), Backend)


class ChainReference:
    """py-evm's own transaction path (signed, mined) for the same accounts: the gas oracle."""

    def __init__(self, backend: PyEVMBackend) -> None:
        chain_class = MiningChain.configure(__name__="Ref", vm_configuration=((0, PragueVM),), chain_id=backend.chain_id)
        genesis = {"difficulty": 0, "nonce": b"\0" * 8, "gas_limit": 30_000_000, "timestamp": 1_700_000_000, "coinbase": b"\0" * 20, "base_fee_per_gas": 0}
        state = {addr: {"balance": 10**20, "nonce": 0, "code": b"", "storage": {}} for _, addr in backend.account_keys}
        self.chain = chain_class.from_genesis(AtomicDB(), genesis, state)
        self.keys = {addr: keys.PrivateKey(priv) for priv, addr in backend.account_keys}
        self.nonces = {addr: 0 for addr in self.keys}
        self.used = 0

    def send(self, sender: bytes, to: bytes | None, data: bytes, value: int = 0):
        vm = self.chain.get_vm()
        tx = vm.create_unsigned_transaction(
            nonce=self.nonces[sender], gas_price=0, gas=5_000_000, to=to or CREATE_CONTRACT_ADDRESS, value=value, data=data
        ).as_signed_transaction(self.keys[sender], chain_id=self.chain.chain_id)
        self.nonces[sender] += 1
        _, receipt, computation = self.chain.apply_transaction(tx)
        gas, self.used = receipt.gas_used - self.used, receipt.gas_used
        return gas, computation.is_success


def test_gas_matches_the_chains_transaction_path(project):
    """Deploys, cold and warm slots, zeroing refunds, reverts and value: the same gas as a mined chain."""
    backend = project.backend
    ref = ChainReference(backend)
    a = [addr for _, addr in backend.account_keys]
    token_c = project.containers["Token"]
    deploy_data = token_c.bytecode + bytes.fromhex(
        "0000000000000000000000000000000000000000000000000000000000000080"
        "00000000000000000000000000000000000000000000000000000000000000c0"
        "0000000000000000000000000000000000000000000000000000000000000012"
        "00000000000000000000000000000000000000000000d3c21bcecceda1000000"
        "0000000000000000000000000000000000000000000000000000000000000001"
        "5400000000000000000000000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000000000001"
        "5400000000000000000000000000000000000000000000000000000000000000"
    )
    ours = backend.transact(a[0], None, deploy_data)
    assert ours.success
    assert (ours.gas_used, True) == ref.send(a[0], None, deploy_data)
    token = token_c.at(ours.contract_address)
    vault_c = project.containers["Vault"]
    vault_deploy = backend.transact(a[0], None, vault_c.bytecode)
    assert (vault_deploy.gas_used, True) == ref.send(a[0], None, vault_c.bytecode)
    vault = vault_c.at(vault_deploy.contract_address)
    calls = [
        (a[0], token, token.transfer.encode_input(a[1], 10**18), 0),  # cold new slot
        (a[0], token, token.transfer.encode_input(a[1], 10**18), 0),  # existing slot
        (a[1], token, token.transfer.encode_input(a[2], 10**18), 0),
        (a[1], token, token.transfer.encode_input(a[2], 10**18), 0),  # zeroes a slot: refund
        (a[1], token, token.transfer.encode_input(a[2], 1), 0),  # reverts
        (a[0], token, token.approve.encode_input(a[3], 5), 0),
        (a[3], token, token.transferFrom.encode_input(a[0], a[4], 5), 0),
        (a[3], token, token.transfer.encode_input(a[3], 0), 0),
        (a[2], vault, vault.deposit.encode_input(0), 10**17),
        (a[2], vault, vault.withdraw.encode_input(), 0),
        (a[5], vault, vault.spin.encode_input(50), 0),
    ]
    for sender, contract, data, value in calls:
        result = backend.transact(sender, contract.raw_address, data, value)
        assert (result.gas_used, result.success) == ref.send(sender, contract.raw_address, data, value), data[:4].hex()


def test_value_nonce_and_revert_rollback(project):
    backend = project.backend
    a = project.accounts
    vault = project.Vault.deploy()
    before = (a[1].balance(), a[1].nonce)
    r = backend.transact(a[1].raw_address, vault.raw_address, vault.deposit.encode_input(10), 123)
    assert r.success and r.logs
    assert a[1].balance() == before[0] - 123 and a[1].nonce == before[1] + 1
    assert vault.balance() == 123
    r = backend.transact(a[1].raw_address, vault.raw_address, vault.only_owner.encode_input(), 0)
    assert not r.success and r.error == "revert" and r.output[:4] == bytes.fromhex("08c379a0")
    assert a[1].nonce == before[1] + 2, "a reverted transaction still uses its nonce"
    assert backend.logs[-1] is not None and len(backend.logs) == 1, "reverted logs are not kept"


def test_out_of_gas_is_reported(project):
    vault = project.Vault.deploy()
    r = project.backend.transact(project.accounts[0].raw_address, vault.raw_address, vault.spin.encode_input(10_000), 0, gas=100_000)
    assert not r.success and r.error != "revert" and r.gas_used == 100_000


def test_block_time_and_number_are_seen_by_contracts_and_reverted(project):
    chain = project.chain
    vault = project.Vault.deploy()
    t0, h0 = chain.time(), chain.height
    assert vault.now() == t0
    snap = chain.snapshot()
    chain.sleep(3600)
    chain.mine(5)
    assert vault.now() == t0 + 3600 and chain.height == h0 + 5
    vault.deposit(0, {"value": 1})
    assert vault.last_block() == h0 + 5
    chain.mine(1, timestamp=t0 + 7200)
    assert vault.now() == t0 + 7200
    chain.revert(snap)
    assert chain.time() == t0 and chain.height == h0 and vault.now() == t0 and vault.last_block() == 0


class SnapshotModel(RuleBasedStateMachine):
    """Random transactions, time moves, snapshots and reverts against a plain-dict record of state."""

    def __init__(self, project):
        super().__init__()
        self.p = project
        self.backend = project.backend
        self.base = self.backend.snapshot()
        self.backend.revert(self.base)
        self.token = project.Token.deploy("T", "T", 18, 10**24)
        self.vault = project.Vault.deploy()
        self.deployed = [self.token.raw_address, self.vault.raw_address]
        self.snaps: list[tuple[int, list[bytes], dict]] = []
        self.kept: list[tuple[Any, list[bytes], dict]] = []

    def observe(self) -> dict:
        b = self.backend
        addrs = [a.raw_address for a in self.p.accounts] + self.deployed
        return {
            "balances": {x: b.get_balance(x) for x in addrs},
            "nonces": {x: b.get_nonce(x) for x in addrs},
            "code": {x: b.get_code(x) for x in addrs},
            "storage": {(x, s): b.get_storage(x, s) for x in self.deployed for s in range(8)},
            "token": [self.token.balanceOf(a) for a in self.p.accounts],
            "locked": [self.vault.locked(a) for a in self.p.accounts],
            "logs": list(b.logs),
            "time": (b.timestamp, b.block_number),
        }

    @rule(i=st.integers(0, 9), j=st.integers(0, 9), amount=st.integers(0, 10**20))
    def transfer_token(self, i, j, amount):
        a = self.p.accounts
        self.backend.transact(a[0].raw_address, self.token.raw_address, self.token.transfer.encode_input(a[i], amount))
        self.backend.transact(a[i].raw_address, self.token.raw_address, self.token.transfer.encode_input(a[j], amount // 2))

    @rule(i=st.integers(0, 9), value=st.integers(1, 10**18), lock=st.integers(0, 100))
    def deposit(self, i, value, lock):
        self.backend.transact(self.p.accounts[i].raw_address, self.vault.raw_address, self.vault.deposit.encode_input(lock), value)

    @rule(i=st.integers(0, 9))
    def withdraw(self, i):
        self.backend.transact(self.p.accounts[i].raw_address, self.vault.raw_address, self.vault.withdraw.encode_input())

    @rule()
    def deploy(self):
        c = self.p.Depositer.deploy({"from": self.p.accounts[3]})
        self.deployed.append(c.raw_address)

    @rule(seconds=st.integers(0, 1000), blocks=st.integers(0, 3))
    def move_time(self, seconds, blocks):
        self.p.chain.sleep(seconds)
        self.p.chain.mine(blocks)

    @rule()
    def take_snapshot(self):
        self.snaps.append((self.backend.snapshot(), list(self.deployed), self.observe()))

    @precondition(lambda self: self.snaps)
    @rule(data=st.data())
    def revert(self, data):
        k = data.draw(st.integers(0, len(self.snaps) - 1))
        sid, deployed, seen = self.snaps[k]
        self.backend.revert(sid)
        self.deployed = deployed  # a contract deployed since is gone
        del self.snaps[k + 1 :]
        assert self.observe() == seen

    @rule()
    def keep(self):
        # carried on from the last one kept, which keep() does only while nothing was reverted since
        kept = self.backend.keep(self.base, after=self.kept[-1][0] if self.kept else None)
        self.kept.append((kept, list(self.deployed), self.observe()))

    @precondition(lambda self: self.kept)
    @rule(data=st.data())
    def restore(self, data):
        """A kept state comes back whatever was reverted or restored since, as often as asked."""
        kept, deployed, seen = data.draw(st.sampled_from(self.kept))
        self.backend.restore(kept)
        self.deployed = list(deployed)
        self.snaps.clear()  # restore() reverts to base first: the snapshots after it are gone
        assert self.observe() == seen

    def teardown(self):
        self.backend.revert(self.base)


def test_snapshots_restore_storage_balances_nonces_code_logs_and_time(project):
    base = project.backend.snapshot()
    first = None

    def factory():
        nonlocal first
        project.backend.revert(base)
        m = SnapshotModel(project)
        if first is None:
            first = m.observe()
        else:
            # each example starts from the same state: nothing leaks from the last one
            assert m.observe() == first
        return m

    run_state_machine_as_test(factory, settings=settings(max_examples=15, stateful_step_count=20))


def test_anchor_reverts_even_when_the_block_raises(project):
    a = project.accounts
    start = a[1].balance()
    with pytest.raises(RuntimeError):
        with project.chain.anchor():
            a[0].transfer(a[1], "1 ether")
            assert a[1].balance() == start + 10**18
            raise RuntimeError("boom")
    assert a[1].balance() == start
