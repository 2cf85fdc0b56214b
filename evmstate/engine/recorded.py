"""A recorded program, and the one way a program is printed.

A RecordedStep is a step as it ran: its rule, its arguments as data (failures.encode_value, a
bundle value by {"ref": label}), the bundle values it produced and the wait before its call.
Shrinking, replay, traces and failure records all work on it; it becomes a dictionary only
in a failure record's JSON (to_data/from_data).

Every program line, live or replayed, is written by call_line() and step_lines(): the
arguments as Python that rebuilds them (format_value(code=True)), a bundle value by its
label (a failures.Ref shows as its name).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..errors import FailureRecordError
from ..values import format_value
from . import delays


def call_line(rule: str, values: Mapping[str, Any], results: Iterable[str] = (), *, receiver: str = "state.") -> str:
    """One call as a program shows it: [results = ]state.rule(name=value, ...); receiver "" for a property test's
    example.
    """
    call = f"{receiver}{rule}({', '.join(f'{k}={format_value(v, code=True)}' for k, v in values.items())})"
    results = list(results)
    return f"{', '.join(results)} = {call}" if results else call


def step_lines(
    rule: str, values: Mapping[str, Any], results: Iterable[str] = (), delay: delays.Delay = delays.NO_DELAY
) -> list[str]:
    """A step as a program shows it: the chain.sleep()/chain.mine() lines of its wait, then its call."""
    return [*delays.delay_lines(delay), call_line(rule, values, results)]


def instance_line(name: str) -> str:
    """A machine's program's first line: the instance its steps call."""
    return f"state = {name}()"


def program_lines(name: str, lines: Iterable[str]) -> list[str]:
    """A machine's program as a failure shows it: the instance, then every step's lines."""
    return [instance_line(name), *lines]


def example_line(name: str, drawn: Mapping[str, Any] | None) -> str:
    """A property test's example as a line of Python: name(arg=value, ...)."""
    return call_line(name, drawn or {}, receiver="")


def ref_of(encoded: Any) -> str | None:
    """The label of a bundle value an argument refers to, None for a value drawn by a strategy."""
    return encoded["ref"] if isinstance(encoded, dict) and "ref" in encoded else None


@dataclass(frozen=True)
class RecordedStep:
    """One step of a recorded program: rule, arguments as data, the bundle values it produced, its wait."""

    rule: str
    arguments: Mapping[str, Any] = field(default_factory=dict)  # name -> encode_value(value); never changed in place
    results: tuple[str, ...] = ()
    delay: delays.Delay = delays.NO_DELAY

    @classmethod
    def from_data(cls, data: Any) -> RecordedStep:
        """A step as a failure record stores it; FailureRecordError when it cannot be read."""
        if (
            not isinstance(data, dict) or not isinstance(data.get("rule"), str)
            or not isinstance(data.get("arguments"), dict)
        ):
            raise FailureRecordError(f"cannot read the recorded step {data!r}: it needs a rule and its arguments")
        return cls(data["rule"], data["arguments"], tuple(data.get("results") or ()), delays.of_record(data))

    def to_data(self) -> dict[str, Any]:
        """The step as a failure record stores it (the delay's keys only when not 0)."""
        return {
            "rule": self.rule, "arguments": dict(self.arguments), "results": list(self.results),
            **delays.to_data(self.delay),
        }

    @functools.cached_property
    def key(self) -> str:
        """The step as a key: two steps with the same key do the same thing in the same place."""
        return json.dumps(self.to_data(), sort_keys=True, separators=(",", ":"))

    def refs(self) -> set[str]:
        """The labels of the bundle values the step takes."""
        return {label for v in self.arguments.values() if (label := ref_of(v)) is not None}

    def with_delay(self, delay: delays.Delay) -> RecordedStep:
        return dataclasses.replace(self, delay=delay)

    def with_arguments(self, changed: Mapping[str, Any]) -> RecordedStep:
        """The step with some arguments (encoded) given other values."""
        return dataclasses.replace(self, arguments={**self.arguments, **changed})


def from_data(steps: Iterable[Any]) -> tuple[RecordedStep, ...]:
    """A record's steps."""
    return tuple(RecordedStep.from_data(s) for s in steps)


def to_data(steps: Iterable[RecordedStep]) -> list[dict[str, Any]]:
    """Steps as a failure record stores them."""
    return [s.to_data() for s in steps]
