"""A machine's own fork block (settings = {"fork_block": N}): its runs start from the forked chain at that block."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..contracts.project import Project
from ..errors import MachineDefinitionError
from ..evm.fork.start import is_forked, resolve, with_fork

# what Project.renew_chain() replaces, put back after the machine
CHAIN_ATTRIBUTES = ("config", "backend", "accounts", "chain", "_by_address", "_labels")


@contextlib.contextmanager
def at_block(project: Project, settings: dict[str, Any] | None, where: str) -> Iterator[None]:
    """Inside, the project's chain is the fork at the machine's fork_block (when it names one); the chain before is put
    back after.
    """
    block = (settings or {}).get("fork_block")
    if block is None or project.config.fork.block == block:
        yield
        return
    if isinstance(block, bool) or not isinstance(block, int) or block < 0:
        raise MachineDefinitionError(f"{where}.settings: fork_block must be a block number; got {block!r}.")
    if not is_forked(project.config):
        raise MachineDefinitionError(
            f"{where}.settings: fork_block = {block} forks a chain, but no node is given: "
            "set [fork] url in evmstate.toml or pass --fork-url URL"
        )
    saved = {name: getattr(project, name) for name in CHAIN_ATTRIBUTES}
    project.config = resolve(with_fork(project.config, block=block))
    project.renew_chain()
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(project, name, value)
