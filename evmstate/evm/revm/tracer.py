"""A small EVM interpreter that runs one call again to see its path: what revm cannot show.

revm (pyrevm 0.3.7) has no per-opcode hooks; its only tracer prints EIP-3155 JSON through
Python's print, one small write at a time (about 0.6 s for one ERC20 transfer). So, while the
search needs branch coverage, comparison operands or the storage a call read and wrote, the revm
backend runs each call again here, from the same state, and records what py-evm's hooks would
record (pyevm/opcodes.py): per code, 2*pc + taken of each JUMPI and ~dest of each jump
destination; how often each JUMPI went each way; the other side of each comparison of an
argument (and the argument solved for, through the arithmetic it went through); every storage
read and write in order, SSTORE reading the slot first, as py-evm does.

Gas is not modelled: a path depends on it only through GAS, running out of gas and the gas a
sub-call is given. GAS pushes a value that only a CALL's gas argument may take (meaning all of
it; any other use gives up), the caller gives up when revm reports more than half the call's gas
spent (no frame can have run out of gas with all the gas it could get), and a sub-call given a
fixed amount of gas to run code in gives up too. Whatever it does not model (CREATE, CREATE2,
CALLCODE, SELFDESTRUCT, BLOCKHASH, BLOBBASEFEE, precompiles but identity and sha256, deep calls, huge
memory) raises
Unsupported, and so does a run whose outcome (success, output, logs, storage written) is not
revm's: the caller then runs the call on py-evm with its hooks instead (revm.py).
"""

from __future__ import annotations

from typing import Any

from ..base import INITCODE, Feedback
from .frames import (
    DUP1,
    DUP16,
    Env,
    Fault,
    Frame,
    GAS,
    JUMP,
    JUMPDEST,
    JUMPI,
    MAX_DEPTH,
    POP,
    PRECOMPILES,
    PUSH0,
    PUSH1,
    PUSH32,
    RUN_PRECOMPILES,
    Reverted,
    SWAP1,
    SWAP16,
    Trace,
    Unsupported,
    World,
)
from ..pyevm.opcodes import MAX_OPERANDS, argument_words, clock_source, compared, zero_tested
from .ops import TABLE

_MISSING = object()


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
        """Run the call as a transaction (static=False) or an eth_call; raises Unsupported for what it does not
        model."""
        if int.from_bytes(to, "big") in PRECOMPILES:
            raise Unsupported("a call to a precompile")
        if value and static:
            raise Unsupported("a static call with value")
        if value and self.balance(sender) < value:
            self.balances[sender] = value  # an eth_call with value, as both backends run it
        self._transfer(sender, to, value)
        code = self.code(to)
        if not code:
            self.trace.success = True
            return self._ended()
        return self._ran(Frame(code, to, to, sender, value, data, static, 0))

    def deploy(self, sender: bytes, created: bytes, initcode: bytes, value: int) -> Trace:
        """Run a deployment's initcode as the contract at created (empty before it); its output is the code deployed.

        Its jumps are recorded under INITCODE + created, as py-evm's hooks record a contract being created."""
        self._transfer(sender, created, value)
        return self._ran(Frame(initcode, created, INITCODE + created, sender, value, b"", False, 0))

    def _ran(self, frame: Frame) -> Trace:
        trace = self.trace
        try:
            trace.output = self._execute(frame)
            trace.success = True
        except Reverted as r:
            trace.output, trace.reverted = r.output, True
        except (Fault, IndexError):
            pass
        return self._ended()

    def _ended(self) -> Trace:
        trace = self.trace
        if not trace.success:
            self._revert((0, 0))
        trace.written = self.storage
        return trace

    def _execute(self, f: Frame) -> bytes:
        """Run a frame to its end: its output, or Reverted / Fault / IndexError when it fails."""
        code, prog, stack = f.code, f.prog, f.stack
        pushes, dests = prog.pushes, prog.dests
        if self.feedback is not None:
            f.sources = clock_source(self.words(f), self.env.timestamp)
            f.tracked = set(f.sources)
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
                    if condition > 1 and f.tracked and condition in f.derived:
                        self.zero_tested(f.derived[condition])  # a number tested as it is (`assert x > 0`)
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

    def _precompile(
        self, f: Frame, address: int, gas: Any, to: bytes, value: int, data: bytes, kind: str
    ) -> tuple[bool, bytes]:
        """A sub-call to a precompile the tracer runs (frames.RUN_PRECOMPILES: identity, which vyper before MCOPY
        copies memory with, and sha256); the others raise Unsupported. With all the gas (GAS) or a fixed amount no
        less than its price it succeeds; with less it fails, as revm's does."""
        run = RUN_PRECOMPILES.get(address)
        if run is None:
            raise Unsupported("a call to a precompile")
        price, output = run(data)
        if gas is not GAS and gas < price:
            return False, b""
        if kind == "call" and value:
            if self.balance(f.address) < value:
                return False, b""
            self._transfer(f.address, to, value)
        return True, output

    def compared(self, f: Frame, a: Any, b: Any, equal: bool) -> None:
        """A comparison of a and b whose operands are recorded: recorded as py-evm's hook records it."""
        words = self.words(f)
        env = self.env
        self.block_read = True  # what it records depends on whether a or b is the block's time or number
        compared(self.feedback, words, a, b, env.timestamp, env.number, equal, f.derived)  # type: ignore[arg-type]

    def zero_tested(self, origin: tuple[int, tuple[tuple[int, int], ...]]) -> None:
        """A number derived from an argument tested for zero (a JUMPI or an ISZERO on it): recorded as py-evm's hooks
        record it (pyevm/opcodes.py zero_tested())."""
        if self.feedback is not None:
            zero_tested(self.feedback, origin)

    def matched(self, f: Frame, a: int) -> None:
        """An XOR or SUB of a with itself that is not tested, while Feedback.everywhere asks: kept as py-evm's does."""
        feedback = self.feedback
        if feedback is not None and a in self.words(f) and len(feedback.matched) < MAX_OPERANDS:
            feedback.matched.append(a)

    def words(self, f: Frame) -> frozenset[int]:
        """The frame's arguments: the words of its calldata after the selector (and its value, for the shrinker)."""
        words = f.words
        if words is None:
            words = f.words = argument_words(f.data, f.value, self.feedback is not None and self.feedback.everywhere)
        return words

    def call(
        self, f: Frame, gas: Any, to: bytes, value: int, data: bytes, code_address: bytes, kind: str
    ) -> tuple[bool, bytes]:
        """A sub-call (CALL, STATICCALL, DELEGATECALL): (success, return data)."""
        precompile = int.from_bytes(code_address, "big")
        if precompile in PRECOMPILES:
            return self._precompile(f, precompile, gas, to, value, data, kind)
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
