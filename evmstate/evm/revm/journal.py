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

# the journal's debug text: each account loaded by the call, its storage slots, its status
ACCOUNT = re.compile(r"0x([0-9a-f]{40}): Account \{ info: AccountInfo \{ balance: (\d+), nonce: (\d+), code_hash: 0x([0-9a-f]{64}), code: ")
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
    """A halt reason of revm's (OutOfGas(Basic)) as py-evm words it (Out of gas); a memory expansion no gas could pay is said apart."""
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


def loaded(journal: str) -> tuple[list[bytes], list[list[tuple[str, str]]]]:
    """The accounts the call loaded, in order, and per account the (slot, value) pairs loaded for it."""
    end = journal.find(STATE_END)
    addresses = [bytes.fromhex(m.group(1)) for m in ACCOUNT.finditer(journal, 0, end)]
    return addresses, slots_by_account(journal, end)


def slots_by_account(journal: str, end: int) -> list[list[tuple[str, str]]]:
    """Per loaded account in the journal's text, in order: the (slot, value) pairs loaded for it."""
    found: list[list[tuple[str, str]]] = []
    pos = 0
    while True:
        m = ACCOUNT.search(journal, pos, end)
        if m is None:
            return found
        start = journal.find(STORAGE, m.end(), end)
        status = STATUS.search(journal, start, end)
        assert start >= 0 and status is not None, "unexpected journal text from pyrevm"
        found.append([(k, v) for k, _, v in SLOT.findall(journal, start, status.start())])
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
    account, status_of, slot_pairs, find, starts = ACCOUNT.search, STATUS.search, SLOT.findall, journal.find, journal.startswith
    while True:
        m = account(journal, pos, end)
        if m is None:
            return changes
        start = find(STORAGE, m.end(), end)
        status = status_of(journal, start, end)
        assert start >= 0 and status is not None, "unexpected journal text from pyrevm"
        pos = status.end()
        hex_address, balance, nonce, code_hash = m.groups()
        address = bytes.fromhex(hex_address)
        if "SelfDestructed" in status.group(1):
            changes[address] = (None, None, {}, True)
            continue
        slots = {} if starts(NO_STORAGE, start) else {int(k): int(v) for k, old, v in slot_pairs(journal, start, status.start()) if old != v}
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
