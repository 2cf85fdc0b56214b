"""A node that answers well-formed JSON-RPC with a wrong result: every answer evmstate uses is checked.

Before anything runs (the chain id, the block, an account's three methods and a storage slot are
asked then) it is a ForkError naming the URL, the method and what it returned; a wrong answer to a
read mid-run stops the machine as an error (ForkUnavailable) saying the same. Never a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from evmstate.config import Config, ForkConfig
from evmstate.errors import ForkError, ForkUnavailable
from evmstate.evm.fork.rpc import Rpc, RpcFailure, decoded
from evmstate.evm.fork.serve import Cache
from evmstate.evm.fork.start import resolve
from evmstate.evm.fork.store import ForkSource, ForkSpec

from .nodes import BLOCK, BLOCK_JSON, Loopback, recorded

pytestmark = pytest.mark.processes  # loopback JSON-RPC servers

WRONG = ["0xnothex", None, 5, {}, [], "0x" + "1" * 65, True]
METHODS = ["eth_chainId", "eth_getBlockByNumber", "eth_getBalance", "eth_getTransactionCount", "eth_getCode", "eth_getStorageAt"]
# a block object with one field wrong
BLOCKS = [
    ("no-number", {k: v for k, v in BLOCK_JSON.items() if k != "number"}, "a block without 'number'"),
    ("number-int", {**BLOCK_JSON, "number": 1000}, "a block whose number is 1000"),
    ("timestamp-null", {**BLOCK_JSON, "timestamp": None}, "a block whose timestamp is null"),
    ("miner-short", {**BLOCK_JSON, "miner": "0xab"}, 'a block whose miner is "0xab", not 20 hex bytes'),
    ("mixhash-word", {**BLOCK_JSON, "mixHash": 5}, "a block whose mixHash is 5"),
    ("base-fee-text", {**BLOCK_JSON, "baseFeePerGas": "seven"}, 'a block whose baseFeePerGas is "seven"'),
    ("another-block", {**BLOCK_JSON, "number": hex(BLOCK + 1)}, f"returned block {BLOCK + 1} when asked for block {BLOCK}"),
]


def answering(method: str, value: Any) -> Callable[[Any], tuple[int, Any]]:
    """A node of chain 1 at block BLOCK whose answers to method are value."""
    normal = recorded()

    def answer(body: Any) -> tuple[int, Any]:
        status, answers = normal(body)
        for call, one in zip(body, answers):
            if call["method"] == method:
                one["result"] = value
        return status, answers

    return answer


@pytest.fixture()
def node() -> Iterator[Callable[..., Loopback]]:
    started: list[Loopback] = []

    def start(answer: Callable[[Any], tuple[int, Any]]) -> Loopback:
        started.append(Loopback(answer))
        return started[-1]

    yield start
    for server in started:
        server.close()


def checked(tmp_path: Path, url: str) -> str:
    with pytest.raises(ForkError) as info:
        resolve(Config(root=tmp_path, fork=ForkConfig(url=url, block=BLOCK, timeout=5)))
    return str(info.value)


@pytest.mark.parametrize("value", WRONG, ids=repr)
@pytest.mark.parametrize("method", METHODS)
def test_a_wrong_result_is_a_fork_error_naming_the_method_and_what_it_returned(tmp_path: Path, node: Callable[..., Loopback], method: str, value: Any) -> None:
    server = node(answering(method, value))
    if method == "eth_getBlockByNumber" and value is None:
        assert f"[fork] url {server.url} has no block {BLOCK}" in checked(tmp_path, server.url)  # null: the node lacks the block
        return
    message = checked(tmp_path, server.url)
    assert message.startswith(f"[fork] url {server.url}: the node answered wrongly: {method} returned "), message
    assert "Check the URL, or use another node" in message


@pytest.mark.parametrize("block, said", [pytest.param(b, s, id=name) for name, b, s in BLOCKS])
def test_a_wrong_block_object_says_which_field(tmp_path: Path, node: Callable[..., Loopback], block: dict[str, Any], said: str) -> None:
    server = node(answering("eth_getBlockByNumber", block))
    message = checked(tmp_path, server.url)
    assert "the node answered wrongly: eth_getBlockByNumber returned " in message and said in message, message


@pytest.mark.parametrize("body", [5, "0x1", [1, 2], {"id": [1], "result": "0x1"}, {"jsonrpc": "2.0"}], ids=repr)
def test_an_answer_that_is_not_json_rpc(tmp_path: Path, node: Callable[..., Loopback], body: Any) -> None:
    server = node(lambda _: (200, body))
    message = checked(tmp_path, server.url)
    assert message.startswith(f"[fork] url {server.url}: the node answered wrongly: "), message
    assert re.search(r"the answer to eth_chainId is not JSON-RPC|eth_\w+ returned", message), message


@pytest.mark.parametrize("method", ["eth_getBalance", "eth_getCode", "eth_getStorageAt"])
def test_a_wrong_answer_mid_run_stops_the_machine_naming_it(tmp_path: Path, node: Callable[..., Loopback], method: str) -> None:
    server = node(answering(method, "0xnothex"))
    source = ForkSource(ForkSpec(server.url, BLOCK, 1, str(tmp_path / "fork"), timeout=5))
    with pytest.raises(ForkUnavailable) as info:
        source.account(b"\x11" * 20) if method != "eth_getStorageAt" else source.storage(b"\x11" * 20, 3)
    message = str(info.value)
    assert f"the node at {server.url} answered wrongly while evmstate fetched" in message and f'{method} returned "0xnothex"' in message, message
    assert not list((tmp_path / "fork").rglob("0x*.json"))  # nothing wrong is kept in the cache


def test_revms_loopback_node_checks_what_it_fetches(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(answering("eth_getStorageAt", None))
    cache = Cache({"url": server.url, "shown": server.url, "block": BLOCK, "chain_id": 1, "folder": str(tmp_path), "timeout": 5})
    with pytest.raises(LookupError, match=rf"evmstate-fork: the node at {server.url} answered wrongly .*eth_getStorageAt returned null, not a hex number"):
        cache.storage(b"\x11" * 20, 1)


def test_right_answers_are_decoded() -> None:
    server = Loopback(recorded())
    try:
        rpc = Rpc(server.url)
        chain, block, code = rpc.fetch([("eth_chainId", []), ("eth_getBlockByNumber", ["0x3e8", False]), ("eth_getCode", ["0x" + "00" * 20, "0x3e8"])])
    finally:
        server.close()
    assert (chain, block["number"], block["coinbase"], code) == (1, BLOCK, b"\xab" * 20, b"")
    with pytest.raises(RpcFailure, match='eth_getCode returned "0x6", not hex bytes'):
        decoded("eth_getCode", "0x6")
