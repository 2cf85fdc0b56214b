"""The opcodes a code can run: what follows a halt is left out until a JUMPDEST, push data always."""

from evmstate.evm.cache import opcodes, runnable_opcodes

CALL, CREATE2, JUMPDEST, PUSH2, REVERT, STOP = 0xF1, 0xF5, 0x5B, 0x61, 0xFD, 0x00


def test_bytes_after_a_halt_run_only_from_a_jumpdest():
    # PUSH2 0xF1F1 (data, not a CALL), REVERT, then a CREATE2 byte no jump can reach
    code = bytes([PUSH2, CALL, CALL, REVERT, CREATE2])
    assert opcodes(code) == {PUSH2, REVERT, CREATE2}
    assert runnable_opcodes(code) == {PUSH2, REVERT}
    # a JUMPDEST after the halt: what follows it runs when a jump lands there
    code = bytes([STOP, CREATE2, JUMPDEST, CALL, STOP, CALL])
    assert runnable_opcodes(code) == {STOP, JUMPDEST, CALL}
