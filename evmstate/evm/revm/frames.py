"""The tracer's world and frames: the state one call runs over, the memory helpers and the errors a frame ends with."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable

from eth_utils import keccak

from ..base import Log
from ..pyevm.opcodes import recorded
from ..pyevm.solving import Derived
from ...files import Bounded

WORD = 2**256
MASK = WORD - 1
SIGN = 2**255
EMPTY_HASH = int.from_bytes(keccak(b""), "big")
# deeper calls give up (revm's 1024 frames, and Python's own recursion, are far away)
MAX_DEPTH = 32
# memory past this many bytes gives up: with 2**24 gas revm cannot pay for 3 MB
MAX_MEMORY = 4 * 2**20
# precompiles revm has at Cancun (Prague's BLS ones it lacks): calls to them give up, but RUN_PRECOMPILES'
PRECOMPILES = range(1, 11)


def _words(data: bytes) -> int:
    return (len(data) + 31) // 32


# the precompiles the tracer runs itself, by address: data -> (gas price, output), as the Yellow Paper prices them.
# Identity (4) is how vyper copies memory before MCOPY (Cancun): on vyper 0.3 code most calls go through it
RUN_PRECOMPILES: dict[int, Callable[[bytes], tuple[int, bytes]]] = {
    2: lambda data: (60 + 12 * _words(data), hashlib.sha256(data).digest()),
    4: lambda data: (15 + 3 * _words(data), bytes(data)),
}
PUSH1, PUSH32, DUP1, DUP16, SWAP1, SWAP16 = 0x60, 0x7F, 0x80, 0x8F, 0x90, 0x9F
POP, JUMP, JUMPI, JUMPDEST, PUSH0 = 0x50, 0x56, 0x57, 0x5B, 0x5F


class Unsupported(Exception):
    """Raised when a call does something the tracer does not model: run it on py-evm instead."""


class Fault(Exception):
    """Raised inside a frame for an exceptional halt: invalid opcode or jump, a write in a static call, returndata out
    of bounds."""


class Gas:
    """What GAS pushes: the gas left is not modelled, so only CALL's gas argument may take it (all the gas)."""

    __slots__ = ()

    def _refuse(self, *args: Any) -> Any:
        raise Unsupported("GAS used as a number")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __index__ = __int__ = _refuse  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]


GAS = Gas()


class Env:
    """The block and transaction a call runs in, as revm ran it."""

    __slots__ = ("timestamp", "number", "chain_id", "gas_limit", "gas_price", "origin")

    def __init__(
        self, timestamp: int, number: int, chain_id: int, gas_limit: int, gas_price: int, origin: bytes
    ) -> None:
        self.timestamp, self.number, self.chain_id, self.gas_limit, self.gas_price, self.origin = (
            timestamp, number, chain_id, gas_limit, gas_price, origin,
        )


class World:
    """The state before the call: storage, balance, nonce and code of each account (functions of the backend's
    mirror)."""

    def __init__(
        self, storage: Callable[[bytes, int], int], balance: Callable[[bytes], int], nonce: Callable[[bytes], int],
        code: Callable[[bytes], bytes],
    ) -> None:
        self.storage, self.balance, self.nonce, self.code = storage, balance, nonce, code


class Trace:
    """What one call did, as the hooks would record it."""

    __slots__ = ("success", "reverted", "output", "logs", "written", "hits", "counts", "reads", "writes")

    def __init__(self) -> None:
        self.success = False
        self.reverted = False  # failed by REVERT (else by an exceptional halt)
        self.output = b""
        self.logs: list[Log] = []
        self.written: dict[tuple[bytes, int], int] = {}  # final value of each slot written
        self.hits: dict[bytes, set[int]] = {}
        self.counts: dict[bytes, dict[int, int]] = {}
        self.reads: list[tuple[bytes, int, int]] = []
        self.writes: list[tuple[bytes, int, int]] = []


@dataclass
class Program:
    """One code's instructions as the interpreter needs them: push values by pc, jump destinations, what is recorded."""

    pushes: list[int]
    dests: frozenset[int]
    recorded: frozenset[int]


_programs: Bounded[bytes, Program] = Bounded(257)


def program(code: bytes) -> Program:
    found = _programs.get(code)
    if found is not None:
        return found
    pushes = [0] * len(code)
    dests = set()
    i, n = 0, len(code)
    while i < n:
        op = code[i]
        if PUSH1 <= op <= PUSH32:
            size = op - PUSH1 + 1
            pushes[i] = int.from_bytes(code[i + 1 : i + 1 + size].ljust(size, b"\0"), "big")
            i += size + 1
        else:
            if op == JUMPDEST:
                dests.add(i)
            i += 1
    found = _programs[code] = Program(pushes, frozenset(dests), recorded(code))
    return found


class Frame:
    """One call frame: its code and context, stack, memory and the return data of its last sub-call."""

    __slots__ = (
        "code", "prog", "address", "code_address", "caller", "value", "data", "static", "depth", "stack", "mem",
        "returndata", "words", "sources", "derived", "tracked", "seen", "counts",
    )

    def __init__(
        self, code: bytes, address: bytes, code_address: bytes, caller: bytes, value: int, data: bytes, static: bool,
        depth: int,
    ) -> None:
        self.code, self.prog = code, program(code)
        self.address, self.code_address, self.caller, self.value, self.data = address, code_address, caller, value, data
        self.static, self.depth = static, depth
        self.stack: list[Any] = []
        self.mem = bytearray()
        self.returndata = b""
        self.words: frozenset[int] | None = None  # the words of its calldata after the selector, once a comparison asks
        self.sources: frozenset[int] = frozenset()  # the words and the block's time (pyevm/opcodes.py clock_source())
        self.derived: Derived = {}  # values computed from them (pyevm/solving.py derive())
        self.tracked: set[int] | None = None  # the words and the values derived, while feedback records (the hot check)
        self.seen: set[int] | None = None
        self.counts: dict[int, int] | None = None


def signed(v: int) -> int:
    return v - WORD if v >= SIGN else v


def expand(f: Frame, offset: int, size: int) -> None:
    """Grow memory to hold [offset, offset + size), in words (nothing for size 0)."""
    if size:
        end = offset + size
        if end > MAX_MEMORY:
            raise Unsupported("memory beyond what the gas could pay for")
        if end > len(f.mem):
            f.mem.extend(bytes(-(-end // 32) * 32 - len(f.mem)))


def read_memory(f: Frame, offset: int, size: int) -> bytes:
    if not size:
        return b""
    expand(f, offset, size)
    return bytes(f.mem[offset : offset + size])


def write_memory(f: Frame, offset: int, data: bytes, size: int) -> None:
    """Copy data, padded with zeros to size bytes, into memory at offset."""
    if size:
        expand(f, offset, size)
        f.mem[offset : offset + size] = data[:size].ljust(size, b"\0")


class Reverted(Exception):
    """Raised by REVERT: the frame fails and returns its data."""

    def __init__(self, output: bytes) -> None:
        super().__init__()
        self.output = output
