"""A small EVM interpreter that runs one call again to see its path: what revm cannot show.

revm (pyrevm 0.3.7) has no per-opcode hooks; its only tracer prints EIP-3155 JSON through
Python's print, one small write at a time (about 0.6 s for one ERC20 transfer). So, while the
search needs branch coverage, comparison operands or the storage a call read and wrote, the revm
backend runs each call again here, from the same state, and records what py-evm's hooks would
record (pyevm/opcodes.py): per code, 2*pc + taken of each JUMPI and ~dest of each jump
destination; how often each JUMPI went each way; the other side of each comparison of an
argument that feeds a branch; every storage read and write in order, SSTORE reading the slot
first, as py-evm does.

Gas is not modelled: a path depends on it only through GAS, running out of gas and the gas a
sub-call is given. GAS pushes a value that only a CALL's gas argument may take (meaning all of
it; any other use gives up), the caller gives up when revm reports more than half the call's gas
spent (no frame can have run out of gas with all the gas it could get), and a sub-call given a
fixed amount of gas to run code in gives up too. Whatever it does not model (CREATE, CREATE2,
CALLCODE, SELFDESTRUCT, BLOCKHASH, BLOBBASEFEE, precompiles, deep calls, huge memory) raises
Unsupported, and so does a run whose outcome (success, output, logs, storage written) is not
revm's: the caller then runs the call on py-evm with its hooks instead (revm.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from eth_utils import keccak

from .base import Feedback, Log
from .pyevm.opcodes import COMPARISONS, EQUALITIES, compared, feeding

WORD = 2**256
MASK = WORD - 1
SIGN = 2**255
EMPTY_HASH = int.from_bytes(keccak(b""), "big")
# deeper calls give up (revm's 1024 frames, and Python's own recursion, are far away)
MAX_DEPTH = 32
# memory past this many bytes gives up: with 2**24 gas revm cannot pay for 3 MB
MAX_MEMORY = 4 * 2**20
# precompiles revm has at Cancun (Prague's BLS ones it lacks): calls to them give up
PRECOMPILES = range(1, 11)
PUSH1, PUSH32, DUP1, DUP16, SWAP1, SWAP16 = 0x60, 0x7F, 0x80, 0x8F, 0x90, 0x9F
POP, JUMP, JUMPI, JUMPDEST, PUSH0 = 0x50, 0x56, 0x57, 0x5B, 0x5F
_MISSING = object()


class Unsupported(Exception):
    """Raised when a call does something the tracer does not model: run it on py-evm instead."""


class Fault(Exception):
    """Raised inside a frame for an exceptional halt: invalid opcode or jump, a write in a static call, returndata out of bounds."""


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

    def __init__(self, timestamp: int, number: int, chain_id: int, gas_limit: int, gas_price: int, origin: bytes) -> None:
        self.timestamp, self.number, self.chain_id, self.gas_limit, self.gas_price, self.origin = timestamp, number, chain_id, gas_limit, gas_price, origin


class World:
    """The state before the call: storage, balance, nonce and code of each account (functions of the backend's mirror)."""

    def __init__(self, storage: Callable[[bytes, int], int], balance: Callable[[bytes], int], nonce: Callable[[bytes], int], code: Callable[[bytes], bytes]) -> None:
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
    """One code's instructions as the interpreter needs them: push values by pc, jump destinations, comparisons feeding a branch."""

    pushes: list[int]
    dests: frozenset[int]
    feeding: frozenset[int]


_programs: dict[bytes, Program] = {}


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
    if len(_programs) > 256:
        _programs.clear()
    found = _programs[code] = Program(pushes, frozenset(dests), feeding(code))
    return found


class Frame:
    """One call frame: its code and context, stack, memory and the return data of its last sub-call."""

    __slots__ = ("code", "prog", "address", "code_address", "caller", "value", "data", "static", "depth", "stack", "mem", "returndata", "words", "seen", "counts")

    def __init__(self, code: bytes, address: bytes, code_address: bytes, caller: bytes, value: int, data: bytes, static: bool, depth: int) -> None:
        self.code, self.prog = code, program(code)
        self.address, self.code_address, self.caller, self.value, self.data = address, code_address, caller, value, data
        self.static, self.depth = static, depth
        self.stack: list[Any] = []
        self.mem = bytearray()
        self.returndata = b""
        self.words: frozenset[int] | None = None  # the words of its calldata after the selector, once a comparison asks
        self.seen: set[int] | None = None
        self.counts: dict[int, int] | None = None


def _signed(v: int) -> int:
    return v - WORD if v >= SIGN else v


def _expand(f: Frame, offset: int, size: int) -> None:
    """Grow memory to hold [offset, offset + size), in words (nothing for size 0)."""
    if size:
        end = offset + size
        if end > MAX_MEMORY:
            raise Unsupported("memory beyond what the gas could pay for")
        if end > len(f.mem):
            f.mem.extend(bytes(-(-end // 32) * 32 - len(f.mem)))


def _read(f: Frame, offset: int, size: int) -> bytes:
    if not size:
        return b""
    _expand(f, offset, size)
    return bytes(f.mem[offset : offset + size])


def _write(f: Frame, offset: int, data: bytes, size: int) -> None:
    """Copy data, padded with zeros to size bytes, into memory at offset."""
    if size:
        _expand(f, offset, size)
        f.mem[offset : offset + size] = data[:size].ljust(size, b"\0")


class Tracer:
    """Runs one call over a World in an Env and records its Trace (see the module's docstring)."""

    def __init__(self, world: World, env: Env, feedback: Feedback | None) -> None:
        self.world, self.env = world, env
        # where branch counts aside, comparison operands go (a call that is not a view call), else None
        self.feedback = feedback
        self.trace = Trace()
        self.storage: dict[tuple[bytes, int], int] = {}
        self.transient: dict[tuple[bytes, int], int] = {}
        self.balances: dict[bytes, int] = {}
        self.journal: list[tuple[dict[Any, int], Any, Any]] = []
        # what the call read of the state before it: the same call from the same values runs the same way
        self.read_storage: dict[tuple[bytes, int], int] = {}
        self.read_balances: dict[bytes, int] = {}
        self.read_code: dict[bytes, bytes] = {}
        self.read_nonces: dict[bytes, int] = {}
        self.block_read = False

    # -- state, journaled for reverts ------------------------------------------------

    def _set(self, store: dict[Any, int], key: Any, value: int) -> None:
        self.journal.append((store, key, store.get(key, _MISSING)))
        store[key] = value

    def _revert(self, mark: tuple[int, int]) -> None:
        journal = self.journal
        while len(journal) > mark[0]:
            store, key, old = journal.pop()
            if old is _MISSING:
                del store[key]
            else:
                store[key] = old
        del self.trace.logs[mark[1] :]

    def sload(self, address: bytes, slot: int) -> int:
        key = (address, slot)
        value = self.storage.get(key, _MISSING)
        if value is _MISSING:
            value = self.read_storage[key] = self.world.storage(address, slot)
        return value  # type: ignore[return-value]

    def balance(self, address: bytes) -> int:
        value = self.balances.get(address)
        if value is None:
            value = self.read_balances[address] = self.world.balance(address)
        return value

    def code(self, address: bytes) -> bytes:
        code = self.read_code[address] = self.world.code(address)
        return code

    def nonce(self, address: bytes) -> int:
        nonce = self.read_nonces[address] = self.world.nonce(address)
        return nonce

    def block(self, value: int) -> int:
        self.block_read = True
        return value

    def _transfer(self, sender: bytes, to: bytes, value: int) -> None:
        if value:
            self._set(self.balances, sender, self.balance(sender) - value)
            self._set(self.balances, to, self.balance(to) + value)

    # -- running -------------------------------------------------------------------------

    def run(self, sender: bytes, to: bytes, data: bytes, value: int, static: bool) -> Trace:
        """Run the call as a transaction (static=False) or an eth_call; raises Unsupported for what it does not model."""
        if int.from_bytes(to, "big") in PRECOMPILES:
            raise Unsupported("a call to a precompile")
        trace = self.trace
        mark = (0, 0)
        if value and static:
            raise Unsupported("a static call with value")
        if value and self.balance(sender) < value:
            self.balances[sender] = value  # an eth_call with value, as both backends run it
        self._transfer(sender, to, value)
        code = self.code(to)
        if not code:
            trace.success = True
        else:
            frame = Frame(code, to, to, sender, value, data, static, 0)
            try:
                trace.output = self._execute(frame)
                trace.success = True
            except Reverted as r:
                trace.output, trace.reverted = r.output, True
            except (Fault, IndexError):
                pass
        if not trace.success:
            self._revert(mark)
        trace.written = self.storage
        return trace

    def _execute(self, f: Frame) -> bytes:
        """Run a frame to its end: its output, or Reverted / Fault / IndexError when it fails."""
        code, prog, stack = f.code, f.prog, f.stack
        pushes, dests = prog.pushes, prog.dests
        table = TABLE
        n = len(code)
        pc = 0
        while pc < n:
            op = code[pc]
            if op >= PUSH1:
                if op <= PUSH32:
                    stack.append(pushes[pc])
                    pc += op - PUSH1 + 2
                    continue
                if op <= DUP16:
                    stack.append(stack[DUP1 - op - 1])
                elif op <= SWAP16:
                    i = SWAP1 - op - 2
                    stack[-1], stack[i] = stack[i], stack[-1]
                else:
                    done = table[op](self, f, pc)  # type: ignore[misc]
                    if done is not None:
                        return done
                pc += 1
            elif op == JUMPI:
                dest, condition = stack.pop(), stack.pop()
                seen = f.seen if f.seen is not None else self._seen(f)
                if condition:
                    if dest not in dests:
                        raise Fault("invalid jump destination")
                    branch = 2 * pc + 1
                    seen.add(branch)
                    seen.add(~dest)
                    next_pc = dest
                else:
                    branch = 2 * pc
                    seen.add(branch)
                    next_pc = pc + 1
                if f.counts is not None:
                    f.counts[branch] = f.counts.get(branch, 0) + 1
                pc = next_pc
            elif op == JUMP:
                dest = stack.pop()
                if dest not in dests:
                    raise Fault("invalid jump destination")
                (f.seen if f.seen is not None else self._seen(f)).add(~dest)
                pc = dest
            elif op == JUMPDEST:
                pc += 1
            elif op == POP:
                stack.pop()
                pc += 1
            elif op == PUSH0:
                stack.append(0)
                pc += 1
            else:
                handler = table[op]
                if handler is None:
                    raise Fault(f"invalid opcode 0x{op:02x}")
                done = handler(self, f, pc)
                if done is not None:
                    return done
                pc += 1
        return b""

    def _seen(self, f: Frame) -> set[int]:
        """The set f records its jumps into (made at the frame's first jump, as py-evm's hooks make it)."""
        seen = f.seen
        if seen is None:
            trace = self.trace
            seen = f.seen = trace.hits.setdefault(f.code_address, set())
            if self.feedback is not None:
                f.counts = trace.counts.setdefault(f.code_address, {})
        return seen

    def compared(self, f: Frame, a: Any, b: Any, equal: bool) -> None:
        """A comparison of a and b that feeds a branch: recorded as py-evm's hook records it."""
        words = f.words
        if words is None:
            data = f.data
            words = f.words = frozenset(int.from_bytes(data[i : i + 32], "big") for i in range(4, len(data) - 31, 32))
        env = self.env
        self.block_read = True  # what it records depends on whether a or b is the block's time or number
        compared(self.feedback, words, a, b, env.timestamp, env.number, equal)  # type: ignore[arg-type]

    def call(self, f: Frame, gas: Any, to: bytes, value: int, data: bytes, code_address: bytes, kind: str) -> tuple[bool, bytes]:
        """A sub-call (CALL, STATICCALL, DELEGATECALL): (success, return data)."""
        if int.from_bytes(code_address, "big") in PRECOMPILES:
            raise Unsupported("a call to a precompile")
        if f.depth + 1 > MAX_DEPTH:
            raise Unsupported("calls nested too deep")
        if kind == "call" and value and self.balance(f.address) < value:
            return False, b""
        code = self.code(code_address)
        if code and gas is not GAS:
            raise Unsupported("a sub-call given a fixed amount of gas")
        mark = (len(self.journal), len(self.trace.logs))
        if kind == "call":
            self._transfer(f.address, to, value)
            child = Frame(code, to, code_address, f.address, value, data, f.static, f.depth + 1)
        elif kind == "static":
            child = Frame(code, to, code_address, f.address, 0, data, True, f.depth + 1)
        else:  # delegate: the caller's storage, sender and value
            child = Frame(code, f.address, code_address, f.caller, f.value, data, f.static, f.depth + 1)
        if not code:
            return True, b""
        try:
            return True, self._execute(child)
        except Reverted as r:
            self._revert(mark)
            return False, r.output
        except (Fault, IndexError):
            self._revert(mark)
            return False, b""


class Reverted(Exception):
    """Raised by REVERT: the frame fails and returns its data."""

    def __init__(self, output: bytes) -> None:
        super().__init__()
        self.output = output


# -- the other opcodes: handler(tracer, frame, pc) -> None to go on, or the frame's output ---------


def _binary(fn: Callable[[int, int], int]) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        a = s.pop()
        s[-1] = fn(a, s[-1])

    return handler


def _comparison(fn: Callable[[int, int], int], equal: bool) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        a = s.pop()
        b = s[-1]
        s[-1] = fn(a, b)
        if t.feedback is not None and pc in f.prog.feeding:
            t.compared(f, a, b, equal)

    return handler


def _sdiv(a: int, b: int) -> int:
    a, b = _signed(a), _signed(b)
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return (-q if (a < 0) != (b < 0) else q) & MASK


def _smod(a: int, b: int) -> int:
    a, b = _signed(a), _signed(b)
    if b == 0:
        return 0
    r = abs(a) % abs(b)
    return (-r if a < 0 else r) & MASK


def _signextend(bits: int, value: int) -> int:
    if bits > 31:
        return value
    sign = 1 << (bits * 8 + 7)
    return value | (WORD - sign) if value & sign else value & (sign - 1)


def _sar(shift: int, value: int) -> int:
    v = _signed(value)
    if shift >= 256:
        return 0 if v >= 0 else MASK
    return (v >> shift) & MASK


BINARY: dict[int, Callable[[int, int], int]] = {
    0x01: lambda a, b: (a + b) & MASK,
    0x02: lambda a, b: (a * b) & MASK,
    0x04: lambda a, b: a // b if b else 0,
    0x05: _sdiv,
    0x06: lambda a, b: a % b if b else 0,
    0x07: _smod,
    0x0A: lambda a, b: pow(a, b, WORD),
    0x0B: _signextend,
    0x16: lambda a, b: a & b,
    0x17: lambda a, b: a | b,
    0x1A: lambda a, b: (b >> (8 * (31 - a))) & 0xFF if a < 32 else 0,
    0x1B: lambda a, b: (b << a) & MASK if a < 256 else 0,
    0x1C: lambda a, b: b >> a if a < 256 else 0,
    0x1D: _sar,
}


def _ternary(fn: Callable[[int, int, int], int]) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        a, b = s.pop(), s.pop()
        s[-1] = fn(a, b, s[-1])

    return handler


def _push(value: Callable[[Tracer, Frame], int]) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        f.stack.append(value(t, f))

    return handler


def _unary(fn: Callable[[Tracer, Frame, int], int]) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        s[-1] = fn(t, f, s[-1])

    return handler


def _address(v: int) -> bytes:
    return (v & (2**160 - 1)).to_bytes(20, "big")


def _give_up(what: str) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        raise Unsupported(what)

    return handler


def _calldataload(t: Tracer, f: Frame, offset: int) -> int:
    if offset >= len(f.data):
        return 0
    return int.from_bytes(f.data[offset : offset + 32].ljust(32, b"\0"), "big")


def _extcodehash(t: Tracer, f: Frame, v: int) -> int:
    address = _address(v)
    code = t.code(address)
    if code:
        return int.from_bytes(keccak(code), "big")
    if t.balance(address) or t.nonce(address):
        return EMPTY_HASH
    return 0


def _copy(source: Callable[[Tracer, Frame], bytes]) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        dest, offset, size = s.pop(), s.pop(), s.pop()
        data = source(t, f)
        _write(f, dest, data[offset : offset + size] if offset < len(data) else b"", size)

    return handler


def _extcodecopy(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    address, dest, offset, size = _address(s.pop()), s.pop(), s.pop(), s.pop()
    code = t.code(address)
    _write(f, dest, code[offset : offset + size] if offset < len(code) else b"", size)


def _returndatacopy(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    dest, offset, size = s.pop(), s.pop(), s.pop()
    if offset + size > len(f.returndata):
        raise Fault("return data out of bounds")
    _write(f, dest, f.returndata[offset : offset + size], size)


_hashes: dict[bytes, int] = {}


def _keccak(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset = s.pop()
    data = _read(f, offset, s[-1])
    found = _hashes.get(data)
    if found is None:
        # the same slots of the same mappings are hashed call after call
        if len(_hashes) > 4096:
            _hashes.clear()
        found = _hashes[data] = int.from_bytes(keccak(data), "big")
    s[-1] = found


def _mload(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset = s[-1]
    _expand(f, offset, 32)
    s[-1] = int.from_bytes(f.mem[offset : offset + 32], "big")


def _mstore(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset, value = s.pop(), s.pop()
    _expand(f, offset, 32)
    f.mem[offset : offset + 32] = value.to_bytes(32, "big")


def _mstore8(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset, value = s.pop(), s.pop()
    _expand(f, offset, 1)
    f.mem[offset] = value & 0xFF


def _mcopy(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    dest, offset, size = s.pop(), s.pop(), s.pop()
    if size:
        _expand(f, max(dest, offset), size)
        f.mem[dest : dest + size] = f.mem[offset : offset + size]


def _sload(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    slot = s[-1]
    value = s[-1] = t.sload(f.address, slot)
    t.trace.reads.append((f.address, slot, value))


def _sstore(t: Tracer, f: Frame, pc: int) -> None:
    if f.static:
        raise Fault("write in a static call")
    s = f.stack
    slot, value = s.pop(), s.pop()
    # py-evm's SSTORE reads the slot first (its gas rule), and an observer sees that read
    t.trace.reads.append((f.address, slot, t.sload(f.address, slot)))
    t._set(t.storage, (f.address, slot), value)
    t.trace.writes.append((f.address, slot, value))


def _tload(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    s[-1] = t.transient.get((f.address, s[-1]), 0)


def _tstore(t: Tracer, f: Frame, pc: int) -> None:
    if f.static:
        raise Fault("write in a static call")
    s = f.stack
    slot, value = s.pop(), s.pop()
    t._set(t.transient, (f.address, slot), value)


def _log(topics: int) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        if f.static:
            raise Fault("log in a static call")
        s = f.stack
        offset, size = s.pop(), s.pop()
        found = tuple(s.pop() for _ in range(topics))
        t.trace.logs.append(Log(f.address, found, _read(f, offset, size)))

    return handler


def _return(t: Tracer, f: Frame, pc: int) -> bytes:
    s = f.stack
    offset, size = s.pop(), s.pop()
    return _read(f, offset, size)


def _revert_op(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset, size = s.pop(), s.pop()
    raise Reverted(_read(f, offset, size))


def _stop(t: Tracer, f: Frame, pc: int) -> bytes:
    return b""


def _invalid(t: Tracer, f: Frame, pc: int) -> None:
    raise Fault("INVALID")


def _call_op(kind: str) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        gas, target = s.pop(), _address(s.pop())
        value = s.pop() if kind == "call" else 0
        in_offset, in_size, out_offset, out_size = s.pop(), s.pop(), s.pop(), s.pop()
        if kind == "call" and value and f.static:
            raise Fault("value sent in a static call")
        data = _read(f, in_offset, in_size)
        _expand(f, out_offset, out_size)
        ok, output = t.call(f, gas, target, value, data, target, kind)
        f.returndata = output
        if out_size:
            size = min(out_size, len(output))
            f.mem[out_offset : out_offset + size] = output[:size]
        s.append(1 if ok else 0)

    return handler


def _table() -> list[Callable[[Tracer, Frame, int], Any] | None]:
    table: list[Callable[[Tracer, Frame, int], Any] | None] = [None] * 256
    for op, fn in BINARY.items():
        table[op] = _binary(fn)
    for op, (_, fn) in COMPARISONS.items():
        table[op] = _comparison(fn, op in EQUALITIES)
    table[0x08] = _ternary(lambda a, b, m: (a + b) % m if m else 0)
    table[0x09] = _ternary(lambda a, b, m: (a * b) % m if m else 0)
    table[0x15] = _unary(lambda t, f, v: 0 if v else 1)
    table[0x19] = _unary(lambda t, f, v: MASK ^ v)
    table[0x20] = _keccak
    table[0x30] = _push(lambda t, f: int.from_bytes(f.address, "big"))
    table[0x31] = _unary(lambda t, f, v: t.balance(_address(v)))
    table[0x32] = _push(lambda t, f: int.from_bytes(t.env.origin, "big"))
    table[0x33] = _push(lambda t, f: int.from_bytes(f.caller, "big"))
    table[0x34] = _push(lambda t, f: f.value)
    table[0x35] = _unary(_calldataload)
    table[0x36] = _push(lambda t, f: len(f.data))
    table[0x37] = _copy(lambda t, f: f.data)
    table[0x38] = _push(lambda t, f: len(f.code))
    table[0x39] = _copy(lambda t, f: f.code)
    table[0x3A] = _push(lambda t, f: t.env.gas_price)
    table[0x3B] = _unary(lambda t, f, v: len(t.code(_address(v))))
    table[0x3C] = _extcodecopy
    table[0x3D] = _push(lambda t, f: len(f.returndata))
    table[0x3E] = _returndatacopy
    table[0x3F] = _unary(_extcodehash)
    table[0x40] = _give_up("BLOCKHASH")
    table[0x41] = _push(lambda t, f: 0)  # COINBASE: the zero address
    table[0x42] = _push(lambda t, f: t.block(t.env.timestamp))
    table[0x43] = _push(lambda t, f: t.block(t.env.number))
    table[0x44] = _push(lambda t, f: 0)  # PREVRANDAO, as the revm backend sets it
    table[0x45] = _push(lambda t, f: t.env.gas_limit)
    table[0x46] = _push(lambda t, f: t.env.chain_id)
    table[0x47] = _push(lambda t, f: t.balance(f.address))
    table[0x48] = _push(lambda t, f: 0)  # BASEFEE: always 0 on revm here
    table[0x49] = _unary(lambda t, f, v: 0)  # BLOBHASH: no blobs
    table[0x4A] = _give_up("BLOBBASEFEE")
    table[0x51] = _mload
    table[0x52] = _mstore
    table[0x53] = _mstore8
    table[0x54] = _sload
    table[0x55] = _sstore
    table[0x58] = lambda t, f, pc: f.stack.append(pc)
    table[0x59] = _push(lambda t, f: len(f.mem))
    table[0x5A] = _push(lambda t, f: GAS)  # type: ignore[arg-type, return-value]
    table[0x5C] = _tload
    table[0x5D] = _tstore
    table[0x5E] = _mcopy
    for topics in range(5):
        table[0xA0 + topics] = _log(topics)
    table[0x00] = _stop
    table[0xF0] = _give_up("CREATE")
    table[0xF1] = _call_op("call")
    table[0xF2] = _give_up("CALLCODE")
    table[0xF3] = _return
    table[0xF4] = _call_op("delegate")
    table[0xF5] = _give_up("CREATE2")
    table[0xFA] = _call_op("static")
    table[0xFD] = _revert_op
    table[0xFE] = _invalid
    table[0xFF] = _give_up("SELFDESTRUCT")
    return table


TABLE = _table()
