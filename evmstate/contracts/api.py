"""What the contract layer needs from a project, and the project in force.

Contracts, receipts and explained reverts need a project's backend, accounts, artifacts and
event decoder, not the Project class itself (which sits above them and builds them): they see
it through ProjectLike. The project in force is the one strategies draw accounts from and
reverts are explained by when no contract names its own: the last one loaded, until then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UsageError
from ..hooks import Current

if TYPE_CHECKING:
    from ..compiler.sources import Artifact
    from ..evm.base import Backend


class ProjectLike(Protocol):
    """A loaded project as the contract layer sees it."""

    backend: Backend
    accounts: Any  # the funded Accounts (accounts.py builds on this module)
    artifacts: dict[str, Artifact]
    event_decoder: Any
    fast_getters: bool

    def artifact_at(self, raw_address: bytes) -> Artifact | None: ...

    def register(self, raw_address: bytes, artifact: Artifact, label: str | None = None) -> None: ...

    def name_at(self, raw_address: bytes) -> str | None: ...


class Handle:
    """A handle on the chain (a contract, an account, the project): copying a machine's state shares it, never copies
    it.

    A checkpoint of a run copies the machine's own Python state with copy.deepcopy; what such
    a state holds of evmstate's objects points at the chain, which the checkpoint's snapshot keeps.
    """

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self


current_project = Current()  # ProjectLike


def active() -> ProjectLike:
    """The project whose accounts strategies draw from."""
    project = current_project.get()
    if project is None:
        raise UsageError(
            "no evmstate project is loaded: strategies that draw accounts need one. Run through `evmstate run`, or "
            "call evmstate.Project.load() first."
        )
    return project
