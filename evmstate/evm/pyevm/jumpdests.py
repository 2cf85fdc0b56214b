"""Where a JUMP or JUMPI may land in a code: its JUMPDESTs outside PUSH data, found once per code (opcodes.py's jump
hooks ask it for every jump)."""

from __future__ import annotations

from typing import Any

from eth.exceptions import InvalidInstruction, InvalidJumpDestination
from eth.vm.opcode_values import JUMPDEST, PUSH0, PUSH1, PUSH32


# the valid jump destinations of each code run lately (JUMPDESTs outside PUSH data), by its bytes: py-evm's CodeStream
# finds them again for every frame, scanning back from each destination (a 19 KB vault's calls spent a tenth of their
# time there), and a code is run by many frames
_JUMPDESTS: dict[bytes, frozenset[int]] = {}
_JUMPDESTS_KEPT = 256


def jumpdests(code: bytes) -> frozenset[int]:
    """The positions a JUMP or JUMPI may land at in code."""
    found = _JUMPDESTS.get(code)
    if found is None:
        if len(_JUMPDESTS) >= _JUMPDESTS_KEPT:
            _JUMPDESTS.clear()
        at, end, dests = 0, len(code), []
        while at < end:
            op = code[at]
            if op == JUMPDEST:
                dests.append(at)
            at += op - PUSH0 + 1 if PUSH1 <= op <= PUSH32 else 1
        found = _JUMPDESTS[code] = frozenset(dests)
    return found


def invalid_jump(code: Any) -> None:
    """Raise what py-evm raises for a jump to a position not in jumpdests() (the code stream at it)."""
    if code.peek() != JUMPDEST:
        raise InvalidJumpDestination("Invalid Jump Destination")
    raise InvalidInstruction("Jump resulted in invalid instruction")
