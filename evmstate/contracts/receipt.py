"""Receipts: what a state-changing call returns (its value, events, gas, sender)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .events import EventDict

if TYPE_CHECKING:
    from ..evm.base import ExecResult, Log


class Receipt:
    """The outcome of a state-changing call: return_value, events, gas_used, sender, value."""

    def __init__(self, result: "ExecResult", *, sender: Any, value: int, contract: Any, function: Any, return_value: Any = None) -> None:
        self._result = result
        self.sender = sender
        self.value = value
        self.contract = contract
        self.function = function
        self.return_value = return_value
        self._events: EventDict | None = None

    @property
    def status(self) -> int:
        return 1 if self._result.success else 0

    @property
    def gas_used(self) -> int:
        return self._result.gas_used

    @property
    def logs(self) -> tuple["Log", ...]:
        return self._result.logs

    @property
    def events(self) -> EventDict:
        if self._events is None:
            decoder = self.contract._project.event_decoder if self.contract is not None else None
            events = [decoder.decode(log) for log in self._result.logs] if decoder else []
            self._events = EventDict(events)
        return self._events

    def __repr__(self) -> str:
        fn = f"{self.contract._name}.{self.function.name}" if self.contract and self.function else "transfer"
        return f"<Receipt {fn} gas_used={self.gas_used} return_value={self.return_value!r}>"
