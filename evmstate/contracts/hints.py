"""What the report of a failed call adds beyond its reason and line: a time limit it ran past, gas it could not pay.

Said of a call that ran out of gas: the one step whose cost no gas limit pays (a memory expansion
from a value out of range), against the block's gas limit, where the backend tells it; else the
call's gas cap used up step by step (a loop that never ends?). Of a call py-evm ran past
[fuzz] call_timeout: that it is a limit of evmstate, and whether revm finished it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..evm.base import OUT_OF_MEMORY_GAS, SHORT_LIMIT_FACTOR, SHORT_LIMIT_FLOOR

if TYPE_CHECKING:
    from ..evm.base import ExecResult


def timeout_message(result: "ExecResult", description: str, source: str | None) -> str:
    """A call py-evm stopped at its time limit: how long, where it was, why the limit, and that it is evmstate's limit,
    not the contract's failure."""
    timeout = result.timeout
    assert timeout is not None
    configured = f"[fuzz] call_timeout = {timeout.configured:g} s"
    lines = [f"{description} did not finish within {timeout.limit:.2g} s"]
    if source:
        lines.append(f"  running {source}")
    if timeout.shortened:
        why = (
            f"An earlier call ran past {configured} (evmstate.toml); since then calls get {SHORT_LIMIT_FACTOR} times "
            f"the slowest call that finished (at least {SHORT_LIMIT_FLOOR:g} s), so that runaway calls cost little "
            "time."
        )
    else:
        why = f"The limit is {configured} of CPU time per call (evmstate.toml)."
    lines.append(why)
    if timeout.unfinished is None:
        revm = 'evmstate runs such calls to their end on revm when pyrevm is installed (pip install "evmstate[revm]").'
    else:
        revm = f"revm, which would run it to its end in well under a second, could not: {timeout.unfinished}."
    lines.append(
        "This is a limit of evmstate, not a failure of the contract: on chain the call would finish, or run out of "
        f"its {result.gas_limit} gas ([fuzz] call_gas_limit), and py-evm runs about a million gas a second. {revm} "
        "Else raise call_timeout, or set it to 0 for no limit, or lower call_gas_limit."
    )
    return "\n".join(lines)


def _finished_note(result: ExecResult) -> str | None:
    """For a call py-evm ran out of time for and revm finished: so it says."""
    if result.timeout is None:
        return None
    where = ", and the line is where py-evm was running" if result.frames else ""
    return (
        "This call ran past [fuzz] call_timeout on py-evm (now or before): revm ran it to its end, as the chain "
        f"would{where}."
    )


# py-evm's out-of-gas error: the cost of the one step that could not be paid, what was left, and what the step was
_NEEDED = re.compile(r"Needed (\d+) - Remaining (\d+) - Reason: (.*)$", re.S)
_MEMORY = re.compile(r"Expanding memory (\d+) -> (\d+)")


def _one_step_hint(result: "ExecResult", block_gas_limit: int | None) -> str | None:
    """For a call that ran out of gas at one step costing more than it ever had (a huge memory expansion): what it
    needed, against the block's gas limit."""
    error = result.error or ""
    block = (
        f"the block's gas limit ([chain] gas_limit) is {block_gas_limit:,}"
        if block_gas_limit
        else "the block's gas limit is [chain] gas_limit"
    )
    cause = (
        "Memory that large comes from a value out of range used as an offset or a length (an index, an amount), or "
        "from a local array or copy that big."
    )
    if error == OUT_OF_MEMORY_GAS:  # revm: the step's cost is not told
        return (
            f"It ran out of gas in one step, expanding memory past what the call's {result.gas_limit:,} gas pays for; "
            f"{block}. {cause} (py-evm, --backend pyevm, says how much it asked for.)"
        )
    m = _NEEDED.search(error)
    if m is None or int(m.group(1)) <= result.gas_limit:
        return None  # the gas went step by step: a long loop, not one costly step
    needed, left, step = int(m.group(1)), int(m.group(2)), m.group(3).strip()
    memory = _MEMORY.fullmatch(step)
    what = f"expanding memory from {int(memory.group(1)):,} to {int(memory.group(2)):,} bytes" if memory else step
    if block_gas_limit and needed > block_gas_limit:
        verdict = (
            f"more than the block's gas limit ([chain] gas_limit), {block_gas_limit:,}: no gas limit lets it run. "
            f"{cause if memory else ''}"
        ).rstrip()
    else:
        verdict = f"{block}: raise [fuzz] call_gas_limit (at most the block's gas limit) if the call must do this."
    return (
        f"It needed {needed:,} gas for one step ({what}) with {left:,} left of the call's {result.gas_limit:,}; that "
        f"is {verdict}"
    )


def _gas_cap_hint(result: "ExecResult") -> str | None:
    if not (result.out_of_gas and result.at_gas_cap):
        return None
    return (
        f"It used all {result.gas_limit} gas a call gets: [fuzz] call_gas_limit in evmstate.toml "
        "(2**24 by default, EIP-7825's per-transaction cap). A loop that never ends? "
        "If the call needs more gas, raise call_gas_limit."
    )


def hint(result: ExecResult, block_gas_limit: int | None = None) -> str | None:
    """What the report of a failed call adds: the one costly step it could not pay, the gas cap it used up, that revm
    finished it."""
    if not result.out_of_gas and result.timeout is None:
        return None  # most failed calls: nothing to add
    gas = (_one_step_hint(result, block_gas_limit) or _gas_cap_hint(result)) if result.out_of_gas else None
    return "\n".join(hint for hint in (gas, _finished_note(result)) if hint) or None
