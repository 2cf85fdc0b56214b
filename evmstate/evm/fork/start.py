"""A fork's settings made ready before anything runs: the block pinned to a number, the chain id known,
and the node checked (reachable, on the chain asked for, holding the block's state, serving old
storage). Every problem is a ForkError (exit 2) naming the URL, the block and what to change.

What a check learned is kept in the cache folder (the block's header, which chain a URL is on),
so a run at a numbered block that was checked before asks the node nothing.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ...config import Config, ForkConfig, shown
from ...errors import ForkError, ResourceError
from . import files
from .files import DamagedFile, unwritable
from .rpc import Rpc, RpcFailure
from ...files import write_atomic
from .store import ForkSpec, Header, shown_url

NODES = "nodes.json"  # URL -> chain id, for the URLs checked before


def cache_folder(config: Config) -> Path:
    """Where fork state is kept: .evmstate/fork/<chain id>/<block>/."""
    return config.state_dir / "fork"


def is_forked(config: Config) -> bool:
    """Whether the run forks a chain: a node is given, or a cached fork is named by chain id and block (a replay)."""
    fork = config.fork
    return bool(fork.url) or (bool(fork.chain_id) and isinstance(fork.block, int))


def fork_spec(config: Config) -> ForkSpec | None:
    """The ForkSpec the backends start from; None for a fresh chain. The config must be resolved (resolve())."""
    if not is_forked(config):
        return None
    fork = config.fork
    assert isinstance(fork.block, int) and fork.chain_id, "resolve() the config first"
    return ForkSpec(fork.url, fork.block, fork.chain_id, str(cache_folder(config)), fork.timeout)


def with_fork(
    config: Config, url: str | None = None, block: int | str | None = None, chain_id: int | None = None
) -> Config:
    """config with these [fork] values (from --fork-url and --fork-block, or a failure record) over evmstate.toml's."""
    fork = config.fork
    changes: dict[str, Any] = {}
    if url is not None:
        changes["url"] = url
    if block is not None:
        changes["block"] = block
    if chain_id is not None:
        changes["chain_id"] = chain_id
    return config.replace(fork=dataclasses.replace(fork, **changes)) if changes else config


def for_record(config: Config, fork: dict[str, Any] | None) -> Config:
    """The config a failure record found on a fork replays with: its chain and block, the node of [fork] url or
    --fork-url, if any.
    """
    if not fork:  # found on a fresh chain: replayed on one, whatever [fork] says now
        return config.replace(fork=ForkConfig())
    chain_id = int(fork["chain_id"])
    known = _nodes(cache_folder(config)).get(config.fork.url)
    url = config.fork.url if known in (None, chain_id) else ""  # a node known to be of another chain cannot help
    block = fork["block"] if isinstance(fork["block"], str) else int(fork["block"])
    return resolve(with_fork(config, url=url, block=block, chain_id=chain_id), needed_by=fork.get("url") or None)


def record_fields(config: Config) -> dict[str, Any]:
    """What a failure record keeps of the fork it was found on: chain id, block, and the node's URL without its path."""
    if not is_forked(config):
        return {}
    return {"fork": {"chain_id": config.fork.chain_id, "block": config.fork.block, "url": shown_url(config.fork.url)}}


def _nodes(folder: Path) -> dict[str, int]:
    """URL -> chain id of the nodes checked before; a damaged nodes.json is a ForkError naming it."""
    path = folder / NODES
    try:
        found = files.loaded(path)
    except DamagedFile as e:
        raise ForkError(str(e)) from None
    if found is files.ABSENT:
        return {}
    if not isinstance(found, dict) or not all(isinstance(k, str) and type(v) is int for k, v in found.items()):
        raise ForkError(
            f"the fork cache file {path} is damaged (it holds {json.dumps(found)[:80]}, not node URLs and their chain "
            "ids): delete it; it only remembers which chain each node is on"
        )
    return found


def check_cache(folder: Path) -> None:
    """Read every file of a block's cache folder before anything runs: a damaged one is a ForkError that names it and
    says to delete it.
    """
    try:
        Header.load(folder / "block.json")
        for path in sorted(folder.glob("0x*.json")) if folder.is_dir() else ():
            if len(path.name) == 47 and all(c in "0123456789abcdefABCDEF" for c in path.name[2:42]):
                files.read(folder, bytes.fromhex(path.name[2:42]))
    except DamagedFile as e:
        raise ForkError(str(e)) from None


def resolve(config: Config, needed_by: str | None = None) -> Config:
    """config with [fork] block a number and chain_id the node's, the node checked; unchanged when not forked.

    Asks the node nothing when the block is a number whose header the cache holds and the chain
    is known (given, or the URL's from an earlier check). needed_by: the node a record was found on,
    for the message when the cache alone cannot do.
    """
    if not is_forked(config):
        return config
    fork = config.fork
    folder = cache_folder(config)
    problem = unwritable(folder)
    if problem is not None:  # a read-only or full disk: said before anything runs, not by the first call that fetches
        raise ResourceError.unwritable(
            "the fork cache",
            shown(folder) + "/",
            problem,
            "a forked run keeps there what it fetches from the node, and revm's fork reads it back from there",
        )
    chain_id = fork.chain_id or (_nodes(folder).get(fork.url) if isinstance(fork.block, int) else 0) or 0
    if isinstance(fork.block, int) and chain_id and (folder / str(chain_id) / str(fork.block) / "block.json").is_file():
        check_cache(folder / str(chain_id) / str(fork.block))
        return config.replace(fork=dataclasses.replace(fork, chain_id=chain_id))
    if not fork.url:
        where = f" (it was found on {needed_by})" if needed_by else ""
        raise ForkError(
            f"the fork cache {folder / str(fork.chain_id) / str(fork.block)} does not hold block {fork.block} of chain "
            f"{fork.chain_id}{where}: "
            f"give a node of chain {fork.chain_id} that serves block {fork.block}, with --fork-url URL or [fork] url "
            "in evmstate.toml"
        )
    return _checked(config, folder)


def _checked(config: Config, folder: Path) -> Config:
    fork = config.fork
    url = fork.url
    shown = shown_url(url)
    rpc = Rpc(url, timeout=fork.timeout, retries=2)
    try:
        (node_chain,) = rpc.fetch([("eth_chainId", [])])
    except RpcFailure as failure:
        if failure.kind == "invalid":
            raise _wrong(shown, failure) from None
        raise ForkError(
            f"[fork] url {shown}: the node does not answer eth_chainId ({failure}). Check the URL, that the node is "
            "running, and your network; or run without --fork-url"
        ) from None
    if fork.chain_id and node_chain != fork.chain_id:
        raise ForkError(
            f"[fork] url {shown} is a node of chain {node_chain}, not of chain {fork.chain_id} as asked (block "
            f"{fork.block}): "
            f"give a node of chain {fork.chain_id} (--fork-url), or change [fork] chain_id"
        )
    block = _block(rpc, fork, shown)
    try:
        (raw,) = rpc.fetch([("eth_getBlockByNumber", [hex(block), False])])
    except RpcFailure as failure:
        if failure.kind == "invalid":
            raise _wrong(shown, failure) from None
        raise ForkError(
            f"[fork] url {shown}: the node cannot give block {block} ({failure}); pin another block with --fork-block "
            "or [fork] block"
        ) from None
    if raw is None:
        raise ForkError(
            f"[fork] url {shown} has no block {block} (chain {node_chain}): pin a block the node has (--fork-block, "
            "[fork] block), at most its latest"
        )
    if raw["number"] != block:
        raise _wrong(
            shown,
            RpcFailure(
                "invalid", f"eth_getBlockByNumber returned block {raw['number']} when asked for block {block}",
                "eth_getBlockByNumber",
            ),
        )
    _probe_state(rpc, shown, block)
    header = Header(**raw)
    check_cache(folder / str(node_chain) / str(block))
    write_atomic(folder / str(node_chain) / str(block) / "block.json", json.dumps(header.to_dict(), indent=1))
    write_atomic(folder / NODES, json.dumps({**_nodes(folder), url: node_chain}, indent=1, sort_keys=True))
    return config.replace(fork=dataclasses.replace(fork, block=block, chain_id=node_chain))


def _block(rpc: Rpc, fork: ForkConfig, shown: str) -> int:
    """The block number fork.block names: itself, or what the node says "latest", "safe" or "finalized" is now."""
    if isinstance(fork.block, int):
        return fork.block
    try:
        (raw,) = rpc.fetch([("eth_getBlockByNumber", [fork.block, False])])
    except RpcFailure as failure:
        if failure.kind == "invalid":
            raise _wrong(shown, failure) from None
        raise ForkError(
            f"[fork] url {shown}: the node cannot say which block is {fork.block!r} ({failure}); pin a block number "
            "with --fork-block N or [fork] block = N"
        ) from None
    if raw is None:
        raise ForkError(
            f"[fork] url {shown}: the node has no {fork.block!r} block; pin a block number with --fork-block N or "
            "[fork] block = N"
        )
    return raw["number"]


def _probe_state(rpc: Rpc, shown: str, block: int) -> None:
    """Ask for an account (each of its three methods) and a storage slot at the block: a node that pruned it, serves no
    old storage, or answers them wrongly, says so now.
    """
    zero = "0x" + "00" * 20
    try:
        rpc.fetch(
            [(method, [zero, hex(block)]) for method in ("eth_getBalance", "eth_getTransactionCount", "eth_getCode")]
            + [("eth_getStorageAt", [zero, "0x0", hex(block)])]
        )
    except RpcFailure as failure:
        if failure.kind == "invalid":
            raise _wrong(shown, failure) from None
        if failure.kind == "pruned":
            raise ForkError(
                f"[fork] url {shown} no longer holds the state of block {block} ({failure}): pin a more recent block "
                "(--fork-block, [fork] block), "
                "or use an archive node"
            ) from None
        if failure.kind == "unsupported" or failure.method == "eth_getStorageAt":
            raise ForkError(
                f"[fork] url {shown} does not serve {failure.method or 'state'} at block {block} ({failure}): forking "
                "needs eth_getBalance, "
                "eth_getTransactionCount, eth_getCode and eth_getStorageAt at old blocks; use a node that serves them "
                "(an archive node), or a recent block"
            ) from None
        raise ForkError(
            f"[fork] url {shown}: reading state at block {block} failed ({failure}); pin another block or use another "
            "node"
        ) from None


def _wrong(shown: str, failure: RpcFailure) -> ForkError:
    """The error for a node that answers JSON-RPC, but not what the method returns."""
    return ForkError(
        f"[fork] url {shown}: the node answered wrongly: {failure}. Is it an Ethereum node's JSON-RPC URL? Check the "
        "URL, or use another node (--fork-url)"
    )
