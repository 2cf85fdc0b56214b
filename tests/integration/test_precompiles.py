"""Precompiles on the py-evm backend: snapshots revert around them, machines that use them run.

A call that reaches a precompile touches its (empty) account, which EIP-161 deletes at the end of
the transaction; two such transactions under one snapshot used to make py-evm refuse the revert.
"""

from __future__ import annotations

import dataclasses
import shutil
import textwrap
from pathlib import Path

import pytest

from evmstate import Project
from evmstate.config import Config, ProjectConfig

from ..cli.helpers import invoke
from ..conftest import needs_revm

POKE = """
n: public(uint256)
ok: public(bool)
out: public(Bytes[512])

@external
def poke(target: address, data: Bytes[512]):
    self.n += 1
    success: bool = False
    response: Bytes[512] = b""
    success, response = raw_call(target, data, max_outsize=512, revert_on_failure=False)
    self.ok = success
    self.out = response
"""

# An input each precompile accepts (all zeros, of the length it asks for), so that the call succeeds
# and the precompile's account is touched and then deleted as empty.
VALID_INPUTS = {
    0x01: b"\0" * 128,  # ecrecover: no signer, empty output
    0x02: b"abc",  # sha256
    0x03: b"abc",  # ripemd160
    0x04: b"abc",  # identity
    0x05: (1).to_bytes(32, "big") * 3 + b"\x02\x03\x05",  # modexp: 2**3 % 5
    0x06: b"\0" * 128,  # bn256 add of two points at infinity
    0x07: b"\0" * 96,  # bn256 mul
    0x08: b"",  # bn256 pairing of nothing: true
    0x09: b"\0" * 212 + b"\x01",  # blake2f, 0 rounds, final block
    0x0B: b"\0" * 256,  # BLS12-381 G1 add (Prague)
    0x0C: b"\0" * 160,  # G1 multi-scalar multiplication
    0x0D: b"\0" * 512,  # G2 add
    0x0E: b"\0" * 288,  # G2 multi-scalar multiplication
    0x0F: b"\0" * 384,  # pairing check
    0x10: b"\0" * 64,  # map field element to G1
    0x11: b"\0" * 128,  # map field element to G2
}
# the KZG point evaluation (0x0a) takes a valid proof only; a failing call is tested with it


def _project(tmp_path: Path, evm_version: str) -> Project:
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "Poke.vy").write_text(POKE)
    config = Config(root=tmp_path, project=ProjectConfig(contracts="contracts"))
    return Project(config.replace(compiler=dataclasses.replace(config.compiler, evm_version=evm_version)))


@pytest.mark.parametrize("evm_version, last", [("cancun", 0x0A), ("prague", 0x11)])
def test_snapshot_and_revert_around_every_precompile(tmp_path, evm_version, last):
    project = _project(tmp_path, evm_version)
    sender = project.accounts[0]
    poke = project.Poke.deploy({"from": sender})
    backend = project.backend
    before = (backend.get_storage(poke.raw_address, 0), sender.balance(), sender.nonce)
    base = backend.snapshot()
    for _ in range(2):  # the same snapshot, reverted to again and again
        for address in range(1, last + 1):
            data = VALID_INPUTS.get(address, b"")
            target = "0x" + address.to_bytes(20, "big").hex()
            inner = backend.snapshot()
            for _ in range(2):  # two transactions touching the precompile under one snapshot
                poke.poke(target, data, {"from": sender})
                assert poke.ok() == (address in VALID_INPUTS), f"precompile {address:#x}"
            backend.revert(inner)
            backend.release(inner)
            poke.poke(target, data, {"from": sender})
        assert poke.n() == last
        backend.revert(base)
        assert (backend.get_storage(poke.raw_address, 0), sender.balance(), sender.nonce) == before
        assert poke.n() == 0 and poke.out() == b""


def test_precompile_touched_directly_by_transactions_reverts(tmp_path):
    project = _project(tmp_path, "prague")
    a = project.accounts
    base = project.backend.snapshot()
    start = a[0].balance()
    for _ in range(3):
        for address in (1, 2, 4, 9):
            target = address.to_bytes(20, "big")
            r = project.backend.transact(a[0].raw_address, target, VALID_INPUTS[address], 0)
            assert r.success
        project.backend.revert(base)
        assert a[0].balance() == start and a[0].nonce == 0


SHA_MACHINE = """
from evmstate import strategy


class HashMachine:
    x = strategy("uint256")

    def __init__(cls, accounts, Hasher):
        cls.c = Hasher.deploy({"from": accounts[0]})

    def rule_h(self, x):
        self.c.h(x)

    def invariant_nonzero_after_a_call(self):
        assert self.c.calls() == 0 or self.c.last() != b"\\0" * 32
"""

HASHER = """
last: public(bytes32)
calls: public(uint256)

@external
def h(x: uint256):
    self.last = sha256(convert(x, bytes32))
    self.calls += 1
"""

# vyper's own `wallet` example (examples/wallet/wallet.vy in the vyper repository, Apache-2.0),
# unchanged: owners sign the hash of the sequence number, target, value and data (EIP-191), and
# ecrecover checks each signature.
WALLET = """#pragma version >0.3.10

###########################################################################
## THIS IS EXAMPLE CODE, NOT MEANT TO BE USED IN PRODUCTION! CAVEAT EMPTOR!
###########################################################################

# An example of how you can implement a wallet in Vyper.

# A list of the owners addresses (there are a maximum of 5 owners)
owners: public(address[5])
# The number of owners required to approve a transaction
threshold: int128
# The number of transactions that have been approved
seq: public(int128)


@deploy
def __init__(_owners: address[5], _threshold: int128):
    for i: uint256 in range(5):
        if _owners[i] != empty(address):
            self.owners[i] = _owners[i]
    self.threshold = _threshold


@external
def testEcrecover(h: bytes32, v:uint8, r:bytes32, s:bytes32) -> address:
    return ecrecover(h, v, r, s)


# `@payable` allows functions to receive ether
@external
@payable
def approve(_seq: int128, to: address, _value: uint256, data: Bytes[4096], sigdata: uint256[3][5]) -> Bytes[4096]:
    # Throws if the value sent to the contract is less than the sum of the value to be sent
    assert msg.value >= _value
    # Every time the number of approvals starts at 0 (multiple signatures can be added through the sigdata argument)
    approvals: int128 = 0
    # Starts by combining:
    # 1) The number of transactions approved thus far.
    # 2) The address the transaction is going to be sent to (can be a contract or a user).
    # 3) The value in wei that will be sent with this transaction.
    # 4) The data to be sent with this transaction (usually data is used to deploy contracts or to call functions on contracts, but you can put whatever you want in it).
    # Takes the keccak256 hash of the combination
    h: bytes32 = keccak256(concat(convert(_seq, bytes32), convert(to, bytes32), convert(_value, bytes32), data))
    # Then we combine the Ethereum Signed message with our previous hash
    # Owners will have to sign the below message
    h2: bytes32 = keccak256(concat(b"\\x19Ethereum Signed Message:\\n32", h))
    # Verifies that the caller of approve has entered the correct transaction number
    assert self.seq == _seq
    # # Iterates through all the owners and verifies that there signatures,
    # # given as the sigdata argument are correct
    for i: uint256 in range(5):
        if sigdata[i][0] != 0:
            # If an invalid signature is given for an owner then the contract throws
            assert ecrecover(h2, sigdata[i][0], sigdata[i][1], sigdata[i][2]) == self.owners[i]
            # ecrecover handles multiple types
            assert ecrecover(h2, convert(sigdata[i][0], uint8), convert(sigdata[i][1], bytes32), convert(sigdata[i][2], bytes32)) == self.owners[i]
            # For every valid signature increase the number of approvals by 1
            approvals += 1
    # Throw if the number of approvals is less then the number of approvals required (the threshold)
    assert approvals >= self.threshold
    # The transaction has been approved
    # Increase the number of approved transactions by 1
    self.seq += 1
    # Use raw_call to send the transaction
    return raw_call(to, data, max_outsize=4096, gas=3000000, value=_value)


@external
@payable
def __default__():
    pass
"""

WALLET_MACHINE = """
from eth_utils import keccak

from evmstate import reverts, strategy


def digest(seq, to, value, data):
    # keccak256(concat(convert(_seq, bytes32), convert(to, bytes32), convert(_value, bytes32), data)), as the wallet hashes
    return keccak(seq.to_bytes(32, "big", signed=True) + bytes(12) + bytes.fromhex(to.address[2:]) + value.to_bytes(32, "big") + data)


class WalletMachine:
    signers = strategy("uint8", max_value=31)  # a bit per owner: who signs
    amount = strategy("uint256", max_value=10**18)

    def __init__(cls, accounts, Wallet):
        cls.accounts = accounts
        cls.owners = list(accounts[1:6])
        cls.wallet = Wallet.deploy(cls.owners, 3, {"from": accounts[0]})
        accounts[0].transfer(cls.wallet, 10**19)

    def setup(self):
        self.seq = 0

    def rule_send(self, signers, amount):
        to = self.accounts[7]
        h = digest(self.seq, to, amount, b"")
        sigdata = []
        for i, owner in enumerate(self.owners):
            if signers >> i & 1:
                sig = owner.sign_message(h)
                sigdata.append([sig.v, sig.r, sig.s])
            else:
                sigdata.append([0, 0, 0])
        if bin(signers).count("1") >= 3:
            before = to.balance()
            self.wallet.approve(self.seq, to, amount, b"", sigdata, {"from": self.accounts[0], "value": amount})
            assert to.balance() == before + amount
            self.seq += 1
        else:
            with reverts():
                self.wallet.approve(self.seq, to, amount, b"", sigdata, {"from": self.accounts[0], "value": amount})

    def invariant_seq(self):
        assert self.wallet.seq() == self.seq
"""


@pytest.fixture(scope="module")
def signing_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The signing project, compiled once for the module (a copy finds its builds)."""
    root = tmp_path_factory.mktemp("signing")
    (root / "contracts").mkdir()
    (root / "machines").mkdir()
    (root / "contracts" / "Hasher.vy").write_text(HASHER)
    (root / "contracts" / "Wallet.vy").write_text(WALLET)
    (root / "machines" / "hashing.py").write_text(SHA_MACHINE)
    (root / "machines" / "wallet.py").write_text(WALLET_MACHINE)
    (root / "evmstate.toml").write_text('[compiler]\nevm_version = "prague"\n\n[hypothesis]\nmax_examples = 8\nstateful_step_count = 10\n')
    Project.load(root)
    return root


@pytest.fixture()
def signing_project(signing_source, tmp_path, monkeypatch, cli_env: dict[str, str]) -> Path:
    root = shutil.copytree(signing_source, tmp_path / "signing")
    monkeypatch.chdir(root)
    return root


def test_machines_calling_sha256_and_ecrecover_run_on_py_evm_with_coverage(signing_project):
    code, out = invoke("run", "--seed", "1", "--coverage")
    assert code == 0, out
    assert "2 passed, 0 failed" in out
    assert "rule_send" in out and "rule_h" in out
    assert "Wallet" in out and "Hasher" in out


@needs_revm
def test_machines_calling_precompiles_run_with_the_backend_check(signing_project):
    code, out = invoke("run", "--seed", "1", "--backend-check")
    assert code == 0, out
    assert "2 passed, 0 failed" in out


BREAKS_THE_CHAIN = """
class BreakingMachine:
    def __init__(cls, accounts):
        cls.accounts = accounts

    def rule_break(self):
        # stands in for a failure inside evmstate's chain: the next run's revert raises
        def broken(snapshot_id):
            raise RuntimeError("the chain cannot revert")

        self.accounts[0]._backend.revert = broken


class ZFollowingMachine:
    def __init__(cls, accounts, Hasher):
        cls.c = Hasher.deploy({"from": accounts[0]})

    def rule_h(self):
        self.c.h(7)
"""


def test_a_crash_in_one_machine_does_not_stop_the_others_or_the_summary(signing_project):
    (signing_project / "machines" / "breaking.py").write_text(textwrap.dedent(BREAKS_THE_CHAIN))
    code, out = invoke("run", "machines/breaking.py", "--seed", "1")
    assert code == 3, out
    assert "ERROR machines/breaking.py::BreakingMachine" in out
    assert "internal error in evmstate while running machines/breaking.py::BreakingMachine" in out
    assert "RuntimeError: the chain cannot revert" in out
    assert "ZFollowingMachine" in out and "1 passed" in out
