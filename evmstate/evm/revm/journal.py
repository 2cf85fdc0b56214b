"""Reading pyrevm's text: its journal (what a call loaded, read, changed and logged; revm.py runs every call inside a
checkpoint) and the error a failed call raises.

pyrevm 0.3.7 shows its journal only as the Debug text of revm's JournaledState: each account the
call loaded (its info, its code, the storage slots loaded with their original and present
values, its status), then the logs. Nothing here imports pyrevm: it reads text.
"""

from __future__ import annotations

import re
from typing import Any

from eth_utils import keccak

from ..base import OUT_OF_MEMORY_GAS, Log

EMPTY_CODE_HASH = keccak(b"")
_EMPTY_HEX = EMPTY_CODE_HASH.hex()

# the journal's debug text: each account loaded by the call, its storage slots, its status
ACCOUNT = re.compile(
    r"0x([0-9a-f]{40}): Account \{ info: AccountInfo \{ balance: (\d+), nonce: (\d+), code_hash: 0x([0-9a-f]{64}), "
    r"code: "
)
STATUS = re.compile(r"\}, status: AccountStatus\(([^)]*)\) \}")
SLOT = re.compile(r"(\d+): StorageSlot \{ previous_or_original_value: (\d+), present_value: (\d+) \}")
CODE = re.compile(r"Some\(Bytecode \{ bytecode: 0x([0-9a-f]*), state: (?:Raw|\w+ \{ len: (\d+))")
LOG = re.compile(r"Log \{ address: 0x([0-9a-f]{40}), data: LogData \{ topics: \[([^\]]*)\], data: 0x([0-9a-f]*) \} \}")
STORAGE = "storage: {"
NO_STORAGE = "storage: {}"
STATE_END = ", transient_storage: {"
# the error pyrevm raises for a call that reverted or halted
FAILED = re.compile(r"^(Revert|Halt) \{ (?:reason: (.*), )?gas_used: (\d+)(?:, output: 0x([0-9a-f]*))? \}$", re.S)

# revm's halt reasons, as py-evm words them where it matters to a reader
_HALTS = {
    "OutOfGas": "Out of gas",
    "OpcodeNotFound": "Invalid opcode",
    "InvalidFEOpcode": "Invalid opcode (INVALID)",
    "InvalidJump": "Invalid jump destination",
    "StackUnderflow": "Stack underflow",
    "StackOverflow": "Stack overflow",
    "OutOfOffset": "Return data out of bounds",
    "CallTooDeep": "Stack depth limit reached",
    "CreateContractSizeLimit": "Contract code size limit exceeded",
    "CreateContractStartingWithEF": "Contract code starts with 0xEF",
    "CreateInitCodeSizeLimit": "Initcode size limit exceeded",
    "StateChangeDuringStaticCall": "Write protection: state change during a static call",
    "CreateCollision": "Contract address collision",
}


# revm's out-of-gas halts that one costly step made (py-evm says "Reason: Expanding memory ...")
MEMORY_HALTS = ("OutOfGas(Memory)", "OutOfGas(MemoryLimit)")


def halt_message(reason: str) -> str:
    """A halt reason of revm's (OutOfGas(Basic)) as py-evm words it (Out of gas); a memory expansion no gas could pay is
    said apart."""
    if reason in MEMORY_HALTS:
        return OUT_OF_MEMORY_GAS
    name = reason.split("(", 1)[0]
    return _HALTS.get(name, reason)



def logs_in(journal: str) -> tuple[Log, ...]:
    """The logs in the journal's text: all of the last call's, as every call starts from an empty journal."""
    start = journal.find(", logs: [")
    if journal.startswith("], depth: ", start + 9):
        return ()
    end = journal.find("], depth: ", start)
    return tuple(
        Log(bytes.fromhex(address), tuple(int(t, 16) for t in topics.split(", ") if t), bytes.fromhex(data))
        for address, topics, data in LOG.findall(journal, start, end + 1)
    )


# Reading an account's storage means finding "storage: {" past its code, whose hex the text repeats for every
# account loaded with code (tens of kilobytes a call on a real protocol): searching for it cost more than the
# rest of the reading. Code is known by its hash, so the distance is kept per hash and trusted only where the
# text says the same: code follows ("Some(Bytecode { bytecode: 0x", then the hex of the code with that hash, of
# one length), kept Raw, and the storage right after it. The empty code's hash is never trusted: a sender with
# code runs with it (backend.py, _let_code_send).
_SOME = "Some(Bytecode { bytecode: 0x"
_RAW_END = ", state: Raw }) }, " + STORAGE
_TO_STORAGE: dict[str, int] = {}


def _storage_at(journal: str, m: "re.Match[str]", end: int) -> int:
    """Where the storage of the account whose header m matched starts (-1: nowhere before end)."""
    after = m.end()
    code_hash = m.group(4)
    if not journal.startswith(_SOME, after) or code_hash == _EMPTY_HEX:
        return journal.find(STORAGE, after, end)
    known = _TO_STORAGE.get(code_hash)
    if known is not None and journal.startswith(_RAW_END, after + known):
        return after + known + len(_RAW_END) - len(STORAGE)
    start = journal.find(STORAGE, after, end)
    if start >= 0 and journal.startswith(_RAW_END, start + len(STORAGE) - len(_RAW_END)) and len(_TO_STORAGE) < 4096:
        _TO_STORAGE[code_hash] = start + len(STORAGE) - len(_RAW_END) - after
    return start


def loaded(journal: str) -> tuple[list[bytes], list[list[tuple[str, str]]]]:
    """The accounts the call loaded, in order, and per account the (slot, value) pairs loaded for it."""
    end = journal.find(STATE_END)
    addresses: list[bytes] = []
    found: list[list[tuple[str, str]]] = []
    pos = 0
    while True:
        m = ACCOUNT.search(journal, pos, end)
        if m is None:
            return addresses, found
        start = _storage_at(journal, m, end)
        status = STATUS.search(journal, start, end)
        assert start >= 0 and status is not None, "unexpected journal text from pyrevm"
        addresses.append(bytes.fromhex(m.group(1)))
        slots = [] if journal.startswith(NO_STORAGE, start) else SLOT.findall(journal, start, status.start())
        found.append([(k, v) for k, _, v in slots])
        pos = status.end()


def read_changes(journal: str, info_of: dict[bytes, list[Any]]) -> dict[bytes, Any]:
    """What the call changed, from the journal's text: address -> (info, code, {slot: value}, destroyed).

    info_of: address -> [balance, nonce, code hash] before the call (no entry: no account).
    An account whose info and storage are as they were is left out.
    """
    # hot path: read once per transaction
    end = journal.rfind(STATE_END)
    changes: dict[bytes, Any] = {}
    pos = 0
    account, status_of, slot_pairs, starts, storage_at = (
        ACCOUNT.search, STATUS.search, SLOT.findall, journal.startswith, _storage_at,
    )
    while True:
        m = account(journal, pos, end)
        if m is None:
            return changes
        start = storage_at(journal, m, end)
        status = status_of(journal, start, end)
        assert start >= 0 and status is not None, "unexpected journal text from pyrevm"
        pos = status.end()
        hex_address, balance, nonce, code_hash = m.groups()
        address = bytes.fromhex(hex_address)
        if "SelfDestructed" in status.group(1):
            changes[address] = (None, None, {}, True)
            continue
        slots = (
            {}
            if starts(NO_STORAGE, start)
            else {int(k): int(v) for k, old, v in slot_pairs(journal, start, status.start()) if old != v}
        )
        old_info = info_of.get(address)
        info = [int(balance), int(nonce), bytes.fromhex(code_hash)]
        same_info = info == old_info if old_info is not None else info == [0, 0, EMPTY_CODE_HASH]
        if same_info and not slots:
            continue
        code = None
        if info[2] != EMPTY_CODE_HASH and (old_info is None or old_info[2] != info[2]):
            c = CODE.match(journal, m.end())
            assert c is not None, "unexpected code in pyrevm's journal text"
            raw = bytes.fromhex(c.group(1))
            code = raw[: int(c.group(2))] if c.group(2) else raw
        changes[address] = (None if same_info else info, code, slots, False)


def deployed(changes: dict[bytes, Any], address: bytes) -> bytes:
    """The code a deployment's changes (read_changes) put at address: what its initcode returned."""
    change = changes.get(address)
    return (change[1] if change is not None else None) or b""
