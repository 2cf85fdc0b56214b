"""The revm backend over a forked chain: the fork's accounts and slots seeded into revm as they are first read.

revm's database here holds only what was put into it, so a call is run, the accounts and slots
it loaded are read from the journal, and those never seeded are fetched (one batch, through
ForkSource), seeded and the call run again, until it loads nothing new; most calls load nothing
new after the first few. Seeding writes the fork's value below the undo log (a snapshot's revert
never takes it back: it is the chain's state at the block), and the mirror in Python with it.
pyrevm's own fork mode (EVM(fork_url=...)) is not used: its requests would bypass the cache
folder and the request count.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from eth_utils import keccak

from .. import revm as revm_backend
from ..base import ChainSpec, ExecResult
from ..pyevm import PyEVMBackend
from ..revm import EMPTY_CODE_HASH, RevmBackend
from .pyevm import ForkedPyEVMBackend
from .store import source_for

# a call that keeps loading new state is run at most this many times (each round seeds all it loaded)
MAX_ROUNDS = 64


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
        """Put the fork's state of these accounts into revm and the mirror, where not done yet."""
        new = [a for a in dict.fromkeys(addresses) if a not in self._seeded]
        if not new:
            return
        accounts = self.fork.accounts(new)
        pyrevm = revm_backend.pyrevm
        for address in new:
            self._seeded.add(address)
            balance, nonce, code = accounts[address]
            if not (balance or nonce or code):
                continue
            code_hash = keccak(code) if code else EMPTY_CODE_HASH
            self._info[address] = [balance, nonce, code_hash]
            kwargs: dict[str, Any] = {"balance": balance, "nonce": nonce, "code_hash": code_hash}
            if code:
                self._code[address] = code
                if code_hash not in self._known_code:
                    kwargs["code"] = code
                    self._known_code.add(code_hash)
            self._evm.insert_account_info(self._h(address), pyrevm.AccountInfo(**kwargs))

    def seed_slots(self, pairs: list[tuple[bytes, int]]) -> None:
        """Put the fork's value of these slots into revm and the mirror, where not done yet."""
        new = [p for p in dict.fromkeys(pairs) if p not in self._seeded_slots and p[0] not in self._fresh]
        if not new:
            return
        self.seed([a for a, _ in new])
        values = self.fork.slots(new)
        evm = self._evm
        for (address, slot), value in values.items():
            self._seeded_slots.add((address, slot))
            if value:
                self._storage.setdefault(address, {})[slot] = value
                checkpoint = evm.snapshot()  # as _write_slot: the account must not stay loaded
                evm.insert_account_storage(self._h(address), slot, value)
                evm.revert(checkpoint)

    def _unseeded(self, journal: str) -> tuple[list[bytes], list[tuple[bytes, int]]]:
        """The accounts and slots the journal holds that were never seeded; accounts it created become fresh."""
        end = journal.rfind(", transient_storage: {")
        accounts: list[bytes] = []
        slots: list[tuple[bytes, int]] = []
        pos = 0
        while True:
            m = revm_backend._ACCOUNT.search(journal, pos, end)
            if m is None:
                return accounts, slots
            start = journal.find("storage: {", m.end(), end)
            status = revm_backend._STATUS.search(journal, start, end)
            assert start >= 0 and status is not None, "unexpected journal text from pyrevm"
            pos = status.end()
            address = bytes.fromhex(m.group(1))
            if address not in self._seeded:
                if "Created" in status.group(1):
                    continue  # seeded below once the call ran on what the fork holds
                accounts.append(address)
            if address in self._fresh:
                continue
            for slot, _, _ in revm_backend._SLOT.findall(journal, start, status.start()):
                if (address, int(slot)) not in self._seeded_slots:
                    slots.append((address, int(slot)))

    def _execute(self, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int, static: bool, gas_price: int | None) -> tuple[bool, bytes, Any, str | None]:
        evm = self._evm
        self.seed([sender] if to is None else [sender, to])
        for _ in range(MAX_ROUNDS):
            checkpoint = evm.snapshot()
            try:
                outcome = super()._execute(sender, to, data, value, gas, static, gas_price)
            except BaseException:
                evm.revert(checkpoint)
                raise
            accounts, slots = self._unseeded(evm.journal_str)
            if not accounts and not slots:
                evm.commit()  # into the caller's checkpoint, which reverts it
                self._created(evm.journal_str)
                return outcome
            evm.revert(checkpoint)
            self.seed(accounts)
            self.seed_slots(slots)
        raise RuntimeError(f"a call on the forked chain kept loading new state after {MAX_ROUNDS} runs")

    def _created(self, journal: str) -> None:
        for m in revm_backend._ACCOUNT.finditer(journal, 0, journal.rfind(", transient_storage: {")):
            address = bytes.fromhex(m.group(1))
            if address not in self._seeded:
                status = revm_backend._STATUS.search(journal, m.end())
                if status is not None and "Created" in status.group(1):
                    self._seeded.add(address)
                    self._fresh.add(address)

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
