"""The example database, the guidance corpus and the failure records when what holds them fails.

A store's error is never the machine's: the first is told once, and the process goes on without the
store. Failures of real folders (a file where a folder must be, a path nothing can be written under)
and of a Redis client that finds no server; the fake database stands for any store, to show the layer
above it calls nothing once the store has failed.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from hypothesis.database import ExampleDatabase

from evmstate import config as config_mod
from evmstate.engine.database import (
    Fallible,
    ShrunkExamples,
    SharedDirectoryDatabase,
    check_database,
    corpus_store,
    open_database,
    shown_url,
    url_problem,
)
from evmstate.errors import ConfigError, ResourceError, remedy
from evmstate.failures import FailureRecord, FailureStore

from ..redis_server import free_port


class Broken(ExampleDatabase):
    """A database every call of which fails as a dead server's does; counts the calls."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def _fail(self, *args: object) -> None:
        self.calls += 1
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def fetch(self, key: bytes):  # type: ignore[override]
        self._fail()
        yield b""

    save = delete = move = _fail  # type: ignore[assignment]


def _project(tmp_path: Path, database: str | None = None) -> config_mod.Config:
    (tmp_path / "evmstate.toml").write_text(f'[database]\nurl = "{database}"\n' if database else "")
    return config_mod.load(tmp_path)


def test_a_database_that_fails_is_told_once_and_then_left_alone(tmp_path):
    check_database(_project(tmp_path))  # a new command: nothing has failed yet
    told: list[str] = []
    guard = Fallible("the-store", lambda exc: f"the store failed: {exc}", told.append)
    inner = Broken()
    examples = ShrunkExamples(inner, b"M", guard)
    assert list(examples.fetch(b"key")) == []  # nothing replayed, nothing raised
    examples.outcome = ("AssertionError",)
    examples.save(b"key", b"value")
    examples.commit(("AssertionError",))
    examples.delete(b"key", b"value")
    examples.move(b"key", b"other", b"value")
    assert told == ["the store failed: Error 111 connecting to 127.0.0.1:6379. Connection refused."]
    assert inner.calls == 1, "once it failed, the store is not asked again"
    # another machine of the same run: nothing asked, nothing told
    again = ShrunkExamples(inner, b"N", Fallible("the-store", lambda exc: "again", told.append))
    assert list(again.fetch(b"key")) == [] and inner.calls == 1 and len(told) == 1
    # the next command starts afresh
    check_database(_project(tmp_path))
    assert list(ShrunkExamples(inner, b"N", guard).fetch(b"key")) == [] and inner.calls == 2 and len(told) == 2


def test_a_folder_database_that_cannot_be_written_is_a_warning_naming_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".evmstate").write_text("a file where the state folder should be")
    cfg = _project(tmp_path)
    check_database(cfg)
    told: list[str] = []
    examples = ShrunkExamples(open_database(cfg), b"M", Fallible.examples(cfg, told.append))
    assert list(examples.fetch(b"k")) == []  # reading a folder that is not there is no error
    examples.outcome = "x"
    examples.save(b"k", b"v")
    examples.commit("x")
    assert told == [
        "the example database in .evmstate/examples/ could not be used (Not a directory): the run goes on without it, so the next run "
        "does not start from the examples of this one. Check that .evmstate/examples/ can be written."
    ]


def test_a_corpus_store_that_fails_is_told_once_and_raised_to_the_corpus_which_searches_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".evmstate").mkdir()
    (tmp_path / ".evmstate" / "corpus").write_text("not a folder")
    cfg = _project(tmp_path)
    check_database(cfg)
    told: list[str] = []
    store = corpus_store(cfg, told.append)
    with pytest.raises(OSError):
        store.save(b"M", b"run")
    with pytest.raises(ResourceError, match=r"^\.evmstate/corpus/ failed earlier in this run, and is left alone$"):
        store.save(b"M", b"run")
    assert len(told) == 1 and told[0].startswith("the guidance corpus in .evmstate/corpus/ could not be used (Not a directory): the campaign goes on without it")


def test_a_redis_database_that_refuses_connections_is_told_once_for_the_examples_and_the_corpus(tmp_path):
    url = f"redis://127.0.0.1:{free_port()}/0"
    cfg = _project(tmp_path, url)
    with pytest.raises(ResourceError) as caught:
        check_database(cfg)
    assert caught.value.where == url
    told: list[str] = []
    examples = ShrunkExamples(open_database(cfg), b"M", Fallible.examples(cfg, told.append))
    assert list(examples.fetch(b"k")) == []
    with pytest.raises(ResourceError):
        corpus_store(cfg, told.append).fetch(b"M")  # the same server: left alone, told no more
    assert len(told) == 1 and told[0].startswith(f"the Redis server of the example database, {url}, stopped answering (ConnectionError: ")


@pytest.mark.parametrize(
    "url, problem",
    [
        ("redis://localhost:6379/0", None),
        ("rediss://user:secret@cache.internal:6380/3", None),
        ("redis://localhost", None),
        ("unix:///run/redis.sock", None),
        ("redis://:@/x", "it names no host"),
        ("redis://", "it names no host"),
        ("redis://localhost:99999/0", "its port, '99999', is not a number from 0 to 65535"),
        ("redis://localhost/db0", "the database after the host, 'db0', is not a number"),
        ("unix://", "it names no socket file"),
    ],
)
def test_what_makes_a_redis_url(url, problem):
    assert url_problem(url) == problem


def test_a_malformed_url_is_a_settings_error_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^evmstate\.toml: \[database\] url = 'redis://:@/x' is not a Redis URL: it names no host\. Write redis://host:6379/0"):
        check_database(_project(tmp_path, "redis://:@/x"))


def test_a_url_shows_no_password():
    assert shown_url("redis://:hunter2@host:6379/0") == "redis://:***@host:6379/0"
    assert shown_url("rediss://me:hunter2@host/1") == "rediss://me:***@host/1"
    assert shown_url("redis://host:6379/0") == "redis://host:6379/0"


def _record(rid: str = "abc123") -> FailureRecord:
    return FailureRecord(id=rid, kind="machine", path="machines/m.py", name="M", error={"type": "AssertionError"}, steps=[], program=["state = M()"])


def test_a_failure_record_that_cannot_be_written_is_a_resource_error_and_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "state").write_text("a file where the folder should be")
    store = FailureStore(tmp_path / "state" / "failures")
    with pytest.raises(ResourceError) as caught:
        store.save(_record())
    assert str(caught.value) == (
        "the failure record abc123 could not be written in state/failures/ (Not a directory): it is not saved, so `evmstate replay` cannot replay it "
        "(the program printed with the failure is all that is kept of it). Check that state/failures/ can be written."
    )
    assert caught.value.where == "state/failures/"
    store = FailureStore(tmp_path / "failures")
    store.save(_record())
    assert [p.name for p in (tmp_path / "failures").iterdir()] == ["abc123.json"]


def test_what_to_do_follows_from_why_the_folder_could_not_be_written():
    assert remedy(OSError(errno.ENOSPC, "No space left on device"), "x/") == "Free space on the disk that holds x/."
    assert remedy(OSError(errno.EROFS, "Read-only file system"), "x/") == "Make x/ writable (or run from a copy of the project that is)."
    assert remedy(OSError(errno.EACCES, "Permission denied"), "x/") == "Make x/ writable (or run from a copy of the project that is)."
    assert remedy(OSError(errno.EIO, "Input/output error"), "x/") == "Check that x/ can be written."


def test_the_folder_database_is_unchanged_where_it_can_be_written(tmp_path):
    cfg = _project(tmp_path)
    assert open_database(cfg) == SharedDirectoryDatabase(tmp_path / ".evmstate" / "examples")


def test_mutate_goes_on_without_keeping_what_it_found_where_its_folder_cannot_be_written(tmp_path, monkeypatch):
    from evmstate.mutate.cache import MutationCache

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".evmstate").write_text("a file where the state folder should be")
    told: list[str] = []
    cache = MutationCache(tmp_path / ".evmstate" / "mutants", told.append)
    cache.put("verdict", "k1", {"kill": None})
    cache.put("verdict", "k2", {"kill": None})
    assert cache.get("verdict", "k1") is None and cache.failed and cache.prune() == 0
    assert told == [
        "what evmstate mutate found could not be written in .evmstate/mutants/ (Not a directory): the run goes on, and the next one "
        "judges every mutant again. Check that .evmstate/mutants/ can be written."
    ]
    kept = MutationCache(tmp_path / "mutants", told.append)
    kept.put("verdict", "k1", {"kill": None})
    assert kept.get("verdict", "k1") == {"kill": None} and len(told) == 1
