"""The jump hooks' destinations (evm/cache.py's jump_destinations()) against py-evm's own check of a jump's target."""

from __future__ import annotations

from eth.vm.code_stream import CodeStream
from eth.vm.opcode_values import JUMPDEST, PUSH1, PUSH32
from hypothesis import given, settings, strategies as st

from evmstate.evm.cache import jump_destinations as jumpdests

# codes dense in PUSHes and JUMPDESTs: a JUMPDEST byte inside a PUSH's data is no destination
opcodes = st.sampled_from([JUMPDEST, PUSH1, PUSH1 + 1, PUSH32, 0x00, 0x56, 0x57]) | st.integers(0, 255)


@given(code=st.lists(opcodes, max_size=200).map(bytes))
@settings(max_examples=300)
def test_a_destination_is_where_py_evm_lets_a_jump_land(code):
    found = jumpdests(code)
    stream = CodeStream(code)
    assert found == {i for i in range(len(code)) if code[i] == JUMPDEST and stream.is_valid_opcode(i)}


def test_a_jumpdest_in_push_data_is_none_and_one_after_it_is():
    code = bytes([PUSH1 + 1, JUMPDEST, JUMPDEST, JUMPDEST, PUSH32]) + bytes([JUMPDEST] * 3)
    assert jumpdests(code) == {3}
