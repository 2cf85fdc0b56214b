"""The revm backend over a forked chain: revm's own fork mode, pointed at a loopback node that answers from the fork
cache.

pyrevm's EVM(fork_url=...) reads every account and slot it lacks from a node as the call runs,
reverted calls included (a reverted frame leaves no trace of what it read in the journal, so
nothing outside revm could fetch it beforehand). Its node is serve.py, in a process of its own,
which answers from the cache folder and asks the real node only what the folder lacks.

At start-up, everything the cache folder holds goes into revm's own database, so that a run the
cache covers never waits on the loopback node, and into the backend's mirror of the state in
Python. What revm asks the loopback node for later is seeded into the mirror after the call that
asked, from the node's log of its answers (a call that asked nothing pays one fstat for this).
The mirror is seeded below the undo log: a snapshot's revert never takes back the chain's state
at the block. An empty account (no balance, nonce or code) has no storage: its slots, and those
of a contract created there, are never asked of the fork.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from eth_utils import keccak

from ..revm import backend as revm_backend
from ..base import ChainSpec, ExecResult
from ..pyevm.backend import PyEVMBackend
from ..revm.backend import EMPTY_CODE_HASH, RevmBackend
from ...errors import ForkUnavailable
from .pyevm import ForkedPyEVMBackend
from .store import source_for

# what the loopback node's errors start with (serve.py): a node that failed, or a value the cache lacks
MARK = "evmstate-fork: "


class ForkedRevmBackend(RevmBackend):
    """A revm chain holding a forked chain's state at its pinned block, seeded as calls read it."""

    def __init__(self, spec: ChainSpec | None = None, **options: Any) -> None:
        spec = spec if spec is not None else ChainSpec(**options)
        assert spec.fork is not None, "a forked backend needs ChainSpec.fork"
        self.fork = source_for(spec.fork)
        self.header = self.fork.header()
        self._seeded: set[bytes] = set()  # addresses whose account is the fork's or was written here first
        self._seeded_slots: set[tuple[bytes, int]] = set()
        # accounts empty at the block (contracts created here among them): every slot starts at zero
        self._fresh: set[bytes] = set()
        self._seeded.update(address for _, address in revm_backend.account_keys(spec.accounts))
        super().__init__(dataclasses.replace(spec, chain_id=spec.fork.chain_id, timestamp=self.header.timestamp))
        pyrevm = revm_backend.pyrevm
        env = pyrevm.Env(cfg=pyrevm.CfgEnv(chain_id=self.chain_id))
        self._evm = pyrevm.EVM(
            env=env, fork_url=self.fork.proxy_url(), fork_block=str(self.header.number), gas_limit=self.gas_limit,
            spec_id=revm_backend.SPECS[self.evm_version],
        )
        self._answered = self.fork.answered()[0]  # where this EVM's reads start in the loopback node's log
        self._known_code.clear()
        for address, info in list(self._info.items()):  # the funded accounts, into the new EVM
            self._info.pop(address)
            self._write_info(address, info)
        self._preload()
        self._set_block(self.header.timestamp, self.header.number)

    def _set_block(self, timestamp: int, number: int) -> None:
        header = self.header
        self._timestamp = timestamp
        self._number = number
        self._version += 1
        pyrevm = revm_backend.pyrevm
        self._evm.set_block_env(
            pyrevm.BlockEnv(
                number=number,
                timestamp=timestamp,
                coinbase=self._h(header.coinbase),
                difficulty=0,
                prevrandao=header.prevrandao,
                basefee=header.base_fee,
                gas_limit=self.gas_limit,
            )
        )

    # -- seeding ------------------------------------------------------------

    def _preload(self) -> None:
        """Put every account and slot the fork cache holds into revm's database and the mirror: revm asks the loopback
        node only for what the cache lacks.
        """
        accounts, slots = self.fork.everything()
        evm, account_info = self._evm, revm_backend.pyrevm.AccountInfo
        for address, (balance, nonce, code) in list(accounts.items()):
            if address in self._seeded:
                continue  # a funded account: evmstate's own
            h = self._h(address)
            self._seeded.add(address)
            if not (balance or nonce or code):
                self._fresh.add(address)
                evm.insert_account_info(h, account_info(balance=0, nonce=0, code_hash=EMPTY_CODE_HASH))
                continue
            code_hash = keccak(code) if code else EMPTY_CODE_HASH
            self._info[address] = [balance, nonce, code_hash]
            kwargs: dict[str, Any] = {"balance": balance, "nonce": nonce, "code_hash": code_hash}
            if code:
                self._code[address] = code
                if code_hash not in self._known_code:
                    kwargs["code"] = code
                    self._known_code.add(code_hash)
            evm.insert_account_info(h, account_info(**kwargs))
            for slot, value in list(slots.get(address, {}).items()):
                self._seeded_slots.add((address, slot))
                if value:
                    self._storage.setdefault(address, {})[slot] = value
                # into the database, the account's load undone (see RevmBackend._write_slot)
                checkpoint = evm.snapshot()
                evm.insert_account_storage(h, slot, value)
                evm.revert(checkpoint)

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
            else:
                self._fresh.add(address)

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

    def _execute(
        self,
        sender: bytes,
        to: bytes | None,
        data: bytes,
        value: int,
        gas: int,
        static: bool,
        gas_price: int | None,
        bump: int = 0,
    ) -> tuple[bool, bytes, Any, str | None]:
        seeded = self._seeded
        if sender not in seeded or (to is not None and to not in seeded):
            self.seed([sender] if to is None else [sender, to])
        try:
            outcome = super()._execute(sender, to, data, value, gas, static, gas_price, bump)
        except RuntimeError as exc:
            text = str(exc)
            if MARK in text:
                raise ForkUnavailable(text[text.index(MARK) + len(MARK) :].split('"', 1)[0].rstrip("\\")) from None
            raise
        self._seed_answered()
        return outcome

    def _seed_answered(self) -> None:
        """Seed what revm read from the loopback node since last time (a reverted frame's reads too): all else it holds
        is seeded already.
        """
        self._answered, keys = self.fork.answered(self._answered)
        if keys:
            self.seed([a for a, slot in keys if slot is None])
            self.seed_slots([(a, slot) for a, slot in keys if slot is not None])

    # -- reads and writes from above see the fork's state ----------------------

    # (the checks before seed() keep what a fresh chain does not pay to a set lookup: these run on every call)
    def get_balance(self, address: bytes) -> int:
        if address not in self._seeded:
            self.seed([address])
        return super().get_balance(address)

    def get_nonce(self, address: bytes) -> int:
        if address not in self._seeded:
            self.seed([address])
        return super().get_nonce(address)

    def get_code(self, address: bytes) -> bytes:
        if address not in self._seeded:
            self.seed([address])
        return super().get_code(address)

    def get_storage(self, address: bytes, slot: int) -> int:
        if (address, slot) not in self._seeded_slots and address not in self._fresh:
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

    def transact(
        self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None
    ) -> ExecResult:
        seeded = self._seeded
        if sender not in seeded or (to is not None and to not in seeded):
            self.seed([sender] if to is None else [sender, to])
        return super().transact(sender, to, data, value, gas)

    def call(
        self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False
    ) -> ExecResult:
        seeded = self._seeded
        if sender not in seeded or to not in seeded:
            self.seed([sender, to])
        return super().call(sender, to, data, value, gas, static)

    def py_evm(self) -> PyEVMBackend:
        """The forked py-evm chain that explains failures, holding what revm holds now."""
        if self._shadow is None:
            self._shadow = ForkedPyEVMBackend(dataclasses.replace(self.spec, call_cache="off"))
            self._shadow.load_state(self.state(), timestamp=self._timestamp, block_number=self._number)
            self._shadow_dirty = set()
        return super().py_evm()
