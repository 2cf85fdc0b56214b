"""Receipts: what a state-changing call returns (its value, events, gas, sender)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import ReceiptUsedAsValue
from ..values import format_value
from .events import EventDict
from .api import Handle

if TYPE_CHECKING:
    from ..evm.base import ExecResult, Log


class Receipt(Handle):
    """The outcome of a state-changing call: return_value, events, gas_used, sender, value."""

    def __init__(
        self, result: "ExecResult", *, sender: Any, value: int, contract: Any, function: Any, return_value: Any = None
    ) -> None:
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
        return f"<Receipt {self._call} gas_used={self.gas_used} return_value={format_value(self.return_value)}>"

    @property
    def _call(self) -> str:
        return (
            f"{self.contract._name}.{self.function.name}"
            if self.contract is not None and self.function is not None
            else "transfer"
        )

    def _used_as_value(self, how: str) -> NoReturn:
        """Raise what a direct port from titanoboa needs to read: the call returned a Receipt, its value is
        .return_value."""
        call = self._call
        if self.function is None:
            raise ReceiptUsedAsValue(
                f"{how}: a transfer returns a Receipt, not a value (gas_used, events and sender are on it)"
            )
        raise ReceiptUsedAsValue(
            f"{how}: {call} is not a view function: calling it sends a transaction and returns a Receipt "
            f"(as Brownie does; titanoboa returns the value). Write {call}(...).return_value for the value it returned "
            f"({format_value(self.return_value)} here), or {call}.call(...) to run it without a transaction."
        )

    def __int__(self) -> int:
        self._used_as_value("int() of a Receipt")

    def __index__(self) -> int:
        self._used_as_value("a Receipt used as an integer")

    def __float__(self) -> float:
        self._used_as_value("float() of a Receipt")

    def __bool__(self) -> bool:
        self._used_as_value("a Receipt tested for truth")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _VALUES):
            self._used_as_value(f"a Receipt compared with {other!r}")
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __iter__(self) -> Any:
        self._used_as_value("a Receipt unpacked or iterated")

    def __getitem__(self, key: Any) -> NoReturn:
        self._used_as_value(f"a Receipt indexed with [{key!r}]")


# what a contract function returns: comparing a receipt with one of these is a port that forgot .return_value
_VALUES = (int, float, str, bytes, Decimal, tuple, list, dict)


def _operator(symbol: str) -> Any:
    def used(self: Receipt, *other: Any) -> NoReturn:
        self._used_as_value(f"a Receipt used in {symbol}")

    return used


for _name, _symbol in {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
    "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
}.items():
    setattr(Receipt, f"__{_name}__", _operator(_symbol))
    if _name not in ("lt", "le", "gt", "ge"):
        setattr(Receipt, f"__r{_name}__", _operator(_symbol))
for _name, _symbol in {"neg": "-x", "pos": "+x", "abs": "abs()", "invert": "~x"}.items():
    setattr(Receipt, f"__{_name}__", _operator(_symbol))
del _name, _symbol
