"""What each process of the concurrent-writers test does: write, remove and read the stores at once.

A module of its own (not a test file), so that spawned processes (where the writers are not forked) import only this.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

RECORDS = 30  # records of its own each writer saves
SHARED = 12  # records every writer saves under the same ids
VALUES = 40  # example values of its own each writer saves
KEYS = 4
PAD = 20_000  # bytes: large enough that a write in pieces could be seen half done
CHURN = 10  # values saved per round to a key whose folder keeps emptying


def own_id(writer: int, i: int) -> str:
    return f"w{writer}-{i}"


def shared_id(i: int) -> str:
    return f"shared-{i}"


def value(writer: int, i: int) -> bytes:
    head = f"w{writer}-{i}:".encode()
    return head + hashlib.sha256(head).digest() * (PAD // 32)


def small(writer: int, i: int) -> bytes:
    return f"w{writer}-{i}".encode()


def key(i: int) -> bytes:
    return f"key-{i % KEYS}".encode()


def churn(i: int) -> bytes:
    return f"churn-{i}".encode()


def kept(i: int) -> bool:
    """Whether a writer keeps its i-th record and value (it removes the others right after saving them)."""
    return i % 2 == 0


def moved(i: int) -> bool:
    return i % 5 == 0


def record(writer: int, rid: str) -> object:
    from evmstate.failures import FailureRecord

    return FailureRecord(
        id=rid,
        kind="machine",
        path="machines/m.py",
        name="M",
        error={"type": "AssertionError", "message": f"written by {writer}"},
        steps=[{"rule": "rule_x", "arguments": {"pad": "x" * PAD}, "results": []}],
        program=["state = M()", f"state.rule_x()  # {writer}"],
    )


def write(writer: int, failures: str, examples: str, barrier: object) -> list[str]:
    """Save, remove and read at once with the other writers; return what went wrong as seen from here."""
    from evmstate.errors import FailureRecordError
    from evmstate.engine.database import SharedDirectoryDatabase
    from evmstate.failures import FailureStore

    store = FailureStore(Path(failures))
    db = SharedDirectoryDatabase(examples)
    rng = random.Random(writer)
    problems: list[str] = []
    barrier.wait()  # type: ignore[attr-defined]
    for i in range(max(RECORDS, VALUES)):
        if i < RECORDS:
            store.save(record(writer, own_id(writer, i)))  # type: ignore[arg-type]
            if not kept(i):
                store.remove(own_id(writer, i))
        if i < SHARED:
            store.save(record(writer, shared_id(i)))  # type: ignore[arg-type]
        if i < VALUES:
            db.save(key(i), value(writer, i))
            if not kept(i):
                db.delete(key(i), value(writer, i))
            elif moved(i):
                db.move(key(i), b"moved", value(writer, i))
        # a value that comes and goes: the key's folder is removed whenever it empties,
        # under the feet of the other writers saving to it
        for j in range(CHURN):
            db.save(churn(i), small(writer, -1))
            db.delete(churn(i), small(writer, -1))
            db.save(churn(i), small(writer, i * CHURN + j))
        # read what is there now: never a record or a value half written
        ids = store.ids()
        for rid in rng.sample(ids, min(3, len(ids))):
            try:
                store.load(rid)
            except FailureRecordError as e:
                if "no saved failure" not in str(e):  # removed since the listing: fine
                    problems.append(f"{rid}: {e}")
        for v in db.fetch(key(i)):
            head = v.split(b":", 1)[0] + b":"
            if v != head + hashlib.sha256(head).digest() * (PAD // 32):
                problems.append(f"torn value {head!r} ({len(v)} bytes)")
    return problems
