"""Events of one-word fields are decoded word by word: the same events as through eth-abi, or the same refusal."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from evmstate.evm.base import Log
from evmstate.contracts.events import _EventSpec

WORD_TYPES = ["uint8", "uint256", "int16", "int256", "address", "bool"]
# words that are valid encodings of some type and not of others
WORDS = st.one_of(
    st.binary(min_size=32, max_size=32),
    st.sampled_from([b"\0" * 32, b"\0" * 31 + b"\1", b"\0" * 31 + b"\2", b"\xff" * 32, b"\0" * 12 + b"\xff" * 20, b"\0" * 31 + b"\x80"]),
)


@settings(max_examples=200)
@given(data=st.data())
def test_word_by_word_decoding_agrees_with_eth_abi(data):
    fields = data.draw(st.lists(st.tuples(st.sampled_from(WORD_TYPES), st.booleans()), max_size=5), label="fields")
    indexed = [t for t, i in fields if i][:3]
    inputs = [{"name": f"f{n}", "type": t, "indexed": i and t in indexed} for n, (t, i) in enumerate(fields)]
    entry = {"type": "event", "name": "E", "inputs": inputs, "anonymous": False}
    fast, general = _EventSpec(entry, words=True), _EventSpec(entry, words=False)
    assert fast._words is not None and general._words is None
    n_topics = sum(1 for p in inputs if p["indexed"])
    topics = [int.from_bytes(w, "big") for w in data.draw(st.lists(WORDS, min_size=n_topics, max_size=n_topics), label="topics")]
    n_data = len(inputs) - n_topics
    # usually the right length, sometimes not
    size = data.draw(st.sampled_from([n_data, n_data, n_data, max(n_data - 1, 0), n_data + 1]), label="size")
    words = data.draw(st.lists(WORDS, min_size=size, max_size=size), label="data")
    log = Log(b"\x11" * 20, (fast.topic, *topics), b"".join(words))
    outcomes = []
    for spec in (fast, general):
        try:
            event = spec.decode(log, "0x" + "11" * 20)
            outcomes.append((event.name, dict(event)))
        except Exception:
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1]
