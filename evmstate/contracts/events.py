"""Decoded events: Event, the per-name EventItem, a receipt's EventDict, and the log decoder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from eth_utils import keccak

from .abi import decode_values, entry_signature, param_type
from .codec import NotAWord, word_decoder
from ..values import HexBytes, format_value
from .address import checksum

if TYPE_CHECKING:
    from ..compiler.sources import Artifact
    from ..evm.base import Log


class Event(dict):
    """One decoded event: a mapping of field -> value, with its name and address."""

    def __init__(self, name: str, address: str, fields: Mapping[str, Any]) -> None:
        super().__init__(fields)
        self.name = name
        self.address = address

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={format_value(v)}' for k, v in self.items())})"


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


class _EventSpec:
    """One event of an ABI: its topic0 and how to read its topics and data.

    Where every field is one word (uints, ints, addresses, bools) it decodes word by word;
    otherwise, and for any word that is not a valid encoding, through eth-abi.
    """

    def __init__(self, entry: Mapping[str, Any], words: bool = True) -> None:
        self.name = entry["name"]
        self.topic = int.from_bytes(keccak(text=entry_signature(entry)), "big")
        self.inputs = [
            (p.get("name") or f"_{i}", param_type(p), bool(p.get("indexed")))
            for i, p in enumerate(entry.get("inputs", []))
        ]
        self.n_topics = 1 + sum(indexed for *_, indexed in self.inputs)
        self.data_types = [t for _, t, indexed in self.inputs if not indexed]
        # two ABIs may hold the same event; it is one candidate, not an ambiguity
        self.key = (self.name, tuple((n, t.name, t.display, indexed) for n, t, indexed in self.inputs))
        decoders = [word_decoder(t) for _, t, _ in self.inputs] if words else [None]
        self._words = decoders if all(d is not None for d in decoders) else None

    def decode(self, log: "Log", address: str) -> Event:
        """The log read as this event; raises when its topics or data do not fit."""
        if len(log.topics) != self.n_topics:
            raise ValueError(f"{len(log.topics)} topics, not {self.n_topics}")
        if self._words is not None and len(log.data) == 32 * len(self.data_types):
            try:
                return self._decode_words(log, address, self._words)
            except NotAWord:
                pass  # eth-abi reports what is wrong with it
        return self._decode(log, address)

    def _decode_words(self, log: "Log", address: str, decoders: list[Any]) -> Event:
        fields: dict[str, Any] = {}
        topic = 1
        offset = 0
        data = log.data
        for (field_name, _, indexed), dec in zip(self.inputs, decoders):
            if indexed:
                fields[field_name] = dec(log.topics[topic].to_bytes(32, "big"))
                topic += 1
            else:
                fields[field_name] = dec(data[offset : offset + 32])
                offset += 32
        return Event(self.name, address, fields)

    def _decode(self, log: "Log", address: str) -> Event:
        data_values = iter(decode_values(self.data_types, log.data) if self.data_types else ())
        if not self.data_types and log.data:
            raise ValueError("data where the event has none")
        topics = iter(log.topics[1:])
        fields: dict[str, Any] = {}
        for field_name, t, indexed in self.inputs:
            if indexed:
                raw = next(topics).to_bytes(32, "big")
                if t.dynamic or t.kind in ("array", "tuple"):
                    # indexed arrays, structs, bytes and strings are stored as their hash
                    fields[field_name] = HexBytes(raw)
                else:
                    fields[field_name] = decode_values([t], raw)[0]
            else:
                fields[field_name] = next(data_values)
        return Event(self.name, address, fields)


def _specs_by_topic(abi: Sequence[Mapping[str, Any]], words: bool = True) -> dict[int, list[_EventSpec]]:
    by_topic: dict[int, list[_EventSpec]] = {}
    for entry in abi:
        if entry.get("type") != "event" or entry.get("anonymous"):
            continue
        spec = _EventSpec(entry, words)
        same = by_topic.setdefault(spec.topic, [])
        if all(s.key != spec.key for s in same):
            same.append(spec)
    return by_topic


def raw_event(log: "Log") -> Event:
    """A log no ABI explains: named "(unknown)", with its topics and data as hex."""
    return Event(
        "(unknown)", checksum(log.address),
        {"topics": [f"0x{t:064x}" for t in log.topics], "data": f"0x{log.data.hex()}"},
    )


class EventDecoder:
    """Decodes logs: by the ABI of the contract at the emitting address, else by every ABI the project knows.

    A log that no candidate event decodes, or that several different ones do, comes back raw
    (see raw_event); decoding never raises.
    """

    def __init__(self, artifact_at: "Callable[[bytes], Artifact | None] | None" = None, *, words: bool = True) -> None:
        self._artifact_at = artifact_at
        self._words = words
        self._by_topic: dict[int, list[_EventSpec]] = {}
        self._by_abi: dict[int, tuple[Sequence[Any], dict[int, list[_EventSpec]]]] = {}

    def add_abi(self, abi: Sequence[Mapping[str, Any]]) -> None:
        """Make abi's events candidates for logs from addresses the project did not deploy or attach."""
        for topic, specs in _specs_by_topic(abi, self._words).items():
            known = self._by_topic.setdefault(topic, [])
            known.extend(s for s in specs if all(k.key != s.key for k in known))

    def _abi_specs(self, abi: Sequence[Mapping[str, Any]]) -> dict[int, list[_EventSpec]]:
        cached = self._by_abi.get(id(abi))
        if cached is None or cached[0] is not abi:
            cached = self._by_abi[id(abi)] = (abi, _specs_by_topic(abi, self._words))
        return cached[1]

    def decode(self, log: "Log") -> Event:
        """The log as an Event of the emitting contract's ABI, else of the one project ABI that fits, else raw."""
        if not log.topics:
            return raw_event(log)
        topic = log.topics[0]
        address = checksum(log.address)
        artifact = self._artifact_at(log.address) if self._artifact_at is not None else None
        if artifact is not None:
            decoded = _decode_each(self._abi_specs(artifact.abi).get(topic, ()), log, address)
            if len(decoded) == 1:
                return decoded[0]
            if decoded:
                return raw_event(log)
        # an address no ABI is bound to, or a log its own ABI does not explain (e.g. a raw_log)
        decoded = _decode_each(self._by_topic.get(topic, ()), log, address)
        return decoded[0] if len(decoded) == 1 else raw_event(log)


def _decode_each(specs: Sequence[_EventSpec], log: "Log", address: str) -> list[Event]:
    decoded = []
    for spec in specs:
        try:
            decoded.append(spec.decode(log, address))
        except Exception:
            continue
    return decoded
