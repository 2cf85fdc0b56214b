"""The tracer's opcodes: handler(tracer, frame, pc) -> None to go on, or the frame's output; TABLE by opcode."""

from __future__ import annotations

from typing import Any, Callable

from eth_utils import keccak

from .frames import (
    EMPTY_HASH,
    Fault,
    Frame,
    GAS,
    Log,
    MASK,
    Reverted,
    Unsupported,
    WORD,
    expand,
    read_memory,
    signed,
    write_memory,
)
from ..pyevm.opcodes import COMPARISONS, EQUALITIES
from ..pyevm.solving import ARITHMETIC, SUB, derive
from ...files import Bounded

# the Tracer (tracer.py) a handler runs in: named, not imported, as tracer.py imports this table
Tracer = Any

# -- the other opcodes: handler(tracer, frame, pc) -> None to go on, or the frame's output ---------


def _binary(fn: Callable[[int, int], int]) -> Callable[[Tracer, Frame, int], None]:
    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        a = s.pop()
        s[-1] = fn(a, s[-1])

    return handler


def _comparison(fn: Callable[[int, int], int], equal: bool, subtracts: bool) -> Callable[[Tracer, Frame, int], None]:
    """A comparison that records as py-evm's hook does (pyevm/opcodes.py hooked())."""

    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        a = s.pop()
        b = s[-1]
        result = s[-1] = fn(a, b)
        if t.feedback is not None:
            if pc in f.prog.recorded:
                t.compared(f, a, b, equal)
            elif subtracts:
                tracked = f.tracked
                if tracked and (a in tracked or b in tracked):
                    _derive(t, f, SUB, a, b, result)
            elif a == b and t.feedback.everywhere:
                t.matched(f, a)

    return handler


def _arithmetic(op: int, fn: Callable[[int, int], int]) -> Callable[[Tracer, Frame, int], None]:
    """ADD, MUL, DIV, SHL or SHR, noting what a frame derives from its arguments as py-evm's hook (hooked())."""

    def handler(t: Tracer, f: Frame, pc: int) -> None:
        s = f.stack
        a = s.pop()
        b = s[-1]
        result = s[-1] = fn(a, b)
        tracked = f.tracked
        if tracked and (a in tracked or b in tracked):
            _derive(t, f, op, a, b, result)

    return handler


def _iszero(t: Tracer, f: Frame, pc: int) -> None:
    """ISZERO, recording as py-evm's hook does (pyevm/opcodes.py hooked_iszero())."""
    s = f.stack
    v = s[-1]
    s[-1] = 0 if v else 1
    if v and f.tracked and v in f.derived:
        t.zero_tested(f.derived[v])


def _derive(t: Tracer, f: Frame, op: int, a: int, b: int, result: int) -> None:
    """An operation on a tracked value (an argument, the block's time, or a value derived from one): noted as py-evm's
    hook notes it."""
    derived = f.derived
    derive(derived, f.sources, op, a, b, result)
    if result in derived:
        f.tracked.add(result)  # type: ignore[union-attr]


def _sdiv(a: int, b: int) -> int:
    a, b = signed(a), signed(b)
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return (-q if (a < 0) != (b < 0) else q) & MASK


def _smod(a: int, b: int) -> int:
    a, b = signed(a), signed(b)
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
    v = signed(value)
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
        write_memory(f, dest, data[offset : offset + size] if offset < len(data) else b"", size)

    return handler


def _extcodecopy(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    address, dest, offset, size = _address(s.pop()), s.pop(), s.pop(), s.pop()
    code = t.code(address)
    write_memory(f, dest, code[offset : offset + size] if offset < len(code) else b"", size)


def _returndatacopy(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    dest, offset, size = s.pop(), s.pop(), s.pop()
    if offset + size > len(f.returndata):
        raise Fault("return data out of bounds")
    write_memory(f, dest, f.returndata[offset : offset + size], size)


_hashes: Bounded[bytes, int] = Bounded(4097)


def _keccak(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset = s.pop()
    data = read_memory(f, offset, s[-1])
    found = _hashes.get(data)
    if found is None:
        # the same slots of the same mappings are hashed call after call
        found = _hashes[data] = int.from_bytes(keccak(data), "big")
    s[-1] = found


def _mload(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset = s[-1]
    expand(f, offset, 32)
    s[-1] = int.from_bytes(f.mem[offset : offset + 32], "big")


def _mstore(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset, value = s.pop(), s.pop()
    expand(f, offset, 32)
    f.mem[offset : offset + 32] = value.to_bytes(32, "big")


def _mstore8(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset, value = s.pop(), s.pop()
    expand(f, offset, 1)
    f.mem[offset] = value & 0xFF


def _mcopy(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    dest, offset, size = s.pop(), s.pop(), s.pop()
    if size:
        expand(f, max(dest, offset), size)
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
        t.trace.logs.append(Log(f.address, found, read_memory(f, offset, size)))

    return handler


def _return(t: Tracer, f: Frame, pc: int) -> bytes:
    s = f.stack
    offset, size = s.pop(), s.pop()
    return read_memory(f, offset, size)


def _revert_op(t: Tracer, f: Frame, pc: int) -> None:
    s = f.stack
    offset, size = s.pop(), s.pop()
    raise Reverted(read_memory(f, offset, size))


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
        data = read_memory(f, in_offset, in_size)
        expand(f, out_offset, out_size)
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
        table[op] = _comparison(fn, op in EQUALITIES, op == SUB)
    for op, (_, fn) in ARITHMETIC.items():
        table[op] = _arithmetic(op, fn)
    table[0x08] = _ternary(lambda a, b, m: (a + b) % m if m else 0)
    table[0x09] = _ternary(lambda a, b, m: (a * b) % m if m else 0)
    table[0x15] = _iszero
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
