"""Failing infrastructure is never a verdict: a Redis example database that refuses connections or dies mid-campaign,
a full disk, a read-only project folder.

The database is checked before anything runs (exit 2, naming it); once a run is under way, a store that fails is a
warning and the run goes on without it; a failure found is shown whatever could not be written, and exits 1.
Servers are real (Debian's redis-server, on loopback), and so are the disks: a small tmpfs, a read-only bind mount.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from ..redis_server import answers, free_port
from .helpers import invoke

# a machine whose every run fails at its first step, whatever the seed and whatever else this process loaded
# (the constants of loaded machine modules move what a seed draws)
FAILS = '''
class FailsAtOnce:
    def __init__(cls, accounts, Depositer):
        cls.accounts = accounts
        cls.contract = Depositer.deploy({"from": accounts[0]})

    def rule_deposit(self):
        self.contract.deposit_for(self.accounts[1], {"from": self.accounts[0], "value": 1})

    def invariant(self):
        assert self.contract.deposited(self.accounts[1]) == 0, "the deposit was kept"
'''
FAILS_AT_ONCE = ("machines/fails_at_once.py", "--max-examples", "5", "--steps", "3", "--seed", "1")


def _failing(root: Path) -> Path:
    (root / "machines" / "fails_at_once.py").write_text(FAILS)
    return root


def _database(root: Path, url: str) -> None:
    with (root / "evmstate.toml").open("a") as f:
        f.write(f'\n[database]\nurl = "{url}"\n')


def _records(root: Path) -> list[dict]:
    folder = root / ".evmstate" / "failures"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []


# -- a Redis server that does not answer, or a URL that is not one: exit 2 before anything runs --------


def test_a_redis_database_that_refuses_connections_stops_every_command_before_anything_runs(example):
    _failing(example)
    code, out = invoke("run", *FAILS_AT_ONCE)  # a record for replay and shrink, saved with the folder database
    assert code == 1
    (saved,) = _records(example)
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    _database(example, url)
    said = f"error: the example database at {url} ([database] url in evmstate.toml) does not answer (ConnectionError: "
    for command in (
        ("run", *FAILS_AT_ONCE),
        ("run", "-n", "2", *FAILS_AT_ONCE),
        ("fuzz", "machines/fails_at_once.py", "--time", "10s", "-n", "1", "--stop-on-failure"),
        ("fuzz", "machines/fails_at_once.py", "--time", "10s", "-n", "2", "--stop-on-failure"),
        ("mutate", "machines/fails_at_once.py", "-n", "1", "--max-examples", "5"),
        ("replay", saved["id"]),
        ("shrink", saved["id"]),
    ):
        started = time.monotonic()
        code, out = invoke(*command)
        assert code == 2 and said in out and "Nothing was run. Start the Redis server" in out, (command, out)
        assert "FAILED" not in out and "Falsifying" not in out and "compiled" not in out, (command, out)
        assert time.monotonic() - started < 20, command  # refused at once, not after a search
    assert [r["id"] for r in _records(example)] == [saved["id"]]  # nothing saved for it
    assert not (example / ".evmstate" / "mutants").exists()


@pytest.mark.parametrize(
    "url, problem",
    [
        ("redis://:@/x", "it names no host"),
        ("redis://localhost:port/0", "its port, 'port', is not a number from 0 to 65535"),
        ("redis://localhost:6379/zero", "the database after the host, 'zero', is not a number"),
        ("unix://", "it names no socket file"),
    ],
)
def test_a_database_url_that_is_not_a_redis_url_is_a_settings_error(example, url, problem):
    _database(example, url)
    code, out = invoke("run", *FAILS_AT_ONCE)
    assert code == 2 and f"error: evmstate.toml: [database] url = '{url}' is not a Redis URL: {problem}. Write redis://host:6379/0" in out, out
    assert _records(example) == []


def test_a_password_in_the_database_url_is_never_shown(example):
    port = free_port()
    _database(example, f"redis://:hunter2@127.0.0.1:{port}/0")
    code, out = invoke("run", *FAILS_AT_ONCE)
    assert code == 2 and f"redis://:***@127.0.0.1:{port}/0" in out and "hunter2" not in out, out


# -- a Redis server that dies under a run or a campaign: a warning, once; the real bugs still found ------

KILLER = '''
import os
import signal
import socket
import time


def _refused(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


class AKillsTheServer:
    """Kills the Redis server of the example database (os.environ says which), then passes."""

    def __init__(cls):
        os.kill(int(os.environ["EVMSTATE_TEST_REDIS_PID"]), signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not _refused(int(os.environ["EVMSTATE_TEST_REDIS_PORT"])):
            assert time.monotonic() < deadline, "the Redis server did not die"
            time.sleep(0.02)

    def rule_nothing(self):
        pass
'''

HOLDS = '''
import time
from pathlib import Path

# the project's root: the marker files the test waits for, and writes, are there
ROOT = Path(__file__).resolve().parent.parent


def _hold(name):
    """Tell the test this worker is taken, and wait until it has killed the Redis server."""
    (ROOT / f"held-{name}").touch()
    deadline = time.monotonic() + 120
    while not (ROOT / "killed").exists():
        assert time.monotonic() < deadline, "the test never killed the Redis server"
        time.sleep(0.02)


class HoldA:
    def __init__(cls):
        _hold("a")

    def rule_fail(self):
        assert False, "HoldA fails at once"


class HoldB:
    def __init__(cls):
        _hold("b")

    def rule_fail(self):
        assert False, "HoldB fails at once"
'''

DIED = "warning: the Redis server of the example database, {url}, stopped answering ("


def _meanwhile(ready: Callable[[], bool], act: Callable[[], None]) -> threading.Thread:
    """act() in a thread once ready() holds (two minutes at most): what the test does to a command while it runs here."""

    def watch() -> None:
        deadline = time.monotonic() + 120
        while not ready():
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)
        act()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_a_redis_server_that_dies_under_a_run_is_a_warning_and_the_bugs_after_it_are_still_found(example, redis_server, monkeypatch):
    (_failing(example) / "machines" / "a_killer.py").write_text(KILLER)
    _database(example, redis_server.url)
    monkeypatch.setenv("EVMSTATE_TEST_REDIS_PID", str(redis_server.process.pid))
    monkeypatch.setenv("EVMSTATE_TEST_REDIS_PORT", str(redis_server.port))
    code, out = invoke("run", "machines/a_killer.py", *FAILS_AT_ONCE)
    assert code == 1, out
    assert "✓ [1/2] machines/a_killer.py::AKillsTheServer" in out and "FAILED machines/fails_at_once.py::FailsAtOnce" in out
    assert out.count(DIED.format(url=redis_server.url)) == 1, out
    # told after the report of the machine that met it (the killer's own search), before the next one's
    assert out.index("AKillsTheServer") < out.index("warning: the Redis server") < out.index("FAILED machines/fails_at_once.py"), out
    told = out.index(DIED.format(url=redis_server.url))
    assert "ConnectionError" not in out[:told] + out[out.index("\n", told) :], out  # no machine failed of it
    (record,) = _records(example)
    assert record["name"] == "FailsAtOnce" and record["error"]["type"] == "AssertionError"
    assert "0 passed" not in out and "1 passed, 1 failed" in out


@pytest.mark.processes
def test_a_redis_server_that_dies_mid_campaign_is_a_warning_and_every_machine_is_still_searched(example, redis_server):
    """Both workers are held until the server is killed, so every shard of the two real bugs runs after its death."""
    (_failing(example) / "machines" / "a_hold.py").write_text(HOLDS)
    _database(example, redis_server.url)

    def kill() -> None:
        redis_server.kill()
        assert not answers(redis_server.port)
        (example / "killed").touch()

    watcher = _meanwhile(lambda: (example / "held-a").exists() and (example / "held-b").exists(), kill)
    code, out = invoke("fuzz", "machines/a_hold.py", "machines/depositer.py", "machines/fails_at_once.py", "-n", "2", "--time", "3m", "--steps", "10", "--seed", "3", "--stop-on-failure")
    watcher.join(5)
    assert (example / "killed").exists(), out
    assert code == 1, out
    assert out.count(DIED.format(url=redis_server.url)) == 1, out
    assert "4 failures found" in out and "error" not in out.split("failures found")[1], out
    records = _records(example)
    assert sorted(r["name"] for r in records) == ["FailsAtOnce", "HoldA", "HoldB", "StateMachine"], out
    assert {r["error"]["type"] for r in records} == {"AssertionError"}, [r["error"] for r in records]
    told = out.index(DIED.format(url=redis_server.url))
    rest = out[:told] + out[out.index("\n", told) :]
    assert "ConnectionError" not in rest and "Traceback" not in rest, out


# -- a full disk: the failure shown first, what could not be written a warning, exit 1 ----------------


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a real small disk needs `mount` as root (this test mounts a tmpfs or a read-only bind mount): {done.stderr.strip() or done.returncode}")


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _fill(folder: Path) -> None:
    """Write until the disk is full: from now on no write there gets a byte in."""
    with (folder / "filler").open("wb") as f:
        try:
            while True:
                f.write(b"\0" * (1 << 20))
                f.flush()
        except OSError:
            pass
    probe = folder / "probe"
    with pytest.raises(OSError):
        with probe.open("wb") as f:
            f.write(b"x" * 4096)
            f.flush()
            os.fsync(f.fileno())
    probe.unlink(missing_ok=True)


@pytest.fixture()
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Iterator[Path]:
    """The bundled project (its build cache warm) on a tmpfs of its own, filled: the current folder."""
    from ..conftest import copy_example

    disk = tmp_path / "disk"
    disk.mkdir()
    _mount("-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk))
    try:
        root = _failing(copy_example(disk / "project"))
        _fill(disk)
        monkeypatch.chdir(root)
        yield root
    finally:
        monkeypatch.chdir(tmp_path)
        _unmount(disk)


NO_SPACE_EXAMPLES = "warning: the example database in .evmstate/examples/ could not be used (No space left on device): the run goes on without it"
NO_SPACE_RECORD = re.compile(
    r"warning: the failure record (\w+) could not be written in \.evmstate/failures/ \(No space left on device\): it is not saved, so `evmstate replay` cannot replay it"
    r" \(the program printed with the failure is all that is kept of it\)\. Free space on the disk that holds \.evmstate/failures/\."
)


@pytest.mark.processes
def test_a_failure_found_on_a_full_disk_is_shown_and_what_could_not_be_written_is_a_warning(full_disk):
    code, out = invoke("run", *FAILS_AT_ONCE, "--junit-xml", "report.xml")
    assert code == 1, out
    assert "FAILED machines/fails_at_once.py::FailsAtOnce" in out and "Falsifying example" in out
    assert NO_SPACE_EXAMPLES in out and NO_SPACE_RECORD.search(out), out
    # the program first; then what was not kept, and no replay line for a record that is not there
    assert out.index("Falsifying example") < out.index(NO_SPACE_EXAMPLES) and "replay with" not in out
    assert "Traceback" not in out and _records(full_disk) == []
    # the report asked for: a warning naming it, nothing half written, and the summary line all the same
    assert (
        "warning: the report report.xml could not be written in ./ (No space left on device): the results shown above are all there is of this run. "
        "Free space on the disk that holds ./." in out
    ), out
    assert out.rstrip().endswith("0 passed, 1 failed") and not list(full_disk.glob("*report.xml*"))


@pytest.mark.processes
def test_a_campaign_on_a_full_disk_reports_the_failure_it_found_never_no_failure(full_disk):
    code, out = invoke("fuzz", "machines/fails_at_once.py", "-n", "2", "--time", "2m", "--steps", "3", "--stop-on-failure")
    assert code == 1, out
    assert "1 failure found" in out and "0 failures found" not in out and "no failure" not in out, out
    assert "FAILED machines/fails_at_once.py::FailsAtOnce" in out and "Falsifying example" in out
    assert NO_SPACE_RECORD.search(out) and out.index("Falsifying example") < NO_SPACE_RECORD.search(out).start(), out
    assert "Traceback" not in out and "internal error" not in out and _records(full_disk) == []


# -- a read-only project folder: exit 1 or 0 as the contract behaves, what is not kept a warning ---------


@pytest.fixture()
def read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Iterator[Path]:
    """The bundled project with one saved failure, a build cache short of Token's build and no example database, mounted read-only: the current folder."""
    from ..conftest import copy_example

    source = _failing(copy_example(tmp_path / "source"))
    monkeypatch.chdir(source)
    assert invoke("run", *FAILS_AT_ONCE)[0] == 1
    for stale in (source / ".evmstate" / "build").glob("Token-*.json"):
        stale.unlink()  # compiled again, and its build cannot be kept
    shutil.rmtree(source / ".evmstate" / "examples")  # the failure is searched for again, and its example cannot be kept
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    _mount("--bind", str(source), str(mounted))
    try:
        _mount("-o", "remount,ro,bind", str(mounted))
        monkeypatch.chdir(mounted)
        yield mounted
    finally:
        monkeypatch.chdir(tmp_path)
        _unmount(mounted)


@pytest.mark.processes
def test_a_read_only_project_runs_its_machines_and_says_what_it_could_not_keep(read_only):
    before = sorted(p.name for p in (read_only / ".evmstate" / "failures").iterdir())
    code, out = invoke("run", "machines/erc20.py", *FAILS_AT_ONCE)
    assert code == 1, out
    assert "FAILED machines/fails_at_once.py::FailsAtOnce" in out and "✓ [1/2] machines/erc20.py::ERC20Machine" in out
    assert "warning: the build cache could not be written in .evmstate/build/ (Read-only file system): the contracts are compiled all the same" in out, out
    assert "Make .evmstate/build/ writable (or run from a copy of the project that is)." in out
    assert "warning: the example database in .evmstate/examples/ could not be used (Read-only file system)" in out
    assert re.search(r"warning: the failure record \w+ could not be written in \.evmstate/failures/ \(Read-only file system\)", out), out
    assert "Traceback" not in out and sorted(p.name for p in (read_only / ".evmstate" / "failures").iterdir()) == before
    # a command whose whole point is to write: exit 2, naming the folder
    code, out = invoke("failures", "rm", "--all")
    assert code == 2 and re.search(r"error: the failure record \w+ could not be removed from \.evmstate/failures/ \(Read-only file system\)\. Make \.evmstate/failures/ writable", out), out
    # a forked run keeps what it fetches: said before the node is asked anything (none listens here)
    code, out = invoke("run", *FAILS_AT_ONCE, "--fork-url", f"http://127.0.0.1:{free_port()}")
    assert code == 2 and out.endswith(
        "error: the fork cache could not be written in .evmstate/fork/ (Read-only file system): a forked run keeps there what it fetches from the node, "
        "and revm's fork reads it back from there. Make .evmstate/fork/ writable (or run from a copy of the project that is)."
    ), out
    code, out = invoke("init", "fresh")
    assert code == 2 and out.endswith(
        "error: the new project could not be written in fresh/ (Read-only file system): fresh/evmstate.toml could not be made; nothing was written. "
        "Make fresh/ writable (or give evmstate init a folder that is)."
    ), out
    # shrinking shows the program it has, and keeps the saved record as it was
    code, out = invoke("shrink", "--last")
    assert code == 1 and "Falsifying example" in out and "could not be written in .evmstate/failures/ (Read-only file system)" in out, out
    assert "is as it was" in out and "Traceback" not in out


# -- the pytest plugin: the same check, the same line -----------------------------------------------


@pytest.mark.processes
def test_under_pytest_a_redis_database_that_refuses_connections_errs_every_test_that_needs_it_and_fails_none(pytester):
    from ..conftest import REPO, warm_build
    from ..forked_pytest import runpytest
    from ..seed_machine import SEED_MACHINE

    root = Path(pytester.path)
    shutil.copytree(REPO / "contracts", root / "contracts")
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    shutil.copytree(warm_build(), root / ".evmstate" / "build")
    (root / "machines").mkdir()
    shutil.copy(REPO / "machines" / "depositer.py", root / "machines" / "depositer.py")
    pytester.makepyfile(test_seed=SEED_MACHINE + "\n\ndef test_stateful(Depositer, accounts, state_machine):\n    state_machine(StateMachine, accounts, Depositer)\n")
    url = f"redis://127.0.0.1:{free_port()}/0"
    _database(root, url)
    result = runpytest(pytester, "-p", "no:cacheprovider")  # a pytest process of its own, forked from this one
    result.assert_outcomes(errors=2)  # the machines folder's StateMachine and test_stateful: neither failed
    out = result.stdout.str()
    assert out.count(f"the example database at {url} ([database] url in evmstate.toml) does not answer") >= 2, out
    assert "Falsifying" not in out and _records(root) == []


# -- how a store warning is shown ------------------------------------------------------------------


def test_a_store_warning_is_shown_once_after_the_report_of_the_machine_that_met_it():
    import io

    from rich.console import Console

    from evmstate.engine.events import MachineFinished, MachineStarted, RunFinished, RunSummary, StoreWarning
    from evmstate_cli.render import Renderer

    out = io.StringIO()
    r = Renderer(Console(file=out, width=200, no_color=True), quiet=True)
    r(MachineStarted(name="M", kind="machine", path="m.py"))
    r(StoreWarning("the example database in .evmstate/examples/ could not be used (No space left on device)"))
    r(StoreWarning("the example database in .evmstate/examples/ could not be used (No space left on device)"))
    assert out.getvalue() == "", "held while the machine runs"
    r(MachineFinished(name="M", kind="machine", path="m.py", status="passed", examples=1, steps=1, elapsed=0.1))
    r(StoreWarning("the failure record 1234 could not be written in .evmstate/failures/"))  # nothing runs: at once
    r(StoreWarning("the example database in .evmstate/examples/ could not be used (No space left on device)"))
    r(RunFinished(RunSummary(results=[])))
    assert out.getvalue() == (
        "warning: the example database in .evmstate/examples/ could not be used (No space left on device)\n"
        "warning: the failure record 1234 could not be written in .evmstate/failures/\n"
        "0 passed, 0 failed\n"
    )


# -- a worker process that something outside kills ----------------------------------------------------

WAITS = '''
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class WaitsToBeKilled:
    def rule_wait(self):
        (ROOT / "worker.pid.tmp").write_text(str(os.getpid()))
        (ROOT / "worker.pid.tmp").replace(ROOT / "worker.pid")  # whole when the test sees it
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            time.sleep(0.05)
'''


@pytest.mark.processes
def test_a_worker_killed_from_outside_is_an_error_naming_it_not_an_internal_error(example):
    """What the kernel's out-of-memory killer does to a worker: SIGKILL. Not the machine's doing, nor evmstate's: exit 2."""
    (example / "machines" / "waits.py").write_text(WAITS)
    pid_file = example / "worker.pid"
    _meanwhile(pid_file.exists, lambda: os.kill(int(pid_file.read_text()), signal.SIGKILL))
    code, out = invoke("run", "machines/waits.py", "-n", "2")
    pid = int(pid_file.read_text())
    assert code == 2, out
    assert re.search(
        rf"^error: worker process \d \(pid {pid}\) was killed by SIGKILL while running machines/waits.py::WaitsToBeKilled: something outside evmstate ended it", out, re.M
    ), out
    assert "Traceback" not in out and "internal error" not in out
