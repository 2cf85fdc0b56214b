"""A Venom build's failure: the check that failed, where that can be proven, and why no source line is named.

Venom's source map leaves most instructions unplaced (vyper issue #5141), so the nearest placed one is
often another statement's, or another function's: evmstate names no line rather than a wrong one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..compiler.artifacts import Artifact
    from ..evm.base import ExecResult, Frame

_JUMPDEST, _PUSH1, _JUMPI = 0x5B, 0x60, 0x57
# PUSH0, DUP1, PUSH1: what vyper's shared REVERT block runs between its JUMPDEST and the REVERT
_REVERT_TAIL = {0x5F, 0x80, 0x60}


def jumped_to(code: bytes, jump_pc: int) -> int | None:
    """Where the JUMPI at jump_pc goes, when the instruction before it pushes the destination (PUSH1 to PUSH4)."""
    for size in range(1, 5):
        at = jump_pc - 1 - size
        if at >= 0 and code[at] == _PUSH1 + size - 1 and jump_pc < len(code) and code[jump_pc] == _JUMPI:
            return int.from_bytes(code[at + 1 : jump_pc], "big")
    return None


def failed_check(result: ExecResult, chosen: Frame, artifact: Artifact) -> str | None:
    """The check vyper's error map names for the failing REVERT, only where the jump taken provably leads to it."""
    if result.error != "revert" or result.output:
        return None
    emap = artifact.deploy_error_map if chosen.is_create else artifact.error_map
    check = emap.get(chosen.pc)
    jump = chosen.jump_pc
    if check is None and jump is not None:
        dest = jumped_to(chosen.code, jump)
        between = chosen.code[dest + 1 : chosen.pc] if dest is not None and dest < chosen.pc else b"x"
        if dest is not None and chosen.code[dest] == _JUMPDEST and len(between) <= 4 and set(between) <= _REVERT_TAIL:
            check = emap.get(jump)
    return check


def unplaced(artifact: Artifact) -> str:
    """Why a Venom build's failure names no line, as the report says it."""
    from ..compiler.artifacts import VENOM_NO_LINES

    return f"{_shown(artifact.path)}: no line: {VENOM_NO_LINES}"


def _shown(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path
