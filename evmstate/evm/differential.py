"""Differential runs: one machine against two chains in lockstep, each holding its own build of the contracts.

DifferentialBackend sends every transaction and call to both chains, side B's with side A's code
swapped for its own (a deployment's initcode, a blueprint, code planted with set_code) and A's
addresses for B's where they differ (CREATE2 and anything built from it), and compares what each
did. The machine sees side A's results. What differs is sorted:

- a finding (BuildsDiverged, raised where the call was made): success or failure, return data,
  logs, the balances of the accounts the call touched or a read asked for, and (with
  [differential] storage) the storage slots either side wrote;
- apart: what is the compiler's, not the contract's: a different revert reason or error when both
  failed (unless [differential] revert_reasons), listed in the machine's report;
- expected: a difference of a function declared in [differential] expected, listed too;
- gas, never a difference: with [differential] gas, a comparison of both sides per function.

The same comparison as check.py's, which holds two backends of one build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..errors import BuildsDiverged
from .base import Capabilities, ExecResult, Log, Snapshots

# ERC-5202's blueprint as the contract layer deploys it: PUSH2 len; RETURNDATASIZE; DUP2; PUSH1 10; RETURNDATASIZE;
# CODECOPY; RETURN, then 0xfe7100
_BLUEPRINT_HEAD = b"\x3d\x81\x60\x0a\x3d\x39\xf3"
_BLUEPRINT_PREAMBLE = b"\xfe\x71\x00"


class Describer(Protocol):
    """What the project tells a differential backend: the function a call reaches, and how a divergence reads."""

    def function(self, to: bytes | None, data: bytes) -> str | None: ...
    def message(self, divergence: "Divergence") -> str: ...


@dataclass(frozen=True)
class Codes:
    """Side A's code -> side B's, per contract: initcode (deploy) and runtime code (set_code)."""

    initcode: tuple[tuple[bytes, bytes], ...] = ()  # longest first, so that a prefix never shadows a longer code
    runtime: dict[bytes, bytes] = field(default_factory=dict)

    @classmethod
    def of(cls, pairs: list[tuple[bytes, bytes, bytes, bytes]]) -> "Codes":
        """From (A initcode, A runtime, B initcode, B runtime) per contract both builds have."""
        init = sorted(((a, b) for a, _, b, _ in pairs if a), key=lambda p: -len(p[0]))
        return cls(tuple(init), {ar: br for _, ar, _, br in pairs if ar})

    def deployment(self, data: bytes) -> bytes:
        """B's deployment data for A's: A's initcode in front (a deploy) or wrapped as a blueprint, swapped for B's."""
        if data[:1] == b"\x61" and data[3:10] == _BLUEPRINT_HEAD and data[10:13] == _BLUEPRINT_PREAMBLE:
            inner = self._swapped(data[13:])
            if inner is not None:
                code = _BLUEPRINT_PREAMBLE + inner
                return b"\x61" + len(code).to_bytes(2, "big") + _BLUEPRINT_HEAD + code
        swapped = self._swapped(data)
        return data if swapped is None else swapped

    def _swapped(self, data: bytes) -> bytes | None:
        for a, b in self.initcode:
            if data.startswith(a):
                return b + data[len(a) :]
        return None


@dataclass(frozen=True)
class Difference:
    """One thing two results of the same call differ in."""

    aspect: str  # "success", "return data", "logs", "revert reason", "balance of 0x...", "storage of 0x... slot n"
    a: Any
    b: Any
    finding: bool  # the contract's behaviour; False for what is the compiler's (told apart)


@dataclass(frozen=True)
class Divergence:
    """A call on which the two builds differed, with both results: what Describer.message turns into a report."""

    kind: str  # "transaction", "call" or "read"
    sender: bytes
    to: bytes | None
    data: bytes
    value: int
    function: str | None  # "Vault.deposit", when the project knows it
    difference: Difference
    a: ExecResult | None
    b: ExecResult | None
    labels: tuple[str, str]  # ("legacy", "venom"): what each side is


@dataclass(frozen=True)
class Options:
    """[differential]'s comparison settings."""

    storage: bool = False
    gas: bool = False
    revert_reasons: bool = False
    expected: tuple[tuple[str, str], ...] = ()  # (Contract.function, aspect or "any")


def _logs(logs: tuple[Log, ...]) -> str:
    return (
        "; ".join(
            f"0x{log.address.hex()} topics={[hex(t) for t in log.topics]} data=0x{log.data.hex()}" for log in logs
        )
        or "none"
    )


def _error(result: ExecResult) -> str:
    return f"{result.error}: 0x{result.output.hex()}" if result.output else str(result.error)


class DifferentialBackend:
    """Two chains, one per build, in lockstep behind the Backend interface; answers with side A's results."""

    call_cache = None  # each chain has its own
    divergence = None  # check.py's; a differential divergence is raised where the call was made

    def __init__(
        self, a: Any, b: Any, codes: Codes, labels: tuple[str, str], options: Options, describer: Describer
    ) -> None:
        self.a, self.b = a, b
        self.codes = codes
        self.labels = labels
        self.options = options
        self.describer = describer
        caps = a.capabilities
        self.capabilities = Capabilities(
            frames=caps.frames,
            coverage=caps.coverage,
            observer=caps.observer,
            time_limit=caps.time_limit,
            divergence=False,
            feedback=caps.feedback,
            sampling=caps.sampling,
            differential=True,
        )
        self.spec = a.spec
        self.chain_id, self.gas_limit, self.call_gas_limit = a.chain_id, a.gas_limit, a.call_gas_limit
        self.call_timeout, self.gas_price, self.account_keys = a.call_timeout, a.gas_price, a.account_keys
        self.calls = 0
        self.addresses: dict[bytes, bytes] = {}  # A's address -> B's, where they differ
        self.pending: BuildsDiverged | None = None  # the first divergence of this run, until raise_pending()
        self.apart: dict[str, list[Any]] = {}  # "Vault.deposit: revert reason" -> [count, first A, first B]
        self.expected_seen: dict[str, int] = {}
        self.gas: dict[str, list[int]] = {}  # function -> [calls, gas on A, gas on B]
        self._snapshots: dict[int, tuple[int, dict[bytes, bytes]]] = {}
        self._expected = {(f, aspect) for f, aspect in options.expected}
        if options.storage:
            for side in (a, b):
                if hasattr(side, "watch_storage"):  # py-evm tells what it wrote when asked; revm always (last_writes)
                    side.watch_storage()

    # -- what the engine asks ------------------------------------------------------

    def raise_pending(self) -> None:
        """Raise the divergence a call met, when the machine's code caught it and went on."""
        found, self.pending = self.pending, None
        if found is not None:
            raise found

    def notes(self) -> dict[str, Any]:
        """What the comparison told apart, the expected differences met and the gas of both sides, since the last
        notes(); then forgets them."""
        found = {
            "labels": list(self.labels),
            "apart": [[k, *v] for k, v in self.apart.items()],
            "expected": dict(self.expected_seen),
            "gas": {k: list(v) for k, v in self.gas.items()},
        }
        self.apart, self.expected_seen, self.gas = {}, {}, {}
        return found

    # -- addresses and code ---------------------------------------------------------

    def _b(self, address: bytes | None) -> bytes | None:
        return self.addresses.get(address, address) if address is not None else None

    def _b_data(self, data: bytes) -> bytes:
        """A's calldata for B: every word holding an address of A's that differs on B, swapped."""
        if not self.addresses:
            return data
        for a, b in self.addresses.items():
            data = data.replace(b"\0" * 12 + a, b"\0" * 12 + b)
        return data

    def _a_view(self, data: bytes) -> bytes:
        """B's output or log data with B's addresses written as A's, to compare."""
        for a, b in self.addresses.items():
            data = data.replace(b"\0" * 12 + b, b"\0" * 12 + a)
        return data

    def _learn(self, a: ExecResult, b: ExecResult) -> None:
        if (
            a.contract_address is not None
            and b.contract_address is not None
            and a.contract_address != b.contract_address
        ):
            self.addresses[a.contract_address] = b.contract_address

    # -- execution --------------------------------------------------------------------

    def transact(
        self, sender: bytes, to: bytes | None, data: bytes, value: int = 0, gas: int | None = None
    ) -> ExecResult:
        self.calls += 1
        ra = self.a.transact(sender, to, data, value, gas)
        rb = self.b.transact(
            self._b(sender), self._b(to), self.codes.deployment(data) if to is None else self._b_data(data), value, gas
        )  # type: ignore[arg-type]
        if ra.error == "timeout" or rb.error == "timeout":
            return ra if ra.error == "timeout" else rb  # a limit of evmstate: the machine stops on it, as an error
        self._learn(ra, rb)
        differences = self._compared(ra, rb, deployment=to is None)
        if not any(d.finding for d in differences):
            differences += self._state(sender, to, ra, rb)
        self._judge("transaction", sender, to, data, value, ra, rb, differences)
        return ra

    def call(
        self, sender: bytes, to: bytes, data: bytes, value: int = 0, gas: int | None = None, static: bool = False
    ) -> ExecResult:
        self.calls += 1
        ra = self.a.call(sender, to, data, value, gas, static)
        rb = self.b.call(self._b(sender), self._b(to), self._b_data(data), value, gas, static)  # type: ignore[arg-type]
        if ra.error == "timeout" or rb.error == "timeout":
            return ra if ra.error == "timeout" else rb
        self._judge("call", sender, to, data, value, ra, rb, self._compared(ra, rb))
        return ra

    def _compared(self, a: ExecResult, b: ExecResult, deployment: bool = False) -> list[Difference]:
        if a.success != b.success:
            return [Difference("success", a, b, True)]
        if not a.success:
            if a.output != self._a_view(b.output) or a.error != b.error:
                return [Difference("revert reason", _error(a), _error(b), self.options.revert_reasons)]
            return []
        found = []
        if not deployment and a.output != self._a_view(
            b.output
        ):  # a deployment returns its code, which differs by design
            found.append(Difference("return data", a.output, b.output, True))
        logs_b = tuple(
            Log(self._a_address(log.address), tuple(self._a_topic(t) for t in log.topics), self._a_view(log.data))
            for log in b.logs
        )
        if a.logs != logs_b:
            found.append(Difference("logs", _logs(a.logs), _logs(b.logs), True))
        return found

    def _a_address(self, address: bytes) -> bytes:
        for a, b in self.addresses.items():
            if b == address:
                return a
        return address

    def _a_topic(self, topic: int) -> int:
        return int.from_bytes(self._a_view(topic.to_bytes(32, "big")), "big") if self.addresses else topic

    def _state(self, sender: bytes, to: bytes | None, ra: ExecResult, rb: ExecResult) -> list[Difference]:
        """The balances of the accounts the transaction touched, and with [differential] storage the slots either side
        wrote."""
        found = []
        for address in dict.fromkeys(x for x in (sender, to, ra.contract_address) if x is not None):
            ours, theirs = self.a.get_balance(address), self.b.get_balance(self._b(address))
            if ours != theirs:
                found.append(Difference(f"balance of 0x{address.hex()}", ours, theirs, True))
        if self.options.storage and ra.success:
            slots = dict.fromkeys([*_written(self.a), *((self._a_address(x), s) for x, s in _written(self.b))])
            for address, slot in slots:
                ours, theirs = self.a.get_storage(address, slot), self.b.get_storage(self._b(address), slot)
                if ours != theirs:
                    found.append(Difference(f"storage of 0x{address.hex()} slot {slot}", ours, theirs, True))
                    break
        return found

    def _judge(
        self,
        kind: str,
        sender: bytes,
        to: bytes | None,
        data: bytes,
        value: int,
        ra: ExecResult | None,
        rb: ExecResult | None,
        differences: list[Difference],
    ) -> None:
        """Count the gas, set apart what is the compiler's and the expected, and raise the first finding."""
        function = self.describer.function(to, data) if (differences or self.options.gas) and kind != "read" else None
        if self.options.gas and ra is not None and rb is not None and function is not None:
            tally = self.gas.setdefault(function, [0, 0, 0])
            tally[0] += 1
            tally[1] += ra.gas_used
            tally[2] += rb.gas_used
        for d in differences:
            name = function or (f"0x{to.hex()}" if to is not None else "a deployment")
            if (
                (function, d.aspect) in self._expected
                or (function, "any") in self._expected
                or (function, d.aspect.split(" of ")[0]) in self._expected
            ):
                key = f"{name}: {d.aspect}"
                self.expected_seen[key] = self.expected_seen.get(key, 0) + 1
                continue
            if not d.finding:
                seen = self.apart.setdefault(f"{name}: {d.aspect}", [0, d.a, d.b])
                seen[0] += 1
                continue
            divergence = Divergence(kind, sender, to, data, value, function, d, ra, rb, self.labels)
            error = BuildsDiverged(self.describer.message(divergence), reason=f"{name}: {d.aspect.split(' 0x')[0]}")
            if self.pending is None:
                self.pending = error
            raise error

    # -- state access -----------------------------------------------------------------------

    def get_balance(self, address: bytes) -> int:
        ours, theirs = self.a.get_balance(address), self.b.get_balance(self._b(address))
        if ours != theirs:
            self._judge(
                "read",
                address,
                None,
                b"",
                0,
                None,
                None,
                [Difference(f"balance of 0x{address.hex()}", ours, theirs, True)],
            )
        return ours

    def get_nonce(self, address: bytes) -> int:
        return self.a.get_nonce(address)

    def get_code(self, address: bytes) -> bytes:
        return self.a.get_code(address)  # the builds' code differs by design

    def get_storage(self, address: bytes, slot: int) -> int:
        return self.a.get_storage(
            address, slot
        )  # layouts may differ between builds: what A holds, as the machine sees A

    def set_balance(self, address: bytes, value: int) -> None:
        self.a.set_balance(address, value)
        self.b.set_balance(self._b(address), value)

    def set_storage(self, address: bytes, slot: int, value: int) -> None:
        self.a.set_storage(address, slot, value)
        self.b.set_storage(self._b(address), slot, value)

    def set_code(self, address: bytes, code: bytes) -> None:
        self.a.set_code(address, code)
        self.b.set_code(self._b(address), self.codes.runtime.get(code, code))

    def storage_reads(self, sender: bytes, to: bytes, data: bytes) -> tuple[ExecResult, list[tuple[bytes, int]]]:
        return self.a.storage_reads(sender, to, data)

    @property
    def logs(self) -> list[Log]:
        return self.a.logs

    # -- snapshots and time --------------------------------------------------------------------

    def snapshot(self) -> int:
        sid = self.a.snapshot()
        self._snapshots[sid] = (self.b.snapshot(), dict(self.addresses))
        return sid

    def revert(self, snapshot_id: int) -> None:
        self.a.revert(snapshot_id)
        other, addresses = self._snapshots[snapshot_id]
        self.b.revert(other)
        self.addresses = dict(addresses)
        self.pending = None
        for sid in [s for s in self._snapshots if s > snapshot_id]:
            del self._snapshots[sid]

    def has_snapshot(self, snapshot_id: int) -> bool:
        return self.a.has_snapshot(snapshot_id)

    def release(self, snapshot_id: int) -> None:
        self.a.release(snapshot_id)
        other = self._snapshots.get(snapshot_id)
        if other is not None:
            self.b.release(other[0])
        for sid in [s for s in self._snapshots if s >= snapshot_id]:
            del self._snapshots[sid]

    anchor = Snapshots.anchor  # over this class's snapshot(), revert() and release(), which keep both chains

    @property
    def timestamp(self) -> int:
        return self.a.timestamp

    @property
    def block_number(self) -> int:
        return self.a.block_number

    def sleep(self, seconds: int) -> None:
        self.a.sleep(seconds)
        self.b.sleep(seconds)

    def mine(self, blocks: int = 1, timestamp: int | None = None) -> None:
        self.a.mine(blocks, timestamp)
        self.b.mine(blocks, timestamp)

    def set_block(self, timestamp: int, number: int) -> None:
        self.a.set_block(timestamp, number)
        self.b.set_block(timestamp, number)

    def reset_time_limit(self) -> None:
        self.a.reset_time_limit()
        self.b.reset_time_limit()

    def set_jump_recorder(self, recorder: Any) -> None:
        self.a.set_jump_recorder(recorder)

    def set_inner_failures(self, on: bool) -> None:
        self.a.set_inner_failures(on)  # the results are A's

    # the search's hooks: side A's code is the code the machine's coverage and guidance are about
    def set_coverage(self, hits: Any) -> None:
        self.a.set_coverage(hits)

    def set_observer(self, observer: Callable[[ExecResult], None] | None) -> None:
        self.a.set_observer(observer)

    def set_feedback(self, feedback: Any) -> None:
        self.a.set_feedback(feedback)

    def set_sampling(self, on: bool) -> None:
        self.a.set_sampling(on)

    def hooks_now(self) -> Any:
        return self.a.hooks_now()


def _written(backend: Any) -> list[tuple[bytes, int]]:
    """The (address, slot) pairs the last transaction wrote: py-evm's written(), revm's last_writes."""
    if hasattr(backend, "written"):
        return list(backend.written())
    return [(address, slot) for address, slot, _ in getattr(backend, "last_writes", ())]
