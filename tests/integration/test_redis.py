"""The example database on a real Redis server (started here), shared by processes that replay each other's failures."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


from evmstate import config as config_mod
from evmstate.engine.database import _open_redis, open_database, redis_database
from evmstate.scale.pool import loaded_modules, start_fork_server

from .. import redis_peer
from ..conftest import copy_example


def _project(dest: Path, url: str) -> Path:
    root = copy_example(dest)
    with (root / "evmstate.toml").open("a") as f:
        f.write(f'\n[database]\nurl = "{url}"\n')
    return root


def test_two_processes_sharing_a_redis_server_replay_each_other_s_failure(tmp_path: Path, redis_url: str) -> None:
    a, b = _project(tmp_path / "a", redis_url), _project(tmp_path / "b", redis_url)
    assert config_mod.load(a).database.url == redis_url and config_mod.load(a).examples_dir is None
    depositer, payments = "machines/depositer.py", "machines/payments.py::PaymentsRouted"
    # two processes of their own, forked from the fork server evmstate's worker pools start from (its modules loaded):
    # what they share is the server, not an import of evmstate each
    start_fork_server(loaded_modules())
    ctx = multiprocessing.get_context("forkserver")
    barrier = ctx.Manager().Barrier(2)
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        first = pool.submit(redis_peer.find_then_replay, str(a), depositer, payments, barrier)
        second = pool.submit(redis_peer.find_then_replay, str(b), payments, depositer, barrier)
        (a_found, a_replayed), (b_found, b_replayed) = first.result(timeout=600), second.result(timeout=600)
    # each found its own failure by searching...
    for found in (a_found, b_found):
        assert found["status"] == "failed" and found["replayed"] is False and found["first failure at run"] > 1, found
    # ...and then reported the other's at once, from the shared database, as the other shrank it
    for replayed, other in ((a_replayed, b_found), (b_replayed, a_found)):
        assert replayed["status"] == "failed" and replayed["replayed"] is True and replayed["first failure at run"] == 1, replayed
        assert replayed["program"] == other["program"]
    # nothing was written to either project's folder database
    assert not (a / ".evmstate" / "examples").exists() and not (b / ".evmstate" / "examples").exists()


def test_one_database_per_process_equal_by_server_and_listening_for_real(tmp_path: Path, redis_url: str) -> None:
    cfg = config_mod.load(_project(tmp_path / "p", redis_url))
    db = open_database(cfg)
    assert db is redis_database(redis_url) is open_database(cfg)  # one client per process
    other = _open_redis(redis_url)  # as another process would have it
    assert other == db and hash(other) == hash(db) and other is not db
    heard: list = []
    db.add_listener(heard.append)
    try:
        other.save(b"key", b"value")
        deadline = time.monotonic() + 10
        while not heard and time.monotonic() < deadline:
            time.sleep(0.02)
        assert heard == [("save", (b"key", b"value"))]
        assert list(db.fetch(b"key")) == [b"value"]
    finally:
        db.remove_listener(heard.append)
    assert db._pubsub is None  # the subscription and its thread are gone with the last listener
