"""Public getters read from storage: the slot behind a vyper public getter, and a reader precompiled per getter.

An invariant over every account's balance and allowance calls a getter dozens of times a step.
Reading the slot returns what the getter would, without running code; the reader built here
does it with the fewest Python objects: the slot by the keys' own values (an account by its
raw address, an int by itself), the value from the storage word as an int. Whatever it does
not take that way (a key given as a hex string, a word that is not a valid encoding) goes
through the codec, which gives every value and error the call would.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from eth_utils import keccak

from .abi import AbiType
from .codec import Codec
from .address import checksum

# a storage value a getter returns as one ABI word, and a HashMap key hashed as one
_WORD_TYPE = re.compile(r"^(address|bool|u?int\d+|bytes\d+)$")
# slots remembered per getter, and keys (as given) per reader
SLOTS = 4096

NOT_READ = object()  # the reader's answer when the getter must run as a call


def hashmap_keys(type_str: str) -> int | None:
    """How many keys a getter of this storage type takes, or None when it is not a word behind HashMaps."""
    keys = 0
    while type_str.startswith("HashMap[") and type_str.endswith("]"):
        key, _, rest = type_str[len("HashMap[") : -1].partition(", ")
        if not _WORD_TYPE.match(key):
            return None
        keys += 1
        type_str = rest
    return keys if _WORD_TYPE.match(type_str) else None


class Getter:
    """The storage slot behind a vyper public getter: a word behind zero or more HashMaps.

    The compiler lists which exposed functions are getters of public storage variables, the
    contract's own and those of the modules it exports from (Artifact.getters), with each
    variable's slot and type. Reading the slot returns what the getter would, without running code.
    """

    __slots__ = ("slot", "keys", "_slots")

    def __init__(self, slot: int, keys: int) -> None:
        self.slot = slot
        self.keys = keys
        self._slots: dict[bytes, int] = {}

    @classmethod
    def find(cls, getters: dict[str, dict[str, Any]], entries: list[dict[str, Any]]) -> "Getter | None":
        """The getter behind a function's ABI entries, if they are one; getters is Artifact.getters."""
        if len(entries) != 1 or entries[0].get("stateMutability") != "view" or len(entries[0].get("outputs", ())) != 1:
            return None
        var = getters.get(entries[0]["name"])
        if not isinstance(var, dict) or not isinstance(var.get("slot"), int) or not isinstance(var.get("type"), str):
            return None
        keys = hashmap_keys(var["type"])
        if keys is None or keys != len(entries[0].get("inputs", ())):
            return None
        return cls(var["slot"], keys)

    def slot_of(self, encoded_keys: bytes) -> int:
        """The slot for the ABI-encoded keys: keccak256(slot . key), once per key (vyper's HashMap)."""
        slot = self._slots.get(encoded_keys)
        if slot is None:
            slot = self.slot
            for i in range(self.keys):
                slot = int.from_bytes(keccak(slot.to_bytes(32, "big") + encoded_keys[32 * i : 32 * i + 32]), "big")
            if len(self._slots) < SLOTS:
                self._slots[encoded_keys] = slot
        return slot


def key_of(t: AbiType) -> Callable[[Any], Any] | None:
    """A function giving what determines a key's encoding (a raw address, an int, a bool), or None when the codec must
    say."""
    if t.kind == "address":

        def address_key(v: Any) -> Any:
            raw = getattr(v, "raw_address", None)
            return raw if type(raw) is bytes else None

        return address_key
    if t.kind in ("uint", "int"):
        low, high = (0, 1 << t.bits) if t.kind == "uint" else (-(1 << (t.bits - 1)), 1 << (t.bits - 1))
        return lambda v: v if type(v) is int and low <= v < high else None
    if t.kind == "bool":
        return lambda v: v if type(v) is bool else None
    return None


def value_of(t: AbiType) -> Callable[[int], Any] | None:
    """The getter's value from its storage word as an int, NOT_READ when the word is not a valid encoding; None for
    types it leaves to the codec."""
    if t.kind == "uint":
        limit = 1 << t.bits
        return lambda w: w if w < limit else NOT_READ
    if t.kind == "int":
        half = 1 << (t.bits - 1)
        word, sign = 1 << 256, 1 << 255

        def signed(w: int) -> Any:
            v = w - word if w >= sign else w
            return v if -half <= v < half else NOT_READ

        return signed
    if t.kind == "address":
        return lambda w: checksum(w.to_bytes(20, "big")) if w >> 160 == 0 else NOT_READ
    if t.kind == "bool":
        return lambda w: True if w == 1 else False if w == 0 else NOT_READ
    return None


def reader(getter: Getter, contract: Any, codec: Codec, fast: bool = True) -> Callable[[tuple[Any, ...]], Any]:
    """read(args): the getter's value for args (as a call would return it), or NOT_READ when it must run as a call.

    It is NOT_READ for another number of arguments than the getter's keys, for a trailing dict
    (transaction options: the call decides what they mean), and while the contract's address does
    not hold its code. fast=False reads through the codec alone (the path every read took before
    this reader; benchmarks/step_cost.py).
    """
    keyers = [key_of(t) for t in codec.inputs]
    output = codec.outputs[0]
    whole = output.kind == "uint" and output.bits == 256  # every storage word is a uint256 as it is
    valuer = value_of(output)
    fast = fast and None not in keyers
    first = keyers[0] if keyers else None
    by_address = bool(codec.inputs) and codec.inputs[0].kind == "address"
    slots: dict[Any, int] = {}
    n = getter.keys
    runtime = contract._artifact.bytecode_runtime
    address = contract.raw_address
    project = contract._project
    seen: list[Any] = [None]  # the code last seen at the address, when it was the contract's

    def general(args: tuple[Any, ...], backend: Any) -> Any:
        if args and type(args[-1]) is dict:
            return NOT_READ
        word = backend.get_storage(address, getter.slot_of(codec.encode(args)))
        return codec.decode(word.to_bytes(32, "big"))

    def slot_for(key: Any, args: tuple[Any, ...]) -> int:
        slot = getter.slot_of(codec.encode(args))
        if len(slots) >= SLOTS:
            slots.clear()
        slots[key] = slot
        return slot

    # hot path: called for every public getter an invariant reads (as few steps as it can take)
    def read(args: tuple[Any, ...]) -> Any:
        if len(args) != n:
            return NOT_READ
        backend = project.backend
        code = backend.get_code(address)
        if code is not seen[0]:
            # the getter's value is the slot's only while this contract's code is there
            if not code or not code.startswith(runtime):
                return NOT_READ
            seen[0] = code
        if not fast:
            return general(args, backend)
        if n == 0:
            word = backend.get_storage(address, getter.slot)
        elif n == 1:
            if by_address:  # an account: by its raw address (the keyer's test, without its call)
                key = getattr(args[0], "raw_address", None)
                if type(key) is not bytes:
                    return general(args, backend)
            else:
                key = first(args[0])  # type: ignore[misc]
                if key is None:
                    return general(args, backend)
            slot = slots.get(key)
            word = backend.get_storage(address, slot if slot is not None else slot_for(key, args))
        else:
            key = tuple([k(v) for k, v in zip(keyers, args)])  # type: ignore[misc]
            if None in key:
                return general(args, backend)
            slot = slots.get(key)
            word = backend.get_storage(address, slot if slot is not None else slot_for(key, args))
        if whole:
            return word
        value = valuer(word) if valuer is not None else NOT_READ
        return value if value is not NOT_READ else codec.decode(word.to_bytes(32, "big"))

    return read
