"""ABI-bound contracts: deploy, calls, receipts, events and revert reasons. The only eth-abi user."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import eth_abi
from eth_utils import keccak

from .accounts import Account, checksum, same_address, to_raw_address
from .errors import ContractError, TransactionReverted, VirtualMachineError
from .units import to_wei

if TYPE_CHECKING:
    from .backend import ExecResult, Log
    from .compiler import Artifact
    from .project import Project

ERROR_SELECTOR = bytes.fromhex("08c379a0")
PANIC_SELECTOR = bytes.fromhex("4e487b71")
PANIC_CODES = {
    0x00: "generic compiler panic",
    0x01: "assertion failed",
    0x11: "arithmetic overflow or underflow",
    0x12: "division or modulo by zero",
    0x21: "invalid enum value",
    0x22: "invalid storage byte array",
    0x31: "pop on empty array",
    0x32: "index out of bounds",
    0x41: "out of memory",
    0x51: "call to an uninitialised function",
}
TX_OPTIONS = ("from", "value", "gas")
_KW_OPTIONS = {"sender": "from", "value": "value", "gas": "gas"}


# -- ABI type strings and value conversion -------------------------------


def abi_type(param: Mapping[str, Any]) -> str:
    """The canonical type string of an ABI parameter, with tuples spelled out."""
    t = param["type"]
    if t.startswith("tuple"):
        inner = ",".join(abi_type(c) for c in param["components"])
        return f"({inner}){t[5:]}"
    return t


def _split_array(t: str) -> tuple[str, str | None]:
    """'uint256[3][]' -> ('uint256[3]', ''), 'uint256[3]' -> ('uint256', '3'), 'uint256' -> (..., None)."""
    if not t.endswith("]"):
        return t, None
    i = t.rindex("[")
    return t[:i], t[i + 1 : -1]


def _tuple_parts(t: str) -> list[str]:
    body, parts, depth, start = t[1:-1], [], 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    if body:
        parts.append(body[start:])
    return parts


def to_abi_value(t: str, value: Any, what: str) -> Any:
    """A Python value made acceptable to eth-abi for type t (accounts -> addresses, amounts -> ints)."""
    base, dim = _split_array(t)
    if dim is not None:
        if not isinstance(value, (list, tuple)):
            raise ContractError(f"{what}: expected a list for {t}, got {type(value).__name__} {value!r}")
        if dim and len(value) != int(dim):
            raise ContractError(f"{what}: {t} needs exactly {dim} items, got {len(value)}")
        return [to_abi_value(base, v, what) for v in value]
    if t.startswith("("):
        parts = _tuple_parts(t)
        if not isinstance(value, (list, tuple)) or len(value) != len(parts):
            raise ContractError(f"{what}: expected a tuple of {len(parts)} for {t}, got {value!r}")
        return tuple(to_abi_value(p, v, what) for p, v in zip(parts, value))
    if t == "address":
        return to_raw_address(value, what=what)
    if t.startswith(("uint", "int")):
        if isinstance(value, str):
            return to_wei(value, what=what)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ContractError(f"{what}: expected an integer for {t}, got {type(value).__name__} {value!r}")
        return value
    if t.startswith("bytes") and isinstance(value, str) and value.startswith("0x"):
        try:
            return bytes.fromhex(value[2:])
        except ValueError:
            raise ContractError(f"{what}: {value!r} is not valid hex for {t}") from None
    return value


def from_abi_value(t: str, value: Any) -> Any:
    """A decoded value made friendly: addresses checksummed, arrays as lists."""
    base, dim = _split_array(t)
    if dim is not None:
        return [from_abi_value(base, v) for v in value]
    if t.startswith("("):
        return tuple(from_abi_value(p, v) for p, v in zip(_tuple_parts(t), value))
    if t == "address":
        return checksum(bytes.fromhex(value[2:]))
    return value


def _static_encoder(t: str) -> Any:
    """A fast encoder to one 32-byte word for the common static types, or None."""
    if t.startswith("uint"):
        limit = 2 ** int(t[4:] or 256)

        def enc_uint(v: Any, what: str) -> bytes:
            if type(v) is not int:
                v = to_abi_value(t, v, what)
            if not 0 <= v < limit:
                raise ContractError(f"{what}: {v} does not fit in {t}")
            return v.to_bytes(32, "big")

        return enc_uint
    if t.startswith("int"):
        bits = int(t[3:] or 256)
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1)

        def enc_int(v: Any, what: str) -> bytes:
            if type(v) is not int:
                v = to_abi_value(t, v, what)
            if not lo <= v < hi:
                raise ContractError(f"{what}: {v} does not fit in {t}")
            return v.to_bytes(32, "big", signed=True)

        return enc_int
    if t == "address":

        def enc_address(v: Any, what: str) -> bytes:
            raw = getattr(v, "raw_address", None)
            return b"\0" * 12 + (raw if type(raw) is bytes else to_raw_address(v, what=what))

        return enc_address
    if t == "bool":

        def enc_bool(v: Any, what: str) -> bytes:
            if type(v) is not bool:
                raise ContractError(f"{what}: expected True or False for bool, got {v!r}")
            return b"\0" * 31 + (b"\1" if v else b"\0")

        return enc_bool
    return None


def _static_decoder(t: str) -> Any:
    """A fast decoder of one 32-byte word for the common static types, or None."""
    if t.startswith("uint"):
        return lambda w: int.from_bytes(w, "big")
    if t.startswith("int"):
        return lambda w: int.from_bytes(w, "big", signed=True)
    if t == "address":
        return lambda w: checksum(w[12:])
    if t == "bool":
        return lambda w: w[31] == 1
    return None


class _Codec:
    """Encodes a function's arguments and decodes its outputs, word by word where the types allow."""

    def __init__(self, label: str, in_types: list[str], out_types: list[str]) -> None:
        self.label = label
        self.in_types = in_types
        self.out_types = out_types
        encoders = [_static_encoder(t) for t in in_types]
        self.encoders = encoders if all(e is not None for e in encoders) else None
        decoders = [_static_decoder(t) for t in out_types]
        self.decoders = decoders if all(d is not None for d in decoders) else None

    def encode(self, args: Sequence[Any]) -> bytes:
        if self.encoders is not None:
            return b"".join(enc(v, f"{self.label} argument {i + 1} ({t})") for i, (enc, v, t) in enumerate(zip(self.encoders, args, self.in_types)))
        values = [to_abi_value(t, v, f"{self.label} argument {i + 1} ({t})") for i, (t, v) in enumerate(zip(self.in_types, args))]
        try:
            return eth_abi.encode(self.in_types, values)
        except Exception as e:
            raise ContractError(f"{self.label}: cannot encode {list(args)!r} as ({', '.join(self.in_types)}): {e}") from None

    def decode(self, output: bytes) -> Any:
        if not self.out_types:
            return None
        if self.decoders is not None and len(output) >= 32 * len(self.decoders):
            values = tuple(dec(output[32 * i : 32 * i + 32]) for i, dec in enumerate(self.decoders))
        else:
            raw = eth_abi.decode(self.out_types, output)
            values = tuple(from_abi_value(t, v) for t, v in zip(self.out_types, raw))
        return values[0] if len(values) == 1 else values


def _signature(entry: Mapping[str, Any]) -> str:
    return f"{entry['name']}({','.join(abi_type(p) for p in entry.get('inputs', []))})"


def _describe_inputs(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{p.get('name') or '_'}: {abi_type(p)}" for p in entry.get("inputs", []))


def format_call(contract: str | None, function: str | None, args: Sequence[Any]) -> str:
    shown = ", ".join(repr(a) for a in args)
    return f"{contract}.{function}({shown})" if contract else f"{function}({shown})"


# -- revert reasons --------------------------------------------------------


def decode_revert(data: bytes, abi: Sequence[Mapping[str, Any]] = ()) -> str | None:
    """The human reason carried by revert data: Error(string), Panic(uint256) or a custom error."""
    if not data:
        return None
    if data[:4] == ERROR_SELECTOR:
        try:
            return eth_abi.decode(["string"], data[4:])[0]
        except Exception:
            return f"0x{data.hex()}"
    if data[:4] == PANIC_SELECTOR and len(data) == 36:
        code = int.from_bytes(data[4:], "big")
        return f"Panic(0x{code:02x}): {PANIC_CODES.get(code, 'unknown panic code')}"
    for entry in abi:
        if entry.get("type") == "error" and keccak(text=_signature(entry))[:4] == data[:4]:
            types = [abi_type(p) for p in entry.get("inputs", [])]
            try:
                values = eth_abi.decode(types, data[4:])
            except Exception:
                break
            shown = ", ".join(repr(from_abi_value(t, v)) for t, v in zip(types, values))
            return f"{entry['name']}({shown})"
    return f"0x{data.hex()}"


class _CallLog:
    """The last call made (contract, function, args), so that reverts() can say which call failed to revert."""

    last: tuple[Any, ...] | None = None

    @classmethod
    def describe(cls) -> str | None:
        return format_call(*cls.last) if cls.last else None


def _raise_on_failure(result: "ExecResult", deployed: "Contract | None", function: str | None, artifact: "Artifact | None", call: tuple[Any, ...] | None = None) -> None:
    _CallLog.last = call
    if result.success:
        return
    description = format_call(*call) if call else None
    project = deployed._project if deployed is not None else None
    reason = None
    dev = None
    source_line = None
    if project is not None and result.error_address is not None:
        failing = project.artifact_at(result.error_address)
        if failing is not None and result.error_pc is not None:
            # vyper names its own checks (e.g. "safesub"); a reason the user wrote says more
            dev = failing.error_map.get(result.error_pc) if not result.output else None
            line = failing.source_line(result.error_pc)
            if line is not None:
                source_line = f"{failing.path}:{line[0]}: {line[1]}"
    name = deployed._name if deployed is not None else None
    if result.error == "revert":
        reason = decode_revert(result.output, artifact.abi if artifact else ())
        err: TransactionReverted = TransactionReverted(reason, contract=name, function=function, revert_data=result.output, source_line=source_line, gas_used=result.gas_used)
    else:
        err = VirtualMachineError(result.error, contract=name, function=function, source_line=source_line, gas_used=result.gas_used)
    err.dev_reason = dev  # type: ignore[attr-defined]
    err.call = description  # type: ignore[attr-defined]
    raise err


# -- events -----------------------------------------------------------------


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
        data_values = iter(eth_abi.decode(data_types, log.data)) if data_types else iter(())
        topics = iter(log.topics[1:])
        fields: dict[str, Any] = {}
        for field_name, t, indexed in inputs:
            if indexed:
                raw = next(topics).to_bytes(32, "big")
                if t in ("string", "bytes") or t.endswith("]") or t.startswith("("):
                    fields[field_name] = raw  # dynamic indexed values are stored as their hash
                else:
                    fields[field_name] = from_abi_value(t, eth_abi.decode([t], raw)[0])
            else:
                fields[field_name] = from_abi_value(t, next(data_values))
        return Event(name, address, fields)


# -- receipts ----------------------------------------------------------------


class Receipt:
    """The outcome of a state-changing call: return_value, events, gas_used, sender, value."""

    def __init__(self, result: "ExecResult", *, sender: Account, value: int, contract: "Contract | None", function: "ContractFunction | None", return_value: Any = None) -> None:
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


# -- contracts -----------------------------------------------------------------


def _split_options(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], n_inputs_choices: Sequence[int]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    options: dict[str, Any] = {}
    if args and isinstance(args[-1], dict) and (len(args) - 1) in n_inputs_choices and set(args[-1]) <= set(TX_OPTIONS):
        options = dict(args[-1])
        args = args[:-1]
    elif args and isinstance(args[-1], dict) and (len(args) - 1) in n_inputs_choices:
        unknown = sorted(set(args[-1]) - set(TX_OPTIONS))
        raise ContractError(f"{name}: unknown transaction option(s) {', '.join(map(repr, unknown))}; use 'from', 'value' and 'gas'")
    for key, value in kwargs.items():
        if key not in _KW_OPTIONS:
            raise ContractError(f"{name}: unexpected keyword {key!r}; pass arguments by position and options as sender=, value=, gas= (or a trailing {{'from': ..., 'value': ...}} dict)")
        options[_KW_OPTIONS[key]] = value
    return args, options


class ContractFunction:
    """One ABI function of a deployed contract (overloads by arity are chosen by argument count)."""

    def __init__(self, contract: "Contract", entries: list[dict[str, Any]]) -> None:
        self.contract = contract
        self.name = entries[0]["name"]
        self._by_arity: dict[int, tuple[dict[str, Any], bytes, _Codec]] = {}
        for entry in entries:
            in_types = [abi_type(p) for p in entry.get("inputs", [])]
            out_types = [abi_type(p) for p in entry.get("outputs", [])]
            selector = keccak(text=_signature(entry))[:4]
            codec = _Codec(f"{contract._name}.{self.name}", in_types, out_types)
            self._by_arity[len(in_types)] = (entry, selector, codec)
        first = entries[0]
        self.mutability = first.get("stateMutability", "nonpayable")
        self.is_view = self.mutability in ("view", "pure")
        self.payable = self.mutability == "payable"

    @property
    def _label(self) -> str:
        return f"{self.contract._name}.{self.name}"

    def _prepare(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any], bytes, _Codec]:
        if kwargs or (args and type(args[-1]) is dict):
            args, options = _split_options(self._label, args, kwargs, list(self._by_arity))
        else:
            options = {}
        chosen = self._by_arity.get(len(args))
        if chosen is None:
            wanted = " or ".join(f"{n} ({_describe_inputs(self._by_arity[n][0])})" for n in sorted(self._by_arity))
            raise ContractError(f"{self._label} takes {wanted} arguments, got {len(args)}")
        _, selector, codec = chosen
        return args, options, selector + codec.encode(args), codec

    def _sender(self, options: dict[str, Any]) -> Account:
        sender = options.get("from")
        if sender is None:
            return self.contract._project.accounts[0]
        if isinstance(sender, Account):
            return sender
        return self.contract._project.accounts.at(sender)

    def _value(self, options: dict[str, Any]) -> int:
        value = to_wei(options.get("value", 0), what=f"{self._label} value")
        if value and not self.payable:
            raise ContractError(f"{self._label} is not payable, but a value of {value} wei was sent")
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A view function returns its value; any other sends a transaction and returns a Receipt."""
        if self.is_view:
            return self.call(*args, **kwargs)
        return self.transact(*args, **kwargs)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """Run the function without changing state and return its decoded value."""
        args, options, data, codec = self._prepare(args, kwargs)
        sender = self._sender(options)
        backend = self.contract._project.backend
        result = backend.call(sender.raw_address, self.contract.raw_address, data, self._value(options), _gas(options), static=self.is_view)
        _raise_on_failure(result, self.contract, self.name, self.contract._artifact, (self.contract._name, self.name, args))
        return codec.decode(result.output)

    def transact(self, *args: Any, **kwargs: Any) -> Receipt:
        """Send a transaction calling the function; raise TransactionReverted if it reverts."""
        args, options, data, codec = self._prepare(args, kwargs)
        sender = self._sender(options)
        value = self._value(options) if "value" in options else 0
        backend = self.contract._project.backend
        result = backend.transact(sender.raw_address, self.contract.raw_address, data, value, _gas(options))
        _raise_on_failure(result, self.contract, self.name, self.contract._artifact, (self.contract._name, self.name, args))
        return Receipt(result, sender=sender, value=value, contract=self.contract, function=self, return_value=codec.decode(result.output))

    def encode_input(self, *args: Any) -> bytes:
        return self._prepare(args, {})[2]

    def __repr__(self) -> str:
        sigs = " | ".join(_signature(e) for e, *_ in self._by_arity.values())
        return f"<{self.mutability} {self.contract._name}.{sigs}>"


def _gas(options: dict[str, Any]) -> int | None:
    gas = options.get("gas")
    if gas is None:
        return None
    if isinstance(gas, bool) or not isinstance(gas, int) or gas <= 0:
        raise ContractError(f"gas must be a positive integer, got {gas!r}")
    return gas


class Contract:
    """A deployed contract: each ABI function is a method; .address, .balance()."""

    def __init__(self, project: "Project", name: str, raw_address: bytes, artifact: "Artifact") -> None:
        self._project = project
        self._name = name
        self._artifact = artifact
        self.raw_address = raw_address
        self.address = checksum(raw_address)
        grouped: dict[str, list[dict[str, Any]]] = {}
        for entry in artifact.abi:
            if entry.get("type") == "function":
                grouped.setdefault(entry["name"], []).append(entry)
        self._functions = {name: ContractFunction(self, entries) for name, entries in grouped.items()}
        for fname, fn in self._functions.items():
            if not hasattr(Contract, fname) and fname not in self.__dict__:
                setattr(self, fname, fn)

    def function(self, name: str) -> ContractFunction:
        """The function called name, even where it clashes with a Contract attribute."""
        try:
            return self._functions[name]
        except KeyError:
            raise ContractError(f"{self._name} has no function {name!r}; it has {', '.join(sorted(self._functions)) or 'none'}") from None

    def balance(self) -> int:
        return self._project.backend.get_balance(self.raw_address)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"{self._name} has no function {name!r}; it has {', '.join(sorted(self._functions)) or 'none'}")

    def __eq__(self, other: object) -> bool:
        return same_address(self.raw_address, self.address, other)  # type: ignore[return-value]

    def __hash__(self) -> int:
        return hash(self.address)

    def __repr__(self) -> str:
        return f"<{self._name} {self.address}>"

    def __str__(self) -> str:
        return self.address


class ContractContainer:
    """The contracts built from one source file: Name.deploy(*args, {'from': acct, 'value': v})."""

    def __init__(self, project: "Project", artifact: "Artifact") -> None:
        self._project = project
        self._artifact = artifact
        self._name = artifact.name
        self.abi = artifact.abi
        self.bytecode = artifact.bytecode
        self._deployed: list[Contract] = []
        ctor = [e for e in artifact.abi if e.get("type") == "constructor"]
        self._ctor_types = [abi_type(p) for p in ctor[0].get("inputs", [])] if ctor else []
        self._ctor_desc = _describe_inputs(ctor[0]) if ctor else ""
        self._ctor_payable = bool(ctor) and ctor[0].get("stateMutability") == "payable"

    @property
    def name(self) -> str:
        return self._name

    def deploy(self, *args: Any, **kwargs: Any) -> Contract:
        """Deploy a new instance and return it; raises TransactionReverted if the constructor reverts."""
        label = f"{self._name}.deploy"
        args, options = _split_options(label, args, kwargs, [len(self._ctor_types)])
        if len(args) != len(self._ctor_types):
            raise ContractError(f"{label} takes {len(self._ctor_types)} arguments ({self._ctor_desc}), got {len(args)}")
        values = [to_abi_value(t, v, f"{label} argument {i + 1} ({t})") for i, (t, v) in enumerate(zip(self._ctor_types, args))]
        try:
            data = self._artifact.bytecode + (eth_abi.encode(self._ctor_types, values) if self._ctor_types else b"")
        except Exception as e:
            raise ContractError(f"{label}({self._ctor_desc}): cannot encode {list(args)!r}: {e}") from None
        sender = options.get("from") or self._project.accounts[0]
        if not isinstance(sender, Account):
            sender = self._project.accounts.at(sender)
        value = to_wei(options.get("value", 0), what=f"{label} value")
        if value and not self._ctor_payable:
            raise ContractError(f"{label}: the constructor is not payable, but a value of {value} wei was sent")
        result = self._project.backend.transact(sender.raw_address, None, data, value, _gas(options))
        if not result.success:
            _raise_on_failure(result, None, "deploy", self._artifact, (self._name, "deploy", args))
        contract = self.at(result.contract_address)
        self._deployed.append(contract)
        return contract

    def at(self, address: object) -> Contract:
        """This contract's interface bound to an existing address."""
        raw = to_raw_address(address, what=f"{self._name}.at")
        self._project.register(raw, self._artifact)
        return Contract(self._project, self._name, raw, self._artifact)

    def __len__(self) -> int:
        return len(self._deployed)

    def __getitem__(self, i: int) -> Contract:
        return self._deployed[i]

    def __repr__(self) -> str:
        return f"<ContractContainer {self._name}>"


# -- reverts() ---------------------------------------------------------------


class reverts:
    """Context manager: passes only when the block reverts, with that reason when one is given.

    reason matches the decoded revert reason, or vyper's description of a
    compiler-inserted check (e.g. "safesub") when the revert carried no reason.
    """

    # called with the caught error each time a reverts() block passes (for run statistics)
    listeners: list[Any] = []

    def __init__(self, reason: str | None = None) -> None:
        self.reason = reason
        self.error: TransactionReverted | None = None

    def __enter__(self) -> "reverts":
        _CallLog.last = None
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        expected = f"reverts({self.reason!r})" if self.reason is not None else "reverts()"
        if exc is None:
            last = _CallLog.describe()
            what = f"{last} succeeded" if last else "no transaction was made in the block, so nothing reverted"
            raise AssertionError(f"{what} where {expected} expected a revert")
        if not isinstance(exc, TransactionReverted):
            return False
        if self.reason is not None and exc.reason != self.reason and getattr(exc, "dev_reason", None) != self.reason:
            got = repr(exc.reason) if exc.reason is not None else "no reason"
            dev = getattr(exc, "dev_reason", None)
            if exc.reason is None and dev:
                got += f" (vyper check: {dev!r})"
            call = getattr(exc, "call", None) or "the call"
            raise AssertionError(f"{call} reverted with {got}, but {expected} expected {self.reason!r}") from exc
        self.error = exc
        for listener in self.listeners:
            listener(exc)
        return True
