"""Runaway calls ended as on chain: a call py-evm ran out of CPU time for is run to its end on revm.

py-evm runs about a million gas a second: a loop bounded only by gas needs some 17 s to use up
the 2**24 gas a call gets, far past [fuzz] call_timeout, where on chain it would simply run out
of gas. When py-evm stops such a call (its state put back as before the call), RevmFinisher copies
py-evm's world into a fresh revm chain, runs the call there (2**24 gas in well under a second)
and returns revm's outcome: an out-of-gas failure like any other, a revert, or a success whose
changes are written back into py-evm exactly (write_state()). Outcomes are remembered by the call, the block and
the whole world the call ran on, so that the same call at the same state (shrinking, later
examples) is not run again; and PyEVMBackend sends a call finished here straight here from then on.

When revm cannot finish it (pyrevm is not installed, revm does not run the evm_version, revm
refuses the call) the result stays a timeout and says why: a limit of evmstate (CallTimeout),
not a failure of the contract.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import EvmStateError
from .base import ChainSpec, ExecResult

# address -> (balance, nonce, code, storage), as PyEVMBackend.world() and load_state() have it
World = dict[bytes, tuple[int, int, bytes, dict[int, int]]]
# what a transaction changed, as PyEVMBackend.write_state() takes it: accounts (None: deleted), slots
Changes = tuple[dict[bytes, tuple[int, int, bytes] | None], dict[tuple[bytes, int], int]]
# outcomes remembered; the oldest is forgotten first
REMEMBERED = 256


class RevmFinisher:
    """Finishes on revm the calls a PyEVMBackend ran out of time for (its finisher)."""

    def __init__(self, spec: ChainSpec) -> None:
        self.spec = spec
        # (kind, call, block, world) -> (outcome, the accounts and the slots a transaction changed)
        self._outcomes: dict[tuple[Any, ...], tuple[ExecResult, Changes]] = {}
        self._revm: Any = None  # a revm chain as the spec describes it: each call runs in an anchor() on it
        self._unavailable: str | None = None
        self.runs = 0  # calls run on revm
        self.recalled = 0  # calls answered from memory

    def unavailable(self) -> str | None:
        """Why revm cannot finish calls of this chain, or None when it can; the chain is made the first time."""
        if self._revm is not None or self._unavailable is not None:
            return self._unavailable
        from .revm import backend as revm  # pyrevm is imported when a call first runs away

        if not revm.available():
            self._unavailable = f"pyrevm is not installed: {revm.INSTALL_HINT}"
        elif self.spec.evm_version not in revm.SPECS:
            self._unavailable = (
                f"revm does not run evm_version {self.spec.evm_version!r} (only {' and '.join(revm.SPECS)})"
            )
        else:
            # its own memory is enough: the revm chain's call cache is off
            self._revm = revm.RevmBackend(dataclasses.replace(self.spec, call_cache="off"))
        return self._unavailable

    def finish(self, backend: Any, kind: str, args: tuple[Any, ...], timed_out: ExecResult) -> ExecResult:
        """The outcome of the call py-evm ran out of time for, its changes written into backend; else timed_out, saying
        why not.

        kind is "transact" or "call", args the arguments of backend.transact() or backend.call().
        """
        why = self.unavailable()
        if why is not None:
            return unfinished(timed_out, why)
        world = backend.world()
        key = (kind, args, backend.timestamp, backend.block_number, frozen(world))
        known = self._outcomes.get(key)
        if known is None:
            try:
                known = self._run(world, kind, args, backend.timestamp, backend.block_number)
            # revm refused the call (RuntimeError), or pyrevm a value (OverflowError): unfinished, saying why
            except (RuntimeError, OverflowError, EvmStateError) as exc:
                return unfinished(timed_out, f"revm failed on it ({type(exc).__name__}: {exc})")
            if len(self._outcomes) >= REMEMBERED:
                del self._outcomes[next(iter(self._outcomes))]
        else:
            self.recalled += 1
        result, (accounts, slots) = known
        result = located(result, timed_out)
        self._outcomes[key] = result, (accounts, slots)
        if kind == "transact":
            backend.write_state(accounts, slots)
            backend.logs.extend(result.logs)
        return dataclasses.replace(result, timeout=timed_out.timeout)

    def _run(
        self, world: World, kind: str, args: tuple[Any, ...], timestamp: int, block_number: int
    ) -> tuple[ExecResult, Changes]:
        revm = self._revm
        self.runs += 1
        found: Changes
        with revm.anchor():
            revm.load_state(world, timestamp=timestamp, block_number=block_number)
            if kind == "call":
                result, found = revm.call(*args), ({}, {})
            else:
                before = revm.state()
                result = revm.transact(*args)
                found = changes(before, revm.state())
        # the explainer would run the call on py-evm again, which is what ran out of time
        return dataclasses.replace(result, explainer=None), found


def unfinished(timed_out: ExecResult, why: str) -> ExecResult:
    """timed_out, saying why revm did not finish the call."""
    assert timed_out.timeout is not None
    return dataclasses.replace(timed_out, timeout=dataclasses.replace(timed_out.timeout, unfinished=why))


def located(result: ExecResult, timed_out: ExecResult) -> ExecResult:
    """An out-of-gas result with the frame py-evm was running when its time ran out: the line that used the gas.

    revm reports no pc; a call that runs out of gas spends it where py-evm was spending it.
    A revert happened after that point, so it is left without a line.
    """
    if not result.out_of_gas or result.frames or not timed_out.frames:
        return result
    return dataclasses.replace(
        result, frames=timed_out.frames, error_address=timed_out.error_address, error_pc=timed_out.error_pc
    )


def frozen(world: World) -> tuple[Any, ...]:
    """The world as one hashable value: equal worlds give equal values."""
    return tuple(
        sorted(
            (address, balance, nonce, code, tuple(sorted(storage.items())))
            for address, (balance, nonce, code, storage) in world.items()
        )
    )


def changes(before: World, after: World) -> Changes:
    """What turned before into after, as write_state() takes it: the accounts (balance, nonce, code; None when
    deleted) and the slots (0 when cleared) that changed."""
    accounts: dict[bytes, tuple[int, int, bytes] | None] = {}
    slots: dict[tuple[bytes, int], int] = {}
    for address in dict.fromkeys([*before, *after]):
        old, new = before.get(address), after.get(address)
        if new is None:
            accounts[address] = None
        elif new != old:
            if old is None or new[:3] != old[:3]:
                accounts[address] = new[:3]
            old_storage = old[3] if old is not None else {}
            slots.update(((address, slot), value) for slot, value in new[3].items() if old_storage.get(slot) != value)
            slots.update(((address, slot), 0) for slot in old_storage if slot not in new[3])
    return accounts, slots
