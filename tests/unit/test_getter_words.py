"""The getter reader's word paths against eth-abi, over every type they handle: a key by its own value, a value from its storage word."""

from __future__ import annotations

import eth_abi
import pytest
from eth_utils import to_checksum_address
from hypothesis import given, strategies as st

from evmstate.contracts.abi import parse_type
from evmstate.contracts.getters import NOT_READ, key_of, value_of

from ..abi_grammar import INTS, UINTS

WORD_TYPES = UINTS + INTS + ["address", "bool"]


class Raw:
    """Anything with a raw address, as accounts and contracts have."""

    def __init__(self, raw: bytes) -> None:
        self.raw_address = raw


def eth_abi_decoded(t: str, word: bytes):
    """eth-abi's value of one word, as a getter returns it; None when eth-abi refuses the word."""
    try:
        (value,) = eth_abi.decode([t], word)
    except Exception:
        return None
    return to_checksum_address(value) if t == "address" else value


@pytest.mark.parametrize("t", WORD_TYPES)
@given(word=st.one_of(st.integers(0, 2**256 - 1), st.integers(0, 2**8), st.integers(2**256 - 2**8, 2**256 - 1), st.integers(0, 2**160 + 1)))
def test_a_value_from_its_storage_word_is_eth_abis(t, word):
    got = value_of(parse_type(t))(word)
    expected = eth_abi_decoded(t, word.to_bytes(32, "big"))
    if expected is None:
        assert got is NOT_READ  # the codec then reports what eth-abi says
    else:
        assert got == expected and type(got) is type(expected)


def key_values(t: str) -> st.SearchStrategy:
    """What a user may pass as a key of type t: the right values, and values of the wrong type or size."""
    wrong = st.one_of(st.booleans(), st.integers(-(2**256), 2**257), st.floats(allow_nan=False), st.text(max_size=3), st.binary(min_size=20, max_size=20))
    if t == "address":
        return st.one_of(st.binary(min_size=20, max_size=20).map(Raw), st.binary(min_size=20, max_size=20).map(lambda b: to_checksum_address(b)), wrong)
    return wrong


def eth_abi_encoded(t: str, value) -> bytes | None:
    """eth-abi's encoding of what a key stands for; None when eth-abi refuses it."""
    if isinstance(value, Raw):
        value = to_checksum_address(value.raw_address)
    if t.startswith(("uint", "int")) and type(value) is not int:
        return None  # the codec refuses bools, floats and strings for ints before eth-abi sees them
    try:
        return eth_abi.encode([t], [value])
    except Exception:
        return None


@pytest.mark.parametrize("t", WORD_TYPES)
@given(data=st.data())
def test_a_key_by_its_own_value_stands_for_eth_abis_encoding(t, data):
    """A key the reader takes by value is one eth-abi encodes; two with the same key encode the same."""
    key = key_of(parse_type(t))
    first, second = data.draw(key_values(t)), data.draw(key_values(t))
    k1, k2 = key(first), key(second)
    for value, k in ((first, k1), (second, k2)):
        if k is not None:
            assert eth_abi_encoded(t, value) is not None
    if k1 is not None and k1 == k2:
        assert eth_abi_encoded(t, first) == eth_abi_encoded(t, second)
    if k1 is not None and k2 is not None and k1 != k2:
        assert eth_abi_encoded(t, first) != eth_abi_encoded(t, second)
