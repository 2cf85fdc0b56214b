"""A damaged fork cache: block.json, an account's file or nodes.json that is not what evmstate wrote.

Every damage is a ForkError (exit 2) before anything runs, naming the file and saying to delete it;
one damaged while a run reads the folder stops that machine as an error naming it. Never a
traceback, and never the machine's __init__ blamed for it. No node is involved: the cache was
written by hand, as a replay without the network reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evmstate.config import Config, ForkConfig
from evmstate.errors import ForkError, ForkUnavailable
from evmstate.evm.fork.start import NODES, resolve
from evmstate.evm.fork.store import ForkSource, ForkSpec

from tests.cli.helpers import invoke

from .cache_folder import ADDRESS, BLOCK, CHAIN, HEADER, cache_folder

DAMAGED_HEADERS = [
    (b"", "not JSON"),
    (b"{", "not JSON"),
    (b"\xff\xfe{}", "not JSON"),
    (b"[]", "it holds []"),
    (b"null", "it holds null"),
    (b"{}", "it holds {}"),
    (json.dumps({**HEADER, "number": "0x3e8"}).encode(), 'its number is "0x3e8", not a whole number'),
    (json.dumps({**HEADER, "timestamp": -1}).encode(), "its timestamp is -1, not a whole number"),
    (json.dumps({**HEADER, "base_fee": True}).encode(), "its base_fee is true, not a whole number"),
    (json.dumps({**HEADER, "coinbase": "0xab"}).encode(), 'its coinbase is "0xab", not 20 hex bytes'),
    (json.dumps({**HEADER, "prevrandao": None}).encode(), "its prevrandao is null, not 32 hex bytes"),
    (json.dumps({k: v for k, v in HEADER.items() if k != "gas_limit"}).encode(), "not a block's number"),
]
DAMAGED_ACCOUNTS = [
    (b"[]", "it holds a JSON list"),
    (b"5", "it holds a number"),
    (b"{oops", "not JSON"),
    (b'{"account": 5}', "its account is 5"),
    (b'{"account": ["0x0", 1]}', 'its account is ["0x0", 1]'),
    (b'{"account": ["zz", 1, "0x"]}', "not [balance, nonce, code]"),
    (b'{"account": ["0x0", -1, "0x"]}', "not [balance, nonce, code]"),
    (b'{"account": ["0x0", 0, "0x6"]}', "not [balance, nonce, code]"),
    (b'{"storage": []}', "its storage is []"),
    (b'{"storage": {"x": "0x1"}}', "not slots and hex values"),
    (b'{"storage": {"0": 5}}', "not slots and hex values"),
    (b'{"accounts": []}', "not an object with"),
]
DAMAGED_NODES = [(b"[]", "it holds []"), (b'{"http://node": "1"}', 'it holds {"http://node": "1"}'), (b"{", "not JSON"), (b"\x00\x01", "not JSON")]


def offline(root: Path) -> Config:
    return Config(root=root, fork=ForkConfig(chain_id=CHAIN, block=BLOCK))


def test_the_cache_alone_is_read_when_whole(cached: Path) -> None:
    assert resolve(offline(cached)).fork.block == BLOCK


# (the file, relative to the project, its damaged content, what the message says of it)
DAMAGES = (
    [(f".evmstate/fork/{CHAIN}/{BLOCK}/block.json", c, s) for c, s in DAMAGED_HEADERS]
    + [(f".evmstate/fork/{CHAIN}/{BLOCK}/{ADDRESS}.json", c, s) for c, s in DAMAGED_ACCOUNTS]
    + [(f".evmstate/fork/{NODES}", c, s) for c, s in DAMAGED_NODES]
)


@pytest.mark.parametrize("name, content, said", [pytest.param(n, c, s, id=f"{Path(n).name[:10]}={c[:24]!r}") for n, c, s in DAMAGES])
def test_a_damaged_cache_file_is_a_fork_error_naming_it(cached: Path, name: str, content: bytes, said: str) -> None:
    path = cached / name
    path.write_bytes(content)
    # with a URL, the node's chain is looked up in nodes.json first; without, every file of the block's folder is read
    config = Config(root=cached, fork=ForkConfig(url="http://127.0.0.1:9", block=BLOCK)) if path.name == NODES else offline(cached)
    with pytest.raises(ForkError) as info:
        resolve(config)
    assert str(info.value).startswith(f"the fork cache file {path} is damaged (") and said in str(info.value) and "delete it" in str(info.value)


def test_a_file_damaged_mid_run_stops_the_machine_naming_it(cached: Path) -> None:
    source = ForkSource(ForkSpec("", BLOCK, CHAIN, str(cached / ".evmstate" / "fork")))
    assert source.header().number == BLOCK
    path = cache_folder(cached) / f"0x{'22' * 20}.json"
    path.write_text("[1, 2]")
    with pytest.raises(ForkUnavailable, match=rf"the fork cache file {path} is damaged \(it holds a JSON list.*delete it"):
        source.account(bytes.fromhex("22" * 20))
    with pytest.raises(ForkUnavailable, match="is damaged"):
        source.everything()


def test_replay_of_a_damaged_cache_names_the_file_not_the_machine(cached_project: Path) -> None:
    code, out = invoke("run")
    assert code == 1 and "forked from chain 1 at block 1000" in out and "x is not 1" in out, out
    good = (cache_folder(cached_project) / f"{ADDRESS}.json").read_bytes()
    for name, content in (("block.json", b'{"number": 1000}'), (f"{ADDRESS}.json", b"[]")):
        path = cache_folder(cached_project) / name
        kept = path.read_bytes()
        path.write_bytes(content)
        for command in (("replay", "--last"), ("run",)):
            code, out = invoke(*command)
            assert code == 2 and f"error: the fork cache file {path} is damaged" in out and "delete it" in out, out
            assert "__init__" not in out and "Traceback" not in out
        path.write_bytes(kept)
    assert (cache_folder(cached_project) / f"{ADDRESS}.json").read_bytes() == good
    code, out = invoke("replay", "--last")
    assert code == 1 and "still fails" in out, out
