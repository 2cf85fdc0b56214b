"""Every call, transaction and deployment the contract layer makes, told to whoever listens.

Traces of a failing program and gas reports are built from these records. Nothing is
recorded while no one listens, so the fuzzing loop pays only a list check per call.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..hooks import Listeners

if TYPE_CHECKING:
    from ..evm.base import ExecResult, Log


@dataclass(frozen=True)
class CallRecord:
    """One call made through a contract, an account or a container, and how it ended."""

    contract: str | None  # the contract's name; None for an ether transfer
    function: str  # the function's name, "deploy", "deploy_as_blueprint" or "transfer"
    args: tuple[Any, ...]
    kind: str  # "call" (nothing kept), "transaction" or "deploy"
    sender: Any  # the Account that sent it
    value: int
    result: "ExecResult"
    return_value: Any = None
    error: BaseException | None = None  # TransactionReverted, CallTimeout, ...: raised to the caller
    to: bytes | None = None  # the address called, or where a deployment was made (None when it failed)
    data: bytes = b""  # the calldata; a deployment's encoded constructor arguments

    @property
    def gas_used(self) -> int:
        return self.result.gas_used

    @property
    def success(self) -> bool:
        return self.error is None

    @property
    def logs(self) -> tuple["Log", ...]:
        return self.result.logs

    @property
    def label(self) -> str:
        """Contract.function, as gas reports group calls."""
        return f"{self.contract}.{self.function}" if self.contract else self.function


# told about each CallRecord, in order; see recording()
listeners = Listeners()  # of CallRecord


class Tally:
    """Transactions (and deployments) sent through the contract layer, and how many of them failed.

    Always counted (two integers per transaction), so that a machine can tell a rule whose every
    transaction reverted, however the rule handled the revert.
    """

    __slots__ = ("sent", "failed")

    def __init__(self) -> None:
        self.sent = 0
        self.failed = 0


tally = Tally()


def sent(result: "ExecResult") -> None:
    """Count one transaction sent, and whether it failed."""
    tally.sent += 1
    if not result.success:
        tally.failed += 1


def notify(record: CallRecord) -> None:
    listeners.notify(record)


def recording(listener: Callable[[CallRecord], None]) -> contextlib.AbstractContextManager[None]:
    """While inside, listener(record) is called after every call the contract layer makes."""
    return listeners.listening(listener)
