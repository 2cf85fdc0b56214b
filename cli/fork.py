"""--fork-url and --fork-block, for the commands that run machines (run, fuzz, replay)."""

from __future__ import annotations

from typing import Any, Callable

import click

URL_HELP = (
    "Fork the chain of this node (JSON-RPC URL): machines start from its state at --fork-block (default: [fork] url)."
)
BLOCK_HELP = (
    "The block to fork at: a number, or latest / safe / finalized, asked once at the start (default: [fork] block, "
    "else latest)."
)


def fork_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --fork-url and --fork-block to a command."""
    command = click.option("--fork-block", "fork_block", metavar="N|latest|safe|finalized", help=BLOCK_HELP)(command)
    return click.option("--fork-url", "fork_url", metavar="URL", help=URL_HELP)(command)


def fork_block(value: str | None) -> int | str | None:
    """--fork-block's value: a number or a tag; a usage error otherwise."""
    from evmstate.config import FORK_TAGS

    if value is None:
        return None
    if value.isdigit():
        return int(value)
    if value in FORK_TAGS:
        return value
    raise click.UsageError(f"--fork-block {value!r}: give a block number, or one of {', '.join(FORK_TAGS)}")


def chosen_fork(cfg: Any, url: str | None, block: str | None, *, resolve: bool = True) -> Any:
    """cfg with --fork-url and --fork-block over [fork], the block pinned and the node checked (exit 2 on a problem)
    unless resolve is False."""
    from evmstate.config import check_fork
    from evmstate.runner import is_forked, resolve_fork, with_fork

    if url is not None:
        check_fork("--fork-url", "url", url)
    cfg = with_fork(cfg, url=url, block=fork_block(block))
    if block is not None and not is_forked(cfg):
        raise click.UsageError(
            f"--fork-block {block}: no node to fork is given. Add --fork-url URL, or set url under [fork] in "
            "evmstate.toml (without a node, a numbered block the fork cache holds is forked when [fork] chain_id names "
            "its chain)"
        )
    return resolve_fork(cfg) if resolve else cfg
