"""A node that fails: unreachable, another chain, pruned state, no old storage, rate limits, timeouts, failing mid-run.

A loopback node answers from recorded responses (what geth, erigon and hosted providers answer in
each case); the checks run before any machine (ForkError, exit 2) or end the machine (ForkUnavailable).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from evmstate.config import Config, ForkConfig
from evmstate.errors import ForkError, ForkUnavailable
from evmstate.evm.fork.start import resolve
from evmstate.evm.fork.store import ForkSource, ForkSpec

from tests.cli.helpers import invoke

from .nodes import BLOCK, Loopback, free_port, recorded

pytestmark = pytest.mark.processes  # loopback JSON-RPC servers

PRUNED = {"code": -32000, "message": "missing trie node 5f2c9e (path ) state 0x5f2c9e is not available"}
NO_METHOD = {"code": -32601, "message": "the method eth_getStorageAt does not exist/is not available"}
LIMITED = {"code": -32005, "message": "daily request count exceeded, request rate limited"}


@pytest.fixture()
def node() -> Iterator[Callable[..., Loopback]]:
    started: list[Loopback] = []

    def start(answer: Callable[[Any], tuple[int, Any]]) -> Loopback:
        server = Loopback(answer)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def config(tmp_path: Path, url: str, block: int | str = BLOCK, chain_id: int = 0, timeout: float = 5.0) -> Config:
    return Config(root=tmp_path, fork=ForkConfig(url=url, block=block, chain_id=chain_id, timeout=timeout))


def test_pins_latest_once_and_asks_nothing_the_second_time(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(recorded())
    pinned = resolve(config(tmp_path, server.url, "latest"))
    assert (pinned.fork.block, pinned.fork.chain_id) == (BLOCK, 1)
    assert "forked from chain 1 at block 1000" in pinned.origin
    asked = len(server.requests)
    again = resolve(config(tmp_path, server.url, BLOCK))  # a number checked before: the cache answers
    assert again.fork == pinned.fork and len(server.requests) == asked


def test_unreachable_node(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ForkError, match=rf"\[fork\] url {url}: the node does not answer eth_chainId \(cannot connect .*Check the URL"):
        resolve(config(tmp_path, url))


def test_wrong_chain(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(recorded())
    with pytest.raises(ForkError, match="is a node of chain 1, not of chain 5 as asked \\(block 1000\\): give a node of chain 5"):
        resolve(config(tmp_path, server.url, chain_id=5))


def test_pruned_block(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(recorded({"eth_getBalance": PRUNED}))
    with pytest.raises(ForkError, match="no longer holds the state of block 1000 .*missing trie node.*pin a more recent block .*or use an archive node"):
        resolve(config(tmp_path, server.url))


def test_no_storage_at_old_blocks(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(recorded({"eth_getStorageAt": NO_METHOD}))
    with pytest.raises(ForkError, match="does not serve eth_getStorageAt at block 1000 .*use a node that serves them"):
        resolve(config(tmp_path, server.url))


def test_a_block_the_node_lacks(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server_answer = recorded()

    def none_for_future(body: Any) -> tuple[int, Any]:
        status, answers = server_answer(body)
        for call, answer in zip(body, answers):
            if call["method"] == "eth_getBlockByNumber" and call["params"][0] == hex(BLOCK + 5):
                answer["result"] = None
        return status, answers

    server = node(none_for_future)
    with pytest.raises(ForkError, match=f"has no block {BLOCK + 5} \\(chain 1\\): pin a block the node has"):
        resolve(config(tmp_path, server.url, BLOCK + 5))


def test_rate_limits_are_waited_out(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    refused = {"count": 0}
    answer = recorded()

    def limited_twice(body: Any) -> tuple[int, Any]:
        if refused["count"] < 2:
            refused["count"] += 1
            return 429, {"jsonrpc": "2.0", "id": None, "error": {"code": 429, "message": "Too Many Requests"}}
        return answer(body)

    server = node(limited_twice)
    started = time.monotonic()
    assert resolve(config(tmp_path, server.url)).fork.chain_id == 1
    assert refused["count"] == 2 and time.monotonic() - started >= 0.5 + 1.0  # waited 0.5 s, then 1 s


def test_a_limit_that_does_not_lift(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(recorded({"eth_chainId": LIMITED}))
    with pytest.raises(ForkError, match="does not answer eth_chainId .*request rate limited"):
        resolve(config(tmp_path, server.url))
    assert len(server.requests) == 3  # the first try and two retries


def test_timeouts_are_retried_then_reported(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    def slow(body: Any) -> tuple[int, Any]:
        time.sleep(1.0)
        return recorded()(body)

    server = node(slow)
    with pytest.raises(ForkError, match=r"does not answer eth_chainId \(no answer within 0.2 s\)"):
        resolve(config(tmp_path, server.url, timeout=0.2))
    assert len(server.requests) == 3


def test_a_node_failing_mid_run_names_the_url_block_and_what_to_do(tmp_path: Path, node: Callable[..., Loopback]) -> None:
    server = node(lambda body: (503, {"error": "upstream unavailable"}))
    source = ForkSource(ForkSpec(server.url, BLOCK, 1, str(tmp_path / "fork"), timeout=1.0))
    source.rpc.backoff = 0.01
    with pytest.raises(ForkUnavailable, match=rf"the node at {server.url} failed while evmstate fetched storage slot 3 of 0x1111.* at block 1000: HTTP 503.*another node"):
        source.storage(b"\x11" * 20, 3)


def test_offline_cache_miss_says_which_node_and_block(tmp_path: Path) -> None:
    source = ForkSource(ForkSpec("", BLOCK, 1, str(tmp_path / "fork")))
    with pytest.raises(ForkUnavailable, match="lacks the account 0x2222.* \\(chain 1, block 1000\\) and no node is given: run again with --fork-url URL \\(a node of chain 1 that serves block 1000\\)"):
        source.account(b"\x22" * 20)


def test_the_command_exits_2_before_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evmstate.toml").write_text("")
    url = f"http://127.0.0.1:{free_port()}"
    code, out = invoke("run", "--fork-url", url, "--fork-block", "12")
    assert code == 2 and "the node does not answer eth_chainId" in out and url in out and "compiled" not in out
    code, out = invoke("run", "--fork-url", url, "--fork-block", "soon")
    assert code == 2 and "--fork-block 'soon': give a block number, or one of latest, safe, finalized" in out
    code, out = invoke("run", "--fork-url", "ftp://node", "--fork-block", "12")
    assert code == 2 and "must be the http:// or https:// URL of a node" in out


def test_bad_fork_settings(tmp_path: Path) -> None:
    from evmstate.config import from_dict
    from evmstate.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\[fork\] block must be a block number or one of 'latest', 'safe', 'finalized'; got 'tomorrow'"):
        from_dict({"fork": {"url": "http://x", "block": "tomorrow"}}, root=tmp_path)
    with pytest.raises(ConfigError, match="unknown key 'blok' in \\[fork\\]. Did you mean 'block'"):
        from_dict({"fork": {"blok": 1}}, root=tmp_path)
