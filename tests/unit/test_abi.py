"""The codec against eth-abi over the whole type grammar, the one-word path against the general one, EIP-712."""

from __future__ import annotations

from decimal import Decimal

import eth_abi
import pytest
from eth_keys import keys
from eth_utils import keccak
from hypothesis import given, settings, strategies as st

from evmstate import ContractError, Project, UsageError, strategy
from evmstate.contracts.abi import parse_type, param_type
from evmstate.contracts.codec import Codec
from evmstate.contracts.typed_data import typed_data_hash
from evmstate.contracts.accounts import eip191_hash
from evmstate.config import Config, ProjectConfig

from ..abi_grammar import COMPOSITES, LEAVES, MIXED, _split_top, abi_types, assert_same, expected_output


@pytest.fixture(scope="module")
def loaded(contracts_root):
    """A loaded project, for the accounts strategy("address") draws from; nothing runs on its chain.

    Not named accounts: evmstate's pytest plugin would load the project of the folder pytest runs in
    (compiling this repository's contracts into it) for a test that asks for a fixture of that name.
    """
    return Project(Config(root=contracts_root, project=ProjectConfig(contracts="contracts"))).accounts


def eth_abi_type(t: str) -> str:
    return t.replace("decimal", "int168")


def eth_abi_value(t: str, value):
    """value as eth-abi takes it, worked out here independently of the codec."""
    if t.endswith("]"):
        inner = t[: t.rindex("[")]
        return [eth_abi_value(inner, v) for v in value]
    if t.startswith("("):
        return tuple(eth_abi_value(p, v) for p, v in zip(_split_top(t[1:-1]), value))
    if t == "address":
        return value.address
    if t == "decimal":
        return int(value.scaleb(10))
    return value


@settings(max_examples=60)
@given(data=st.data())
def test_codec_agrees_with_eth_abi_over_the_grammar(loaded, data):
    """Every type the grammar makes (static arrays of strings too, which Vyper cannot declare)."""
    types = data.draw(st.lists(abi_types(), min_size=1, max_size=3), label="types")
    values = data.draw(st.tuples(*(strategy(t) for t in types)), label="values")
    for words in (True, False):
        codec = Codec("f", [parse_type(t) for t in types], [parse_type(t) for t in types], words=words)
        encoded = codec.encode(values)
        assert encoded == eth_abi.encode([eth_abi_type(t) for t in types], [eth_abi_value(t, v) for t, v in zip(types, values)])
        got = codec.decode(encoded)
        assert_same(got if len(types) > 1 else (got,), tuple(expected_output(t, v) for t, v in zip(types, values)))


# every static type the echo contracts declare (tests/integration/test_codec.py runs them through Vyper)
STATIC_TYPES = [t for t in dict.fromkeys([*LEAVES, *COMPOSITES, *MIXED]) if not parse_type(t).dynamic]
# and what Vyper cannot declare but the ABI has: static tuples inside arrays inside tuples
STATIC_TYPES += ["((uint8,bool)[2],address)", "(bytes3,(int16,decimal))[2]"]


def test_the_static_types_cover_every_kind():
    kinds = {parse_type(t).kind for t in STATIC_TYPES} | {parse_type(t).item.kind for t in STATIC_TYPES if parse_type(t).kind == "array"}
    assert kinds == {"uint", "int", "address", "bool", "bytesN", "decimal", "array", "tuple"}
    assert {"int64[2][3]", "(int8,decimal,bytes32[2])", "decimal[2]", "bytes1[2]"} <= set(STATIC_TYPES)


_STRATEGIES: dict[str, st.SearchStrategy] = {}


def _strategy(t: str) -> st.SearchStrategy:
    """strategy(t), built once per type (addresses draw from the loaded fixture's project, module-wide)."""
    if t not in _STRATEGIES:
        _STRATEGIES[t] = strategy(t)
    return _STRATEGIES[t]


def both_paths(types: list[str]) -> tuple[Codec, Codec]:
    parsed = [parse_type(t) for t in types]
    direct, general = Codec("f", parsed, parsed, words=True), Codec("f", parsed, parsed, words=False)
    assert direct._encoders is not None and direct._decoders is not None and general._encoders is None
    return direct, general


def outcome(run):
    try:
        return run()
    except ContractError as e:
        return ("refused", str(e))


@given(data=st.data())
def test_direct_path_gives_eth_abis_bytes_and_values(loaded, data):
    """Every static type in one signature, or a few side by side."""
    types = data.draw(st.one_of(st.just(STATIC_TYPES), st.lists(st.sampled_from(STATIC_TYPES), min_size=1, max_size=4)), label="types")
    values = data.draw(st.tuples(*(_strategy(t) for t in types)), label="values")
    direct, general = both_paths(types)
    encoded = direct.encode(values)
    assert encoded == general.encode(values) == eth_abi.encode([eth_abi_type(t) for t in types], [eth_abi_value(t, v) for t, v in zip(types, values)])
    got = direct.decode(encoded)
    assert_same(got, general.decode(encoded))
    assert_same(got if len(types) > 1 else (got,), tuple(expected_output(t, v) for t, v in zip(types, values)))


_EDGE_WORDS = [b"\0" * 31 + b"\1", b"\xff" * 32, b"\0" * 12 + b"\xff" * 20, b"\x80" + b"\0" * 31, b"\xab" * 4 + b"\0" * 28, b"\0" * 31 + b"\2"]


@settings(max_examples=100)
@given(data=st.data())
def test_direct_path_decodes_any_words_as_eth_abi_does(data):
    """Words of every kind, most of them no valid encoding (dirty padding, out of range, a bool of 2): both paths
    give the same value, or both refuse."""
    types = data.draw(st.lists(st.sampled_from(STATIC_TYPES), min_size=1, max_size=3), label="types")
    direct, general = both_paths(types)
    count = direct._out_size // 32
    words = data.draw(st.lists(st.one_of(st.binary(min_size=32, max_size=32), st.sampled_from(_EDGE_WORDS)), min_size=count, max_size=count + 1), label="words")
    raw = b"".join(words)
    fast, slow = outcome(lambda: direct.decode(raw)), outcome(lambda: general.decode(raw))
    if isinstance(slow, tuple) and slow[:1] == ("refused",):
        assert fast == slow
    else:
        assert_same(fast, slow)


@given(data=st.data())
def test_direct_path_takes_or_refuses_any_value_as_the_general_path_does(loaded, data):
    """A value of any type, given where a static type is wanted: the same bytes, or the same error."""
    target = data.draw(st.sampled_from(STATIC_TYPES), label="type")
    other = data.draw(st.sampled_from([*LEAVES, *COMPOSITES]), label="value's type")
    value = data.draw(_strategy(other), label="value")
    direct, general = both_paths([target])
    assert outcome(lambda: direct.encode([value])) == outcome(lambda: general.encode([value]))


@pytest.mark.parametrize(
    "t, value, message",
    [
        ("uint8", 256, r"T.f argument 1 \(uint8\): 256 does not fit in uint8"),
        ("bool", 1, r"T.f argument 1 \(bool\): expected True or False for bool, got 1"),
        ("address", "0x11", r"T.f argument 1 \(address\): expected an account"),
        ("bytes4", b"\0\0", r"T.f argument 1 \(bytes4\): bytes4 takes exactly 4 bytes, got 2"),
        ("uint8[2]", [1, 256], r"T.f argument 1 \(uint8\[2\]\)\[1\]: 256 does not fit in uint8"),
        ("uint8[2]", [1], r"uint8\[2\] needs exactly 2 items, got 1"),
        ("int64[2][3]", [[1, 2]] * 2, r"int64\[2\]\[3\] needs exactly 3 items, got 2"),
        ("(uint256,bool)", {"f0": 1}, r"expected a tuple of 2 for \(uint256,bool\)"),
        ("(int8,decimal,bytes32[2])", (1, "0.00000000001", [b"\0" * 32] * 2), r"argument 1 \(\(int8,decimal,bytes32\[2\]\)\).1: '0.00000000001' has more than 10 decimal places"),
    ],
)
def test_direct_path_reports_bad_values_as_the_general_path_does(t, value, message):
    parsed = [parse_type(t)]
    for words in (True, False):
        with pytest.raises(ContractError, match=message):
            Codec("T.f", parsed, [], words=words).encode([value])


def test_structs_go_in_as_dicts_and_come_back_named_on_the_direct_path():
    param = {"name": "s", "type": "tuple", "components": [{"name": "a", "type": "uint8"}, {"name": "b", "type": "int168[2]", "internalType": "decimal"}]}
    t = param_type(param)
    codec = Codec("f", [t], [t])
    assert codec._encoders is not None and codec._decoders is not None
    encoded = codec.encode([{"a": 7, "b": ["1.5", "-2"]}])
    assert encoded == eth_abi.encode(["(uint8,int168[2])"], [(7, [15 * 10**9, -2 * 10**10])])
    value = codec.decode(encoded)
    assert value.a == 7 and value.b == [Decimal("1.5"), Decimal("-2")]
    with pytest.raises(ContractError, match=r"a \(uint8,decimal\[2\]\) struct has the fields a, b; missing \['b'\], unknown \['c'\]"):
        codec.encode([{"a": 7, "c": 1}])


def test_output_that_does_not_decode_is_a_contract_error():
    codec = Codec("T.f", [], [parse_type("uint256[]")])
    with pytest.raises(ContractError, match=r"T.f returned 0 bytes that do not decode as \(uint256\[\]\)"):
        codec.decode(b"")


def test_json_abi_decimals_structs_and_names():
    param = {"name": "x", "type": "tuple[]", "components": [{"name": "a", "type": "int168[2]", "internalType": "decimal"}, {"name": "b", "type": "uint8"}]}
    t = param_type(param)
    assert t.name == "(int168[2],uint8)[]" and t.display == "(decimal[2],uint8)[]"
    encoded = eth_abi.encode([t.name], [[([15 * 10**9, -1], 7)]])
    value = Codec("f", [], [t]).decode(encoded)
    assert value == [([Decimal("1.5"), Decimal("-1E-10")], 7)] and value[0].a == [Decimal("1.5"), Decimal("-1E-10")] and value[0].b == 7
    assert Codec("f", [t], []).encode([[{"a": ["1.5", "-0.0000000001"], "b": 7}]]) == encoded
    # an int168 that is not marked as a decimal stays an integer
    assert param_type({"name": "y", "type": "int168"}).kind == "int"


@pytest.mark.parametrize(
    "text, message",
    [
        ("uint7", "integer sizes run from 8 to 256 in steps of 8"),
        ("bytes33", "fixed bytes run from bytes1 to bytes32"),
        ("uint256[0]", "array size '0' must be a positive integer"),
        ("float", "unknown ABI type 'float'"),
    ],
)
def test_bad_type_strings(text, message):
    with pytest.raises(ContractError, match=message):
        parse_type(text)


def test_eip712_matches_the_specifications_example():
    """The Mail example of EIP-712, its digest and its signature by keccak256("cow")."""
    types = {
        "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
        "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"}, {"name": "contents", "type": "string"}],
    }
    domain = {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"}
    message = {
        "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
        "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
        "contents": "Hello, Bob!",
    }
    digest = typed_data_hash(domain, types, message)
    assert digest.hex() == "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
    assert typed_data_hash(domain, types, message, primary_type="Mail") == digest
    sig = keys.PrivateKey(keccak(b"cow")).sign_msg_hash(digest)
    assert (sig.v + 27, sig.r, sig.s) == (28, 0x4355C47D63924E8A72E509B65029052EB6C299D53A04E167C5775FD466751C9D, 0x07299936D304C153F6443DFA05F40FF007D72911B6F72307F996231605B91562)


def test_eip712_mistakes_are_clear_errors():
    types = {"Permit": [{"name": "owner", "type": "address"}, {"name": "value", "type": "uint256"}]}
    domain = {"name": "T", "chainId": 1}
    with pytest.raises(UsageError, match=r"Permit has the fields owner, value; missing \['value'\], unknown \['amount'\]"):
        typed_data_hash(domain, types, {"owner": "0x" + "11" * 20, "amount": 1})
    with pytest.raises(UsageError, match="unknown field\\(s\\) 'chain'; EIP-712 domains take name, version, chainId, verifyingContract, salt"):
        typed_data_hash({"chain": 1}, types, {"owner": "0x" + "11" * 20, "value": 1})
    with pytest.raises(UsageError, match="cannot tell the primary type among A, B; pass primary_type="):
        typed_data_hash(domain, {"A": [{"name": "x", "type": "uint8"}], "B": [{"name": "y", "type": "uint8"}]}, {"x": 1})
    with pytest.raises(ContractError, match=r"typed data Permit.value: -1 does not fit in uint256"):
        typed_data_hash(domain, types, {"owner": "0x" + "11" * 20, "value": -1})


def test_eip191_digest():
    # "\x19Ethereum Signed Message:\n" + decimal length + the message bytes
    assert eip191_hash("hello") == keccak(b"\x19Ethereum Signed Message:\n5hello") == eip191_hash(b"hello")
