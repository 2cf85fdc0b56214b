"""The revm backend over a forked chain: revm's own fork mode, pointed at a loopback node that answers from the fork cache.

pyrevm's EVM(fork_url=...) reads every account and slot it lacks from a node as the call runs,
reverted calls included (a reverted frame leaves no trace of what it read in the journal, so
nothing outside revm could fetch it beforehand). Its node is serve.py, in a process of its own,
which answers from the cache folder and asks the real node only what the folder lacks. The
backend's mirror of the state in Python is filled from the same cache as calls show what they
read: below the undo log, since a snapshot's revert never takes back the chain's state at the block.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from eth_utils import keccak

from .. import revm as revm_backend
from ..base import ChainSpec, ExecResult
from ..pyevm.backend import PyEVMBackend
from ..revm import EMPTY_CODE_HASH, RevmBackend
from ...errors import ForkUnavailable
from .pyevm import ForkedPyEVMBackend
from .store import source_for

# what the loopback node's errors start with (serve.py): a node that failed, or a value the cache lacks
MARK = "evmstate-fork: "
# in the journal's debug text: what follows an account's address, and one of its storage slots
ACCOUNT = ": Account { info: AccountInfo { balance: "
SLOT = re.compile(r"(\d+): StorageSlot \{")


class ForkedRevmBackend(RevmBackend):
    """A revm chain holding a forked chain's state at its pinned block, seeded as calls read it."""

    def __init__(self, spec: ChainSpec | None = None, **options: Any) -> None:
        spec = spec if spec is not None else ChainSpec(**options)
        assert spec.fork is not None, "a forked backend needs ChainSpec.fork"
        self.fork = source_for(spec.fork)
        self.header = self.fork.header()
        self._seeded: set[bytes] = set()  # addresses whose account is the fork's or was written here first
        self._seeded_slots: set[tuple[bytes, int]] = set()
        self._fresh: set[bytes] = set()  # accounts created here: every slot of theirs starts at zero
        self._seeded.update(address for _, address in revm_backend.account_keys(spec.accounts))
        super().__init__(dataclasses.replace(spec, chain_id=spec.fork.chain_id, timestamp=self.header.timestamp))
        pyrevm = revm_backend.pyrevm
        env = pyrevm.Env(cfg=pyrevm.CfgEnv(chain_id=self.chain_id))
        self._evm = pyrevm.EVM(env=env, fork_url=self.fork.proxy_url(), fork_block=str(self.header.number), gas_limit=self.gas_limit, spec_id=revm_backend.SPECS[self.evm_version])
        self._known_code.clear()
        for address, info in list(self._info.items()):  # the funded accounts, into the new EVM
            self._info.pop(address)
            self._write_info(address, info)
        self._set_block(self.header.timestamp, self.header.number)

    def _set_block(self, timestamp: int, number: int) -> None:
        header = self.header
        self._timestamp = timestamp
        self._number = number
        self._version += 1
        pyrevm = revm_backend.pyrevm
        self._evm.set_block_env(
            pyrevm.BlockEnv(
                number=number, timestamp=timestamp, coinbase=self._h(header.coinbase), difficulty=0, prevrandao=header.prevrandao, basefee=header.base_fee, gas_limit=self.gas_limit
            )
        )

    # -- seeding ------------------------------------------------------------

    def seed(self, addresses: list[bytes]) -> None:
        """Put the fork's state of these accounts into the mirror, where not done yet (revm reads them itself)."""
        new = [a for a in dict.fromkeys(addresses) if a not in self._seeded]
        if not new:
            return
        accounts = self.fork.accounts(new)
        for address in new:
            self._seeded.add(address)
            balance, nonce, code = accounts[address]
            if balance or nonce or code:
                self._info[address] = [balance, nonce, keccak(code) if code else EMPTY_CODE_HASH]
                if code:
                    self._code[address] = code

    def seed_slots(self, pairs: list[tuple[bytes, int]]) -> None:
        """Put the fork's value of these slots into the mirror, where not done yet."""
        new = [p for p in dict.fromkeys(pairs) if p not in self._seeded_slots and p[0] not in self._fresh]
        if not new:
            return
        self.seed([a for a, _ in new])
        for (address, slot), value in self.fork.slots(new).items():
            self._seeded_slots.add((address, slot))
            if value:
                self._storage.setdefault(address, {}).setdefault(slot, value)

    def _unseeded(self, journal: str) -> tuple[list[bytes], list[tuple[bytes, int]]]:
        """The accounts and slots the journal holds that were never seeded; the accounts it created become fresh (no fork state)."""
        accounts: list[bytes] = []
        slots: list[tuple[bytes, int]] = []
        seeded, seeded_slots, fresh = self._seeded, self._seeded_slots, self._fresh
        parts = journal[: journal.rfind(", transient_storage: {")].split(ACCOUNT)
        for before, part in zip(parts, parts[1:]):  # str operations only: this runs after every call
            address = bytes.fromhex(before[-40:])
            start = part.find("storage: {")
            end = part.find("}, status: AccountStatus(", start)
            if address not in seeded:
                if "Created" in part[end + 25 : part.find(")", end)]:  # created by this call: nothing of the fork's
                    seeded.add(address)
                    fresh.add(address)
                    continue
                accounts.append(address)
            if address not in fresh and part[start + 10] != "}":
                slots.extend(p for k in SLOT.findall(part, start, end) if (p := (address, int(k))) not in seeded_slots)
        return accounts, slots

    def _execute(self, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int, static: bool, gas_price: int | None) -> tuple[bool, bytes, Any, str | None]:
        self.seed([sender] if to is None else [sender, to])
        try:
            outcome = super()._execute(sender, to, data, value, gas, static, gas_price)
        except RuntimeError as exc:
            text = str(exc)
            if MARK in text:
                raise ForkUnavailable(text[text.index(MARK) + len(MARK) :].split('"', 1)[0].rstrip("\\")) from None
            raise
        accounts, slots = self._unseeded(self._evm.journal_str)
        self.seed(accounts)
        self.seed_slots(slots)
        return outcome

    # -- reads and writes from above see the fork's state ----------------------

    def get_balance(self, address: bytes) -> int:
        self.seed([address])
        return super().get_balance(address)

    def get_nonce(self, address: bytes) -> int:
        self.seed([address])
        return super().get_nonce(address)

    def get_code(self, address: bytes) -> bytes:
        self.seed([address])
        return super().get_code(address)

    def get_storage(self, address: bytes, slot: int) -> int:
        self.seed_slots([(address, slot)])
        return super().get_storage(address, slot)

    def set_balance(self, address: bytes, value: int) -> None:
        self.seed([address])
        super().set_balance(address, value)

    def set_code(self, address: bytes, code: bytes) -> None:
        self.seed([address])
        super().set_code(address, code)

    def set_storage(self, address: bytes, slot: int, value: int) -> None:
        self.seed_slots([(address, slot)])
        super().set_storage(address, slot, value)

    def transact(self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None) -> ExecResult:
        self.seed([sender] if to is None else [sender, to])
        return super().transact(sender, to, data, value, gas)

    def call(self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False) -> ExecResult:
        self.seed([sender, to])
        return super().call(sender, to, data, value, gas, static)

    def py_evm(self) -> PyEVMBackend:
        """The forked py-evm chain that explains failures, holding what revm holds now."""
        if self._shadow is None:
            self._shadow = ForkedPyEVMBackend(dataclasses.replace(self.spec, call_cache="off"))
            self._shadow.load_state(self.state(), timestamp=self._timestamp, block_number=self._number)
            self._shadow_dirty = set()
        return super().py_evm()
