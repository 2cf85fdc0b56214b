"""HexBytes and format_value(): bytes read as 0x... in reports and as HexBytes('0x...') in programs."""

from __future__ import annotations

import collections
import copy
import pickle
from decimal import Decimal

import eth_abi
import pytest
from hypothesis import Phase, given, seed, settings, strategies as st

from evmstate import HexBytes, UsageError, strategy
from evmstate.contracts.abi import param_type, parse_type
from evmstate.contracts.codec import Codec
from evmstate.contracts.events import Event
from evmstate.failures import decode_value, encode_value
from evmstate.search.dictionary import mixed
from evmstate.values import format_value

Struct = collections.namedtuple("Struct", ["salt", "amount"])
SALT = bytes(range(32))
SALT_HEX = "0x" + SALT.hex()


# -- HexBytes -------------------------------------------------------------------


def test_hexbytes_is_the_same_bytes_shown_as_hex():
    h = HexBytes(SALT)
    assert isinstance(h, bytes) and h == SALT and SALT == h and hash(h) == hash(SALT)
    assert {SALT: 1}[h] == 1 and h in {SALT}
    assert str(h) == SALT_HEX and f"{h}" == SALT_HEX
    assert repr(h) == f"HexBytes('{SALT_HEX}')"
    assert HexBytes(SALT_HEX) == SALT and HexBytes(SALT_HEX.upper().replace("0X", "0X")) == SALT
    assert HexBytes(bytearray(b"\x01\x02")) == b"\x01\x02" and HexBytes(memoryview(b"\x03")) == b"\x03"
    assert HexBytes() == b"" and str(HexBytes()) == "0x" and HexBytes("0x") == b""


def test_a_slice_is_hexbytes_an_index_an_int_other_operations_plain_bytes():
    h = HexBytes(SALT)
    assert type(h[:4]) is HexBytes and h[:4] == SALT[:4] and repr(h[30:]) == "HexBytes('0x1e1f')"
    assert h[1] == 1
    assert type(h + b"") is bytes and h + b"\xff" == SALT + b"\xff"


def test_hexbytes_survives_pickling_and_copying():
    h = HexBytes(SALT)
    for again in (pickle.loads(pickle.dumps(h)), copy.copy(h), copy.deepcopy(h)):
        assert type(again) is HexBytes and again == h


@pytest.mark.parametrize(
    "value, message",
    [
        (5, "HexBytes(5): an int has no width; write HexBytes((5).to_bytes(32, 'big')) for a bytes32, or pass the int itself to a bytesN argument"),
        ("00ff", "HexBytes('00ff'): a hex string starts with 0x, e.g. HexBytes('0x00ff'); for text, write HexBytes('00ff'.encode())"),
        ("0xzz", "HexBytes('0xzz'): not hex; write two hex digits a byte after the 0x"),
        ("0x123", "HexBytes('0x123'): not hex"),
        (None, "HexBytes() takes bytes or a 0x-prefixed hex string, got NoneType None"),
        (True, "HexBytes() takes bytes or a 0x-prefixed hex string, got bool True"),
    ],
)
def test_hexbytes_refuses_what_is_not_bytes_or_0x_hex(value, message):
    with pytest.raises(UsageError) as caught:
        HexBytes(value)
    assert str(caught.value).startswith(message)


def test_eth_abi_and_the_codec_take_hexbytes_as_bytes():
    values = [HexBytes(SALT), HexBytes(b"\x01\x02\x03")]
    assert eth_abi.encode(["bytes32", "bytes"], values) == eth_abi.encode(["bytes32", "bytes"], [SALT, b"\x01\x02\x03"])
    codec = Codec("f", [parse_type("bytes32"), parse_type("bytes"), parse_type("(bytes4,uint8)[]")], [])
    assert codec.encode([*values, [(HexBytes("0x01020304"), 7)]]) == codec.encode([SALT, b"\x01\x02\x03", [(b"\x01\x02\x03\x04", 7)]])


def test_decoded_bytes_are_hexbytes_inside_arrays_and_structs_too():
    t = param_type({"type": "tuple[]", "components": [{"name": "salt", "type": "bytes32"}, {"name": "data", "type": "bytes"}]})
    decoded = t.from_abi(eth_abi.decode([t.name], eth_abi.encode([t.name], [[(SALT, b"\xff")]]))[0])
    ((salt, data),) = decoded
    assert type(salt) is HexBytes and type(data) is HexBytes and salt == SALT
    assert format_value(decoded) == f"[Struct(salt={SALT_HEX}, data=0xff)]"


def test_a_recorded_bytes_value_replays_as_hexbytes():
    data = encode_value([HexBytes(SALT), (b"\x01",)])
    assert data == [{"bytes": SALT.hex()}, {"tuple": [{"bytes": "01"}]}]
    replayed = decode_value(data, accounts=[], refs={})
    assert replayed == [SALT, (b"\x01",)] and type(replayed[0]) is HexBytes and type(replayed[1][0]) is HexBytes


# -- format_value ---------------------------------------------------------------


def test_bytes_inside_lists_tuples_structs_and_dicts():
    value = [SALT, (b"\x01",), (b"\x01", b"\x02"), Struct(salt=bytearray(b"\xab"), amount=3), {b"\x0f": [b""]}, "text", None]
    assert format_value(value) == f"[{SALT_HEX}, (0x01,), (0x01, 0x02), Struct(salt=0xab, amount=3), {{0x0f: [0x]}}, 'text', None]"
    assert format_value(value, code=True) == (
        f"[HexBytes('{SALT_HEX}'), (HexBytes('0x01'),), (HexBytes('0x01'), HexBytes('0x02')), "
        "Struct(salt=HexBytes('0xab'), amount=3), {HexBytes('0x0f'): [HexBytes('0x')]}, 'text', None]"
    )


def test_an_events_bytes_fields_read_as_hex():
    event = Event("CallScheduled", "0x" + "11" * 20, {"id": HexBytes(SALT), "salts": [b"\x01", b"\x02"], "amount": 5})
    assert repr(event) == f"CallScheduled(id={SALT_HEX}, salts=[0x01, 0x02], amount=5)"
    assert format_value([event]) == f"[CallScheduled(id={SALT_HEX}, salts=[0x01, 0x02], amount=5)]"


def test_names_are_asked_first_for_every_item():
    def names(value):
        return "accounts[1]" if value == "0xAbC" else None

    assert format_value([("0xAbC", b"\x01"), Struct("0xAbC", 1)], name=names) == "[(accounts[1], 0x01), Struct(salt=accounts[1], amount=1)]"
    assert format_value("0xAbC", name=names) == "accounts[1]" and format_value("0xdef", name=names) == "'0xdef'"


def test_a_list_that_holds_itself_ends():
    looped: list = [b"\x01"]
    looped.append(looped)
    assert format_value(looped).startswith("[0x01, [")


_leaves = st.integers() | st.text(max_size=5) | st.booleans() | st.none() | st.decimals(allow_nan=False, places=2)


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return (
        st.lists(children, max_size=3)
        | st.lists(children, max_size=3).map(tuple)
        | st.builds(Struct, children, children)
        | st.dictionaries(st.integers() | st.text(max_size=3), children, max_size=2)
    )


@given(st.recursive(_leaves, _containers, max_leaves=10))
def test_values_without_bytes_read_as_their_repr_in_both_modes(value):
    # programs without bytes arguments read as they did, and keep their failure ids
    assert format_value(value) == repr(value) == format_value(value, code=True)


class _Hex:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def __repr__(self) -> str:
        return "0x" + self.data.hex()


def _hexed(value):
    """value with each bytes leaf replaced by what text mode must show for it."""
    if isinstance(value, bytes):
        return _Hex(value)
    if isinstance(value, Struct):
        return Struct(*map(_hexed, value))
    if isinstance(value, (list, tuple)):
        return type(value)(map(_hexed, value))
    if isinstance(value, dict):
        return {_hexed(k): _hexed(v) for k, v in value.items()}
    return value


@given(st.recursive(_leaves | st.binary(max_size=4) | st.binary(min_size=32, max_size=32).map(HexBytes), _containers, max_leaves=10))
def test_program_values_paste_back_and_report_values_read_as_hex(value):
    shown = format_value(value, code=True)
    assert eval(shown, {"HexBytes": HexBytes, "Struct": Struct, "Decimal": Decimal}) == value
    assert format_value(value) == repr(_hexed(value))


# -- drawn values ------------------------------------------------------------------


def _drawn(strat: st.SearchStrategy, n: int = 40) -> list:
    values = []

    @seed(20240611)
    @settings(max_examples=n, database=None, derandomize=False, phases=[Phase.generate])
    @given(strat)
    def collect(value):
        values.append(value)

    collect()
    return values


@pytest.mark.parametrize("type_str", ["bytes1", "bytes32", "bytes", "bytes4[2]", "(bytes32,uint8)"])
def test_drawn_bytes_are_hexbytes(type_str):
    def leaves(v):
        return [x for item in v for x in leaves(item)] if isinstance(v, (list, tuple)) else [v]

    drawn = [leaf for value in _drawn(strategy(type_str), 20) for leaf in leaves(value) if isinstance(leaf, bytes)]
    assert drawn and all(type(leaf) is HexBytes for leaf in drawn)


def test_a_seed_draws_the_same_bytes32_values_as_plain_bytes_did():
    before = mixed(st.binary(min_size=32, max_size=32), lambda d: d.fixed_bytes(32))  # strategy("bytes32") before HexBytes
    old, new = _drawn(before), _drawn(strategy("bytes32"))
    assert len(set(old)) > 10 and new == old and all(type(v) is bytes for v in old)


def test_a_machine_step_draws_the_same_bytes_values_as_plain_bytes_did():
    # a machine draws a step's arguments inside one draw, through evmstate_draw where a strategy has it
    new_draw = strategy("bytes").evmstate_draw
    plain = st.binary(min_size=0, max_size=64)
    old = _drawn(st.composite(lambda draw: (draw(plain), draw(st.integers(0, 9))))())
    new = _drawn(st.composite(lambda draw: (new_draw(draw), draw(st.integers(0, 9))))())
    assert len({v for v, _ in old}) > 10 and new == old and all(type(v) is HexBytes for v, _ in new)
