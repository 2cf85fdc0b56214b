"""Decoded events: Event, the per-name EventItem, a receipt's EventDict, and the log decoder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from eth_utils import keccak

from .abi import _signature, abi_type, decode, from_abi_value
from .accounts import checksum

if TYPE_CHECKING:
    from .backend import Log


class Event(dict):
    """One decoded event: a mapping of field -> value, with its name and address."""

    def __init__(self, name: str, address: str, fields: Mapping[str, Any]) -> None:
        super().__init__(fields)
        self.name = name
        self.address = address

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.items())})"


class EventItem:
    """All events of one name in a receipt: acts as the first one, indexable for the rest."""

    def __init__(self, name: str, events: list[Event]) -> None:
        self.name = name
        self._events = events

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, slice)):
            return self._events[key]
        return self._events[0][key]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __contains__(self, key: object) -> bool:
        return key in self._events[0]

    def keys(self) -> Any:
        return self._events[0].keys()

    def values(self) -> Any:
        return self._events[0].values()

    def items(self) -> Any:
        return self._events[0].items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventItem):
            return self._events == other._events
        if isinstance(other, Mapping):
            return dict(self._events[0]) == dict(other)
        if isinstance(other, list):
            return self._events == other
        return NotImplemented

    def __repr__(self) -> str:
        if len(self._events) == 1:
            return repr(self._events[0])
        return f"<{len(self._events)} {self.name} events: {self._events!r}>"


class EventDict:
    """The events of a receipt: events["Transfer"], len(events), iteration in emission order."""

    def __init__(self, events: list[Event]) -> None:
        self._events = events
        self._by_name: dict[str, list[Event]] = {}
        for e in events:
            self._by_name.setdefault(e.name, []).append(e)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int):
            return self._events[key]
        try:
            return EventItem(key, self._by_name[key])
        except KeyError:
            emitted = ", ".join(sorted(self._by_name)) or "none"
            raise KeyError(f"no {key!r} event was emitted; events emitted: {emitted}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def keys(self) -> list[str]:
        return list(self._by_name)

    def count(self, name: str) -> int:
        return len(self._by_name.get(name, ()))

    def __repr__(self) -> str:
        return f"<EventDict {self._events!r}>"


class _EventDecoder:
    """Decodes logs by topic0 with every ABI the project knows."""

    def __init__(self) -> None:
        self._by_topic: dict[int, tuple[str, list[tuple[str, str, bool]]]] = {}

    def add_abi(self, abi: Sequence[Mapping[str, Any]]) -> None:
        for entry in abi:
            if entry.get("type") != "event" or entry.get("anonymous"):
                continue
            topic = int.from_bytes(keccak(text=_signature(entry)), "big")
            self._by_topic[topic] = (entry["name"], [(p["name"], abi_type(p), bool(p.get("indexed"))) for p in entry["inputs"]])

    def decode(self, log: "Log") -> Event:
        address = checksum(log.address)
        spec = self._by_topic.get(log.topics[0]) if log.topics else None
        if spec is None:
            return Event("(unknown)", address, {"topics": [f"0x{t:064x}" for t in log.topics], "data": f"0x{log.data.hex()}"})
        name, inputs = spec
        data_types = [t for _, t, indexed in inputs if not indexed]
        data_values = iter(decode(data_types, log.data)) if data_types else iter(())
        topics = iter(log.topics[1:])
        fields: dict[str, Any] = {}
        for field_name, t, indexed in inputs:
            if indexed:
                raw = next(topics).to_bytes(32, "big")
                if t in ("string", "bytes") or t.endswith("]") or t.startswith("("):
                    fields[field_name] = raw  # dynamic indexed values are stored as their hash
                else:
                    fields[field_name] = from_abi_value(t, decode([t], raw)[0])
            else:
                fields[field_name] = from_abi_value(t, next(data_values))
        return Event(name, address, fields)
