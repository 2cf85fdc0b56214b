"""The failure store and the example database with many processes writing at once: nothing lost, torn or doubled."""

from __future__ import annotations

import hashlib
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from evmstate.engine.database import SharedDirectoryDatabase
from evmstate.failures import FailureStore

from .. import concurrent_writers as cw

pytestmark = pytest.mark.processes

WRITERS = 6


def test_many_processes_write_the_failure_store_and_the_example_database_at_once(tmp_path: Path) -> None:
    failures, examples = tmp_path / "failures", tmp_path / "examples"
    # forked where the platform forks safely (Linux): each writer is a process of its own all the same, and starts with
    # evmstate imported instead of importing it (about a second of CPU each)
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    barrier = ctx.Manager().Barrier(WRITERS)
    with ProcessPoolExecutor(WRITERS, mp_context=ctx) as pool:
        futures = [pool.submit(cw.write, w, str(failures), str(examples), barrier) for w in range(WRITERS)]
        problems = [p for f in futures for p in f.result(timeout=300)]
    assert problems == []

    # failure records: each kept one there once, each removed one gone, every file whole
    store = FailureStore(failures)
    expected = {cw.own_id(w, i) for w in range(WRITERS) for i in range(cw.RECORDS) if cw.kept(i)}
    expected |= {cw.shared_id(i) for i in range(cw.SHARED)}
    ids = store.ids()
    assert len(ids) == len(set(ids))
    assert set(ids) == expected
    for rid in ids:
        rec = store.load(rid)
        assert rec.id == rid and rec.steps[0]["arguments"]["pad"] == "x" * cw.PAD
        if rid.startswith("shared-"):
            assert rec.error["message"] in {f"written by {w}" for w in range(WRITERS)}
    assert sorted(p.name for p in failures.iterdir() if not p.name.endswith(".json")) == []

    # example database: every kept value under its key (or moved), none removed, no half-written file
    db = SharedDirectoryDatabase(examples)
    for k in range(cw.KEYS):
        want = {cw.value(w, i) for w in range(WRITERS) for i in range(cw.VALUES) if cw.kept(i) and not cw.moved(i) and cw.key(i) == cw.key(k)}
        got = list(db.fetch(cw.key(k)))
        assert len(got) == len(set(got)) and set(got) == want
    assert set(db.fetch(b"moved")) == {cw.value(w, i) for w in range(WRITERS) for i in range(cw.VALUES) if cw.kept(i) and cw.moved(i)}
    rounds = max(cw.RECORDS, cw.VALUES)
    for i in range(rounds):
        want = {cw.small(w, i * cw.CHURN + j) for w in range(WRITERS) for j in range(cw.CHURN)}
        assert set(db.fetch(cw.churn(i))) == want, f"churn-{i} lost {len(want - set(db.fetch(cw.churn(i))))} values"
    for f in examples.rglob("*"):
        assert not f.name.startswith(".tmp"), f"left behind: {f}"
        if f.is_file():
            assert hashlib.sha384(f.read_bytes()).hexdigest()[:16] == f.name, f"{f} does not hold the value its name says"


def test_the_folder_layout_is_hypothesis_s_own(tmp_path: Path) -> None:
    """A folder written by Hypothesis's DirectoryBasedExampleDatabase reads the same here, and back."""
    from hypothesis.database import DirectoryBasedExampleDatabase

    theirs = DirectoryBasedExampleDatabase(tmp_path)
    ours = SharedDirectoryDatabase(tmp_path)
    theirs.save(b"k", b"one")
    ours.save(b"k", b"two")
    ours.move(b"k", b"j", b"one")
    assert sorted(theirs.fetch(b"k")) == sorted(ours.fetch(b"k")) == [b"two"]
    assert list(theirs.fetch(b"j")) == [b"one"]
    assert sorted(theirs.fetch(b".hypothesis-keys")) == sorted(ours.fetch(b".hypothesis-keys")) == [b"j", b"k"]
    ours.delete(b"j", b"one")
    assert list(theirs.fetch(b"j")) == [] and not (tmp_path / hashlib.sha384(b"j").hexdigest()[:16]).exists()


def test_a_record_removed_while_it_is_read_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # another process (a campaign replacing a record with a shorter program, `evmstate failures rm`)
    # removes it between finding its file and reading it
    from evmstate.errors import FailureRecordError

    store = FailureStore(tmp_path / "failures")
    store.save(cw.record(0, "abc123"))  # type: ignore[arg-type]
    found = store.resolve

    def found_then_removed(text: str) -> str:
        record_id = found(text)
        store.path_of(record_id).unlink()
        return record_id

    monkeypatch.setattr(store, "resolve", found_then_removed)
    with pytest.raises(FailureRecordError, match="no saved failure 'abc123' .* any more: it was removed while it was read"):
        store.load("abc")
