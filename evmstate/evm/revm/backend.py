"""The only module that imports pyrevm: a backend on revm (Rust), with py-evm's gas and outcomes.

pyrevm 0.3.7 never finalises a transaction: warm accounts and slots, and the SSTORE
"original" values, carry over from one call to the next inside its journal, so gas drifts
from what a chain charges. Every transaction therefore runs between a journal checkpoint and
its revert: run the call, read what it changed from the journal, revert (everything is cold
again), then write the changes into revm's database as plain values. Snapshots of this
backend are an undo log of those writes, kept here. A read at journal depth 0 would load an
account for good (warm in every later call), so views and state reads also run between a
checkpoint and its revert, and account state is read from a mirror kept in Python.

What revm 8 (pyrevm's engine) lacks, and what is done instead:
- Prague: revm runs Cancun rules. The EIP-7623 calldata floor is charged here; Prague's new
  precompiles (BLS12-381, EIP-2537) are missing.
- BASEFEE is always 0 (pyrevm sets it), where py-evm uses min(gas_price, 1 gwei) when a gas
  price is configured.
- BLOCKHASH returns revm's placeholder hashes, not py-evm's.
- No error pc and no per-opcode hooks: a failed call carries its revert data but not the
  source line that failed. The line, the failed check and the dev comment come from running
  the same call on py-evm when they are needed (RevmBackend.explainer), and a reported failure
  is replayed on py-evm as a whole. What py-evm's hooks record for the search (coverage, branch
  counts, comparison operands, the storage a call read and wrote) comes from running each call
  again where its path can be seen (sight.py), while the search asks for it. A jump recorder
  (every JUMPI in order, set_jump_recorder) is unavailable.
- No time limit: revm cannot be interrupted, so [fuzz] call_timeout does not apply; the gas
  cap ([fuzz] call_gas_limit) does, and revm burns 2**24 gas in well under a second.
- A sender with code: revm refuses it (EIP-3607), and pyrevm 0.3.7 cannot turn the check off
  (its CfgEnv has no disable_eip3607). The check reads the sender's code hash alone, and revm runs
  the code its account holds: inside the call's checkpoint the sender's account (loaded into the
  journal first, so that the revert drops the change) shows the empty hash with its code kept.
  Calls into the sender run its code; only EXTCODEHASH of it would answer otherwise, so a call
  that may run EXTCODEHASH runs on py-evm instead (shadow.py). Its nonce is bumped before its
  code runs, as py-evm does, so that a contract its code creates lands where py-evm puts it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable


from ..cache import BALANCE_OPCODES, BLOCK_OPCODES, CALL_OPCODES, Entry, ReadCache, compare, opcodes, replay_coverage
from ..cache import entry as cache_entry
from ..base import BlockTime, Capabilities, ChainSpec, ExecResult, FailedExtras, HooksNow, Log, SeenStorage
from ..base import account_keys, contract_address, intrinsic_gas
from .journal import EMPTY_CODE_HASH, FAILED, deployed, halt_message, loaded, read_changes
from .mirror import Mirror
from .shadow import Explaining
from .sight import Outcome, Seen, Sight
from ...errors import UsageError, short_of_ether

try:
    import pyrevm
except ImportError:  # pragma: no cover - depends on the environment
    pyrevm = None

INSTALL_HINT = 'pip install "evmstate[revm]" (pyrevm has wheels for CPython 3.10 to 3.12)'
# evm versions revm runs with py-evm's semantics; Prague runs as Cancun plus the calldata floor
SPECS = {"cancun": "CANCUN", "prague": "CANCUN"}
ZERO = b"\0" * 20


def available() -> bool:
    """Whether pyrevm is installed."""
    return pyrevm is not None


def require(evm_version: str | None = None) -> None:
    """Raise a UsageError saying how to install pyrevm when missing, or what to use where revm cannot run it."""
    if pyrevm is None:
        raise UsageError(
            f"the revm backend needs pyrevm, which is not installed: {INSTALL_HINT}; or use the default backend, pyevm"
        )
    if evm_version is not None and evm_version not in SPECS:
        raise UsageError(
            f"evm_version {evm_version!r} is not supported by the revm backend; use {' or '.join(SPECS)}, or the "
            "pyevm backend"
        )


class RevmBackend(Mirror, Explaining, BlockTime):
    """An in-process revm chain with the py-evm backend's interface, gas and outcomes."""

    # failed calls carry no frames (pcs): reported failures are replayed on py-evm for them; what
    # py-evm's hooks record (coverage, feedback, the storage a call read and wrote) comes from
    # running the call again where its path can be seen (sight.py)
    capabilities = Capabilities(
        frames=False, coverage=True, observer=True, time_limit=False, divergence=False, feedback=True, sampling=True,
        keeps=True,
    )

    def __init__(self, spec: ChainSpec | None = None, **options: Any) -> None:
        """A new chain as spec describes it (or ChainSpec(**options)): funded accounts, nothing deployed."""
        spec = spec if spec is not None else ChainSpec(**options)
        self.spec = spec
        evm_version, chain_id, gas_limit, gas_price, timestamp, balance = (
            spec.evm_version, spec.chain_id, spec.gas_limit, spec.gas_price, spec.timestamp, spec.balance,
        )
        require(evm_version)
        self.chain_id = chain_id
        self.gas_limit = gas_limit
        self.call_gas_limit = min(spec.call_gas_limit, gas_limit)
        # revm cannot be stopped mid-call: there is no time limit, only the gas cap
        self.call_timeout: float | None = None
        self.configured_call_timeout = spec.call_timeout or None
        self.gas_price = gas_price
        self.evm_version = evm_version
        self.account_keys = account_keys(spec.accounts)
        env = pyrevm.Env(cfg=pyrevm.CfgEnv(chain_id=chain_id))
        self._evm = pyrevm.EVM(env=env, gas_limit=gas_limit, spec_id=SPECS[evm_version])
        self._hex: dict[bytes, str] = {}
        # the world state, mirrored: address -> [balance, nonce, code hash]; code; storage
        self._info: dict[bytes, list[Any]] = {}
        self._code: dict[bytes, bytes] = {}
        self._storage: dict[bytes, dict[int, int]] = {}
        self._known_code: set[bytes] = set()  # code hashes revm's database holds the code of
        # undo log: ("a", address, old info or None, old code) and ("s", address, slot, old value)
        self._undo: list[tuple[Any, ...]] = []
        self._logs: list[Log] = []
        self._init_snapshots()
        self._version = 0  # changes whenever the state or the block does
        self._shadow: Any = None  # a py-evm backend that explains failures
        # (address, slot or None) changed since the shadow was written
        self._shadow_dirty: set[tuple[bytes, int | None]] | None = None
        self._explained: dict[tuple[Any, ...], Entry] = {}  # failed calls run on py-evm, with what they read
        self.shadow_runs = 0  # failed calls run again on py-evm to explain them
        self.call_cache = ReadCache(spec.call_cache) if spec.call_cache != "off" else None
        self.last_writes: tuple[tuple[bytes, int, int], ...] = ()  # (address, slot, value) of the last transaction
        self.sight = Sight(self)  # what py-evm's hooks would record, while set_coverage/set_feedback/set_observer ask
        for _, address in self.account_keys:
            self._write_info(address, [balance, 0, EMPTY_CODE_HASH])
        self._set_block(timestamp + 1, 1)

    # -- helpers ------------------------------------------------------------

    def _h(self, address: bytes) -> str:
        text = self._hex.get(address)
        if text is None:
            text = self._hex[address] = "0x" + address.hex()
        return text

    def _write_info(self, address: bytes, info: list[Any] | None, code: bytes | None = None) -> None:
        """Set an account's balance, nonce and code hash (None: no account) here and in revm's database."""
        if self._order:
            old = self._info.get(address)
            self._undo.append(("a", address, None if old is None else list(old), self._code.get(address)))
        if self._shadow_dirty is not None:
            self._shadow_dirty.add((address, None))
        if info is None:
            self._info.pop(address, None)
            self._code.pop(address, None)
            balance, nonce, code_hash = 0, 0, EMPTY_CODE_HASH
        else:
            self._info[address] = info
            balance, nonce, code_hash = info
            if code is not None:
                self._code[address] = code
        kwargs: dict[str, Any] = {"balance": balance, "nonce": nonce, "code_hash": code_hash}
        if code_hash != EMPTY_CODE_HASH and code_hash not in self._known_code:
            # revm keeps code by its hash: once it has it, the hash is enough
            kwargs["code"] = self._code[address]
            self._known_code.add(code_hash)
        self._evm.insert_account_info(self._h(address), pyrevm.AccountInfo(**kwargs))

    # -- block time -------------------------------------------------------

    def _set_block(self, timestamp: int, number: int) -> None:
        self._timestamp = timestamp
        self._number = number
        self._version += 1
        self._evm.set_block_env(
            pyrevm.BlockEnv(
                number=number, timestamp=timestamp, coinbase=self._h(ZERO), difficulty=0, prevrandao=b"\0" * 32,
                basefee=0, gas_limit=self.gas_limit,
            )
        )

    # -- state access -----------------------------------------------------

    def storage_reads(self, sender: bytes, to: bytes, data: bytes) -> tuple[ExecResult, list[tuple[bytes, int]]]:
        """Run a view call outside the call cache: its result, and each (address, slot) it read, once (in no set
        order)."""
        gas, at_cap = self._gas(None)
        evm = self._evm
        checkpoint = evm.snapshot()
        try:
            success, output, result, error = self._execute(sender, to, data, 0, gas, True, None)
            journal = evm.journal_str
        finally:
            evm.revert(checkpoint)
        ran = ExecResult(
            success=success, output=output, gas_used=result.gas_used, error=error, gas_limit=gas, at_gas_cap=at_cap
        )
        addresses, slots_of = loaded(journal)
        return ran, [(address, int(slot)) for address, slots in zip(addresses, slots_of) for slot, _ in slots]

    # -- limits -------------------------------------------------------------

    def reset_time_limit(self) -> None:
        """Nothing to reset: calls on revm have no time limit."""

    def set_jump_recorder(self, recorder: Any) -> None:
        """Every JUMPI as it runs, in order, needs per-opcode hooks, which revm does not offer."""
        if recorder is not None:
            raise UsageError(
                "a jump recorder needs per-opcode hooks, which the revm backend does not have; run with the pyevm "
                "backend (--backend pyevm)"
            )

    def set_coverage(self, hits: Any) -> None:
        """Record every branch and jump into hits from now on, as py-evm's hooks do (see base.Coverage); None stops
        it."""
        self.sight.hits = hits

    def set_feedback(self, feedback: Any) -> None:
        """Count branches and record comparison operands into feedback from now on (base.Feedback), with coverage on;
        None stops it."""
        self.sight.feedback = feedback

    def set_observer(self, observer: Callable[[ExecResult], None] | None) -> None:
        """Call observer(result) after every call and transaction, results carrying their storage reads and writes."""
        self.sight.observer = observer

    def hooks_now(self) -> HooksNow:
        """What the hooks record into now (None: off)."""
        return HooksNow(self.sight.hits, self.sight.observer, self.sight.feedback)

    def set_sampling(self, on: bool) -> None:
        """Run a call again for the hooks' records only now and then when a call of its shape ran before (sight.py),
        counted from now (a run's start); off: every call."""
        self.sight.sampling, self.sight.run_seen = on, {}

    # -- execution --------------------------------------------------------

    def _execute(
        self, sender: bytes, to: bytes | None, data: bytes, value: int, gas: int, static: bool, gas_price: int | None,
        bump: int = 0,
    ) -> tuple[bool, bytes, Any, str | None]:
        """Run one call on revm inside the current checkpoint: (success, output, revm's result, error).

        bump: what a sender with code has added to its nonce before the code runs (1 for a
        transaction's call, as py-evm does; revm adds it only after, see transact()).
        """
        evm = self._evm
        code = self._code.get(sender)
        if code:
            self._let_code_send(sender, code, bump)
        try:
            if to is None:
                evm.deploy(self._h(sender), data, value, gas, gas_price)
                output = b""
            else:
                output = evm.message_call(self._h(sender), self._h(to), data, value, gas, gas_price, static)
        except RuntimeError as exc:
            result = evm.result
            m = FAILED.match(str(exc))
            if result is None or m is None:
                raise RuntimeError(f"revm refused the call: {exc}") from None
            if m.group(1) == "Revert":
                return False, bytes.fromhex(m.group(4) or ""), result, "revert"
            return False, b"", result, halt_message(m.group(2) or "")
        return True, output, evm.result, None

    def _let_code_send(self, sender: bytes, code: bytes, bump: int) -> None:
        """Let an address with code send ({"from": contract}) past revm's EIP-3607 check, inside the call's checkpoint
        (see the module's docstring).

        (pyrevm's stub of AccountInfo lacks balance; the binding takes it.)"""
        evm, h = self._evm, self._h(sender)
        account = evm.basic(h)
        info = pyrevm.AccountInfo(  # type: ignore[call-arg]
            balance=account.balance, nonce=account.nonce + bump, code_hash=EMPTY_CODE_HASH, code=code
        )
        evm.insert_account_info(h, info)

    def transact(
        self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None
    ) -> ExecResult:
        """Execute a transaction: nonce, gas and value are charged; state changes stay unless it reverts."""
        asked = gas
        gas, at_cap = self._gas(gas)
        intrinsic, floor = intrinsic_gas(data, to is None)
        if gas < max(intrinsic, floor):
            raise UsageError(f"gas {gas} is below the transaction's intrinsic cost {max(intrinsic, floor)}")
        cost = value + gas * self.gas_price
        if cost and self.get_balance(sender) < cost:
            raise short_of_ether(sender, self.get_balance(sender), cost, self.account_keys)
        create_address = None
        if to is None:
            create_address = contract_address(sender, self.get_nonce(sender))
            info = self._info.get(create_address)
            if info is not None and (info[1] or info[2] != EMPTY_CODE_HASH):
                raise UsageError(f"contract address collision at 0x{create_address.hex()}")
        own_code = bool(self._code.get(sender))
        evm = self._evm
        checkpoint = evm.snapshot()
        try:
            # see _let_code_send
            success, output, result, error = self._execute(
                sender, to, data, value, gas, False, self.gas_price or None, int(to is not None)
            )
            revm_used = result.gas_used
            if success or to is None or self.gas_price:
                logs = self._logs_of(result) if success else ()
                changes = read_changes(evm.journal_str, self._info)
            else:
                # a failed call changed nothing revm journals: its frame was reverted, and
                # the nonce and (at gas price 0) the gas are accounted for below
                logs, changes = (), {}
        finally:
            evm.revert(checkpoint)
        if own_code and self._codehash_readable():
            return self._transact_on_py_evm(sender, to, data, value, asked, gas, at_cap)
        gas_used = max(revm_used, floor)
        seen = None
        if self.sight.on:  # before the changes are written: the sight runs it from the state before it
            changed = (
                {(a, k): v for a, (_, _, slots, _) in changes.items() for k, v in slots.items()} if success else None
            )
            outcome = Outcome(
                success, error == "revert", deployed(changes, create_address) if success and create_address else output,
                logs, changed, revm_used + result.gas_refunded, gas - intrinsic, intrinsic,
            )
            seen = self.sight.see(True, sender, to, data, value, asked, False, outcome, created=create_address)
            self.sight.record(seen)
        # what py-evm does differently: it bumps the nonce of a call's sender as well (revm 8
        # only a creator's), charges the floor, and pays the coinbase nothing
        adjust: dict[bytes, list[int]] = {}
        if own_code and (mine := changes.get(sender)) is not None and mine[0] is not None:
            # its code hash, emptied for revm's check alone; its nonce bumped already
            mine[0][2] = self._info[sender][2]
        elif to is not None:
            adjust[sender] = [0, 1]
        if self.gas_price:
            adjust.setdefault(sender, [0, 0])[0] -= (gas_used - revm_used) * self.gas_price
            adjust.setdefault(ZERO, [0, 0])[0] -= revm_used * self.gas_price
        inner = self._inner_failures("transact", (sender, to, data, value, asked)) if self._inner else ()
        undo = self._apply(changes, adjust)
        self._version += 1
        if success:
            self._logs.extend(logs)
            if create_address is not None:  # a deployment: its output is the code it left
                output = self._code.get(create_address, b"")
        return self._transacted(
            success, output, gas_used, logs, error, create_address, gas, at_cap, inner, seen,
            (sender, to, data, value, asked), undo,
        )

    def _transacted(
        self, success: bool, output: bytes, gas_used: int, logs: Any, error: str | None, created: bytes | None,
        gas: int, at_cap: bool, inner: Any, seen: Seen | None, args: tuple[Any, ...], undo: list[Any],
    ) -> ExecResult:
        """A transaction's result, made once (one is made for every transaction): a failure's explainer, the storage the
        sight saw (given at once, not by a copy), shown to its observer."""
        seen_storage: SeenStorage = (
            {}
            if seen is None or not (seen.reads or seen.writes)
            else {"storage_writes": seen.writes, "storage_reads": seen.reads}
        )
        failed: FailedExtras = (
            {}
            if success
            else {
                "out_of_gas": (error or "").startswith("Out of gas"),
                "explainer": self._explainer("transact", args, undo),
            }
        )
        done = ExecResult(
            success, output, gas_used, logs, error, created if success else None, gas_limit=gas, at_gas_cap=at_cap,
            inner_failures=inner, **seen_storage, **failed,
        )
        return done if seen is None else self.sight.show(done, None)

    def call(
        self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False
    ) -> ExecResult:
        """Execute a call and discard every change it made (eth_call)."""
        asked = gas
        gas, at_cap = self._gas(gas)
        intrinsic, _ = intrinsic_gas(data, False)
        if gas < intrinsic:
            # py-evm runs the message with no gas at all: it fails at its first instruction
            if not self.get_code(to):
                return ExecResult(success=True, output=b"", gas_used=gas, gas_limit=gas, at_gas_cap=at_cap)
            return ExecResult(
                success=False, output=b"", gas_used=gas, error="Out of gas", gas_limit=gas, at_gas_cap=at_cap,
                out_of_gas=True,
            )
        sight = self.sight
        own_code = bool(self._code.get(sender))
        # code that can call other code is never kept (see _recorded): not worth recording
        if (
            static
            and not value
            and self.call_cache is not None
            and not own_code
            and not self._inner
            and not opcodes(self._code.get(to, b"")) & CALL_OPCODES
        ):
            return self._cached_call((sender, to, data, asked), gas, at_cap)
        evm = self._evm
        checkpoint = evm.snapshot()
        try:
            if value and self.get_balance(sender) < value:
                evm.set_balance(self._h(sender), value)
            # eth_call pays no gas on py-evm: revm runs it at gas price 0, so GASPRICE reads 0 here
            success, output, result, error = self._execute(sender, to, data, value, gas, static and not value, None)
            # py-evm reports an eth_call's gas before refunds
            gas_used = result.gas_used + (result.gas_refunded if success else 0)
            logs = self._logs_of(result) if success else ()
        finally:
            evm.revert(checkpoint)
        if own_code and self._codehash_readable():  # see _let_code_send
            on_py_evm = self._on_py_evm("call", (sender, to, data, value, asked, static))
            success, output, gas_used, logs, error = (
                on_py_evm.success, on_py_evm.output, on_py_evm.gas_used, on_py_evm.logs, on_py_evm.error,
            )
        if success:
            ran = ExecResult(
                success=True, output=output, gas_used=gas_used, logs=logs, gas_limit=gas, at_gas_cap=at_cap
            )
        else:
            ran = ExecResult(
                success=False,
                output=output,
                gas_used=gas_used,
                error=error,
                gas_limit=gas,
                at_gas_cap=at_cap,
                out_of_gas=(error or "").startswith("Out of gas"),
                explainer=self._explainer("call", (sender, to, data, value, asked, static), []),
            )
        if self._inner:
            inner = self._inner_failures("call", (sender, to, data, value, asked, static))
            ran = dataclasses.replace(ran, inner_failures=inner)
        if not sight.on:
            return ran
        seen = sight.see(
            False, sender, to, data, value, asked, static,
            Outcome(success, error == "revert", output, logs, None, gas_used, gas - intrinsic, intrinsic),
            uncached=True,
        )
        sight.record(seen)
        return sight.show(ran, seen)

    def _cached_call(self, key: tuple[bytes, bytes, bytes, int | None], gas: int, at_cap: bool) -> ExecResult:
        """A view call that may be kept: answered from the call cache when it holds it, else run (and kept if it
        can be)."""
        cache, sight = self.call_cache, self.sight
        assert cache is not None
        found = cache.find(key, self._unchanged)
        if found is not None and found.coverage is None and sight.hits is not None:
            found = None  # kept while coverage was off: run it for its coverage
        seen = None
        if found is None or cache.check:
            ran, new, seen = self._recorded(key, gas, at_cap)
            if found is not None:
                compare(found.result, ran, key, found.coverage, None if new is None else new.coverage)
            if new is not None:
                cache.keep(key, new)
            found = new
        if found is not None:
            if not sight.on:
                return found.result
            # kept with coverage, asked now for feedback or an observer alone
            if found.coverage and sight.hits is not None:
                replay_coverage(found.coverage, sight.hits)
            return sight.show(found.observed, None)
        if sight.on:
            sight.record(seen)  # type: ignore[arg-type]
            return sight.show(ran, seen)
        return ran

    def _recorded(
        self, key: tuple[bytes, bytes, bytes, int | None], gas: int, at_cap: bool
    ) -> tuple[ExecResult, Entry | None, Seen | None]:
        """Run a view call, and an entry of what it read (the accounts and slots revm loaded for it) when it can be
        kept; with the hooks' records of it (what it covered, the storage it read) while the search asks for them.

        revm forgets what a frame loaded when the frame fails: a failed call, or one whose code
        can call other code (whose frames may fail while the call succeeds), is never kept.
        """
        sender, to, data, asked = key
        evm = self._evm
        checkpoint = evm.snapshot()
        try:
            success, output, result, error = self._execute(sender, to, data, 0, gas, True, None)
            journal = evm.journal_str
        finally:
            evm.revert(checkpoint)
        if success:
            ran = ExecResult(
                success=True, output=output, gas_used=result.gas_used + result.gas_refunded, logs=self._logs_of(result),
                gas_limit=gas, at_gas_cap=at_cap,
            )
        else:
            # made here, not copied in after
            explainer = self._explainer("call", (sender, to, data, 0, asked, True), [])
            ran = ExecResult(
                success=False, output=output, gas_used=result.gas_used, error=error, gas_limit=gas, at_gas_cap=at_cap,
                out_of_gas=(error or "").startswith("Out of gas"), explainer=explainer,
            )
        seen = None
        if self.sight.on:
            intrinsic = intrinsic_gas(data, False)[0]
            seen = self.sight.see(
                False, sender, to, data, 0, asked, True,
                Outcome(success, error == "revert", output, ran.logs, None, ran.gas_used, gas - intrinsic, intrinsic),
            )
        if not success:
            return ran, None, seen
        addresses, slots_of = loaded(journal)
        ops = frozenset().union(*(opcodes(self._code.get(a, b"")) for a in addresses))
        if ops & CALL_OPCODES:
            return ran, None, seen
        reads = [
            (address, int(slot), int(value)) for address, slots in zip(addresses, slots_of) for slot, value in slots
        ]
        # an account's code always matters; its balance, and whether its nonce is 0 (which makes
        # an account empty), only to code that can see them; the nonce's value never
        whole = bool(ops & BALANCE_OPCODES)
        accounts = tuple((a, self._account_state(a, whole)) for a in addresses)
        block = (self._timestamp, self._number) if ops & BLOCK_OPCODES else None
        kept = cache_entry(ran, reads, accounts, block, None)
        if seen is not None:
            # the hooks' view of it: every read in order, what it covered
            observed = dataclasses.replace(ran, storage_reads=seen.reads) if seen.reads else ran
            kept = dataclasses.replace(
                kept, observed=observed,
                coverage={k: frozenset(v) for k, v in seen.hits.items()} if self.sight.hits is not None else None,
            )
        return ran, kept, seen

    def _account_state(self, address: bytes, whole: bool) -> Any:
        info = self._info.get(address)
        if info is None:
            return None
        return (info[0], info[1] != 0, info[2]) if whole else info[2]

    def _unchanged(self, entry: Entry) -> bool:
        """Whether every value a cached call read is still what it was."""
        storage = self._storage
        for address, slot, value in entry.storage:
            slots = storage.get(address)
            if (slots.get(slot, 0) if slots else 0) != value:
                return False
        info = self._info
        for address, known in entry.accounts:
            now = info.get(address)
            if now is None:
                if known is not None:
                    return False
            elif known != ((now[0], now[1] != 0, now[2]) if type(known) is tuple else now[2]):
                return False
        return entry.block is None or entry.block == (self._timestamp, self._number)

    @staticmethod
    def _logs_of(result: Any) -> tuple[Log, ...]:
        logs = []
        for entry in result.logs:
            topics, data = entry.data
            logs.append(
                Log(bytes.fromhex(entry.address[2:]), tuple(int.from_bytes(t, "big") for t in topics), bytes(data))
            )
        return tuple(logs)
