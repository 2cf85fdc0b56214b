"""Ctrl-C held while a record is written, SIGTERM and SIGHUP taken as Ctrl-C, and children that end with their parent.

The signals are sent to this process (os.kill), whose handlers each test puts back as they were.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from evmstate import files
from evmstate.config.sections import Environment
from evmstate.failures import FailureRecord, FailureStore
from evmstate.scale import lifeline, pool
from evmstate.scale.interrupts import sigint_count
from evmstate.engine.program import OutOfTime
from evmstate.errors import from_ctrl_c
from evmstate.hooks import ctrl_c_held, ctrl_c_noted
from evmstate_cli import signals as cli_signals

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and parent-death signals are Linux's")


@pytest.fixture(autouse=True)
def handlers(monkeypatch):
    """Ctrl-C raising KeyboardInterrupt and SIGTERM, SIGHUP at their defaults while the test runs; as they were afterwards."""
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    saved = {signum: signal.getsignal(signum) for signum in stops}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    monkeypatch.setattr(cli_signals, "_received", [])
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def delivered() -> None:
    """Python runs a signal's handler between two bytecodes: let some run, for a fifth of a second (a signal sent again comes after 50 ms)."""
    deadline = time.monotonic() + 0.2
    while time.monotonic() < deadline:
        time.sleep(0.001)


def test_ctrl_c_while_held_acts_on_the_way_out():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_held():
            os.kill(os.getpid(), signal.SIGINT)
            delivered()
            done.append("the write finished")
    assert done == ["the write finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_each_ctrl_c_held_reaches_the_handler_in_force_a_second_one_too():
    with sigint_count() as count:
        with ctrl_c_held():
            os.kill(os.getpid(), signal.SIGINT)
            delivered()
            assert count == [0]
        assert count == [1]  # a first Ctrl-C only counts
        with pytest.raises(KeyboardInterrupt):  # the second gives up at once, after the held block
            with ctrl_c_held():
                os.kill(os.getpid(), signal.SIGINT)
                delivered()
        assert count == [2]


def test_without_a_signal_nothing_happens_and_the_handler_is_put_back():
    with ctrl_c_held():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_noted_is_still_handled_as_before_and_an_ignored_one_is_neither():
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_noted() as noted:
            os.kill(os.getpid(), signal.SIGINT)
            delivered()
    assert noted == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with ctrl_c_noted() as noted:
        os.kill(os.getpid(), signal.SIGINT)
        delivered()
    assert noted == [] and signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_a_sigterm_the_cli_hands_to_ctrl_c_is_noted_too():
    cli_signals.as_ctrl_c()
    with sigint_count() as count, ctrl_c_noted() as noted:
        os.kill(os.getpid(), signal.SIGTERM)
        delivered()
    assert noted == [signal.SIGTERM] and count == [1]


def test_a_record_written_when_ctrl_c_comes_is_written_whole_and_ctrl_c_then_acts(tmp_path, monkeypatch):
    real_fsync = os.fsync

    def fsync_interrupted(fd: int) -> None:  # Ctrl-C in the middle of the write
        os.kill(os.getpid(), signal.SIGINT)
        delivered()
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", fsync_interrupted)  # records are written by files.write_atomic
    store = FailureStore(tmp_path / "failures")
    record = FailureRecord(
        id="abc123", kind="machine", path="machines/m.py", name="M", error={"type": "AssertionError", "message": "boom"},
        steps=[{"rule": "rule_x", "arguments": {}, "results": []}], program=["state = M()", "state.rule_x()"],
    )
    with pytest.raises(KeyboardInterrupt):
        store.save(record)
    assert store.ids() == ["abc123"] and store.load("abc123").program == record.program
    assert not list((tmp_path / "failures").glob(".*.tmp"))


def test_sigterm_and_sighup_do_what_ctrl_c_does_when_they_come():
    cli_signals.as_ctrl_c()
    with sigint_count() as count:  # as while workers run: a first one counts
        os.kill(os.getpid(), signal.SIGTERM)
        delivered()
        assert count == [1]
        assert cli_signals.stopped_by() == "SIGTERM"
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGHUP)
            delivered()
    with pytest.raises(KeyboardInterrupt):  # elsewhere, KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGHUP)
        delivered()
    assert cli_signals.stopped_by() == "SIGTERM"  # the first one stopped it


def test_a_sigterm_stops_a_process_started_with_ctrl_c_ignored_and_nohup_s_sighup_stays_ignored():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job's
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup's
    cli_signals.as_ctrl_c()
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        delivered()
    assert cli_signals.stopped_by() == "SIGTERM"


class Dropped:
    """An object whose __del__ raises KeyboardInterrupt, as a Ctrl-C that comes while Python collects garbage: Python can only hand it to sys.unraisablehook."""

    def __del__(self) -> None:
        raise KeyboardInterrupt


def test_a_ctrl_c_python_could_not_raise_comes_again_where_it_can(monkeypatch):
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    cli_signals.as_ctrl_c()
    with pytest.raises(KeyboardInterrupt):
        Dropped()
        delivered()


def test_in_a_worker_a_ctrl_c_python_could_not_raise_stops_the_task_all_the_same(monkeypatch):
    interrupts = pool._Interrupts()
    signal.signal(signal.SIGINT, interrupts.handler)
    monkeypatch.setattr(sys, "unraisablehook", functools.partial(interrupts.unraisable, previous=sys.unraisablehook))
    with interrupts.arm():
        with pytest.raises(KeyboardInterrupt):
            interrupts.fired = True  # as the handler leaves it, having raised in __del__
            Dropped()
            delivered()
    Dropped()  # idle: nothing to stop
    delivered()


def test_in_a_worker_a_ctrl_c_between_tasks_stops_the_next_task_as_it_begins_and_only_that_one():
    # the parent counts a task as running once sent: its stop may come before the worker took the task up
    interrupts = pool._Interrupts()
    signal.signal(signal.SIGINT, interrupts.handler)
    ran = []
    os.kill(os.getpid(), signal.SIGINT)
    delivered()  # idle: nothing raised
    with pytest.raises(KeyboardInterrupt):
        with interrupts.arm():
            ran.append("stopped")
    with interrupts.arm():
        ran.append("the next")
    assert ran == ["the next"]


class _Loads:
    """A project source that loads nothing: workers started by spawn (which brings them this module), for the pool's
    own handling of a task."""

    config = SimpleNamespace(environment=Environment(start_method="spawn"))

    def open(self) -> None:
        return None


@dataclass(frozen=True)
class _Sleeps:
    key: str = "sleeps"

    def run(self, state: None, emit: object) -> str:
        time.sleep(60)
        return "slept"


@pytest.mark.processes
def test_a_ctrl_c_that_reaches_a_worker_before_it_takes_up_the_task_sent_stops_that_task():
    workers = pool.Pool(_Loads(), 1)
    try:
        deadline = time.monotonic() + 120
        while not workers.idle() and time.monotonic() < deadline:
            assert all(m.kind == "ready" for m, _ in workers.receive(0.2))
        assert workers.idle() == [0]
        workers.interrupt([0])  # the stop, sent with the task but come first
        time.sleep(0.5)
        workers.send(0, _Sleeps())
        said: list[str] = []
        deadline = time.monotonic() + 30
        while not said and time.monotonic() < deadline:
            said = [m.kind for m, _ in workers.receive(0.2)]
        assert said == ["interrupted"]
    finally:
        workers.close(0.0)


def test_before_any_signal_the_messages_say_ctrl_c():
    assert cli_signals.stopped_by() == "Ctrl-C"


def raised_from(inner: BaseException, outer: Exception, *, cause: bool) -> Exception:
    """outer, raised while inner was on its way out (cause: `raise outer from inner`; else raised in its handler)."""
    try:
        try:
            raise inner
        except BaseException as exc:
            if cause:
                raise outer from exc
            raise outer  # noqa: B904 (raised in the handler, as Hypothesis's assert is: the context, not the cause)
    except Exception as caught:
        return caught


def test_an_error_raised_on_the_way_out_of_a_ctrl_c_is_told_apart_from_others():
    # Python 3.11 wraps what a descriptor's __set_name__ raises (a Ctrl-C while a class is made) in a RuntimeError;
    # Hypothesis's handler asserts its engine exists when a Ctrl-C comes before it does
    assert from_ctrl_c(raised_from(KeyboardInterrupt(), RuntimeError("Error calling __set_name__"), cause=True))
    assert from_ctrl_c(raised_from(KeyboardInterrupt(), AssertionError(), cause=False))
    deeper = raised_from(KeyboardInterrupt(), ValueError("first"), cause=False)
    assert from_ctrl_c(raised_from(deeper, TypeError("second"), cause=True))
    # an error of its own, evmstate's signals of its own (OutOfTime is a KeyboardInterrupt) and a plain chain are not
    assert not from_ctrl_c(RuntimeError("alone"))
    assert not from_ctrl_c(raised_from(ValueError("first"), AssertionError(), cause=False))
    assert not from_ctrl_c(raised_from(OutOfTime(), AssertionError(), cause=False))
    try:  # a KeyboardInterrupt set aside on purpose (evmstate wraps one a machine raised `from None`)
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("wrapped") from None
    except RuntimeError as wrapped:
        assert not from_ctrl_c(wrapped)
    looped = RuntimeError("a chain that loops")
    looped.__context__ = ValueError("back")
    looped.__context__.__context__ = looped
    assert not from_ctrl_c(looped)


def test_an_error_the_cli_meets_on_the_way_out_of_a_ctrl_c_exits_130_as_interrupted(monkeypatch, capsys):
    from evmstate_cli import main as cli_main

    class Stopped:
        @staticmethod
        def main(standalone_mode: bool) -> None:  # the click group, stopped by a Ctrl-C while a module was imported
            raise raised_from(KeyboardInterrupt(), RuntimeError("Error calling __set_name__"), cause=True)

    monkeypatch.setattr(cli_main, "cli", Stopped)
    with pytest.raises(SystemExit) as ended:
        cli_main.main()
    err = capsys.readouterr().err
    assert ended.value.code == 130 and "interrupted by Ctrl-C" in err and "Traceback" not in err, err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, None])
def test_an_error_that_lost_the_ctrl_c_it_came_from_is_still_the_interruption_s_and_without_one_an_internal_error(
    monkeypatch, capsys, stop
):
    # C code importing a module (regex, under eth_abi) met a Ctrl-C and raised a TypeError of its own, with no
    # KeyboardInterrupt left in its chain
    from evmstate_cli import main as cli_main

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # as_ctrl_c wraps it: put back after the test

    class Lost:
        @staticmethod
        def main(standalone_mode: bool) -> None:
            if stop is not None:
                try:
                    os.kill(os.getpid(), stop)
                    delivered()
                except KeyboardInterrupt:
                    pass
            raise TypeError("expected a message argument")

    monkeypatch.setattr(cli_main, "cli", Lost)
    with pytest.raises(SystemExit) as ended:
        cli_main.main()
    err = capsys.readouterr().err
    if stop is None:
        assert ended.value.code == 3 and "internal error" in err and "TypeError: expected a message" in err, err
    else:
        name = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}[stop]
        assert ended.value.code == 130 and f"interrupted by {name}" in err and "Traceback" not in err, err


def alive(pid: int) -> bool:
    """Whether pid runs: not gone, not a zombie (which has ended, its status not yet collected)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def ends_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


@linux
@pytest.mark.processes
def test_a_forked_child_tied_to_its_parent_is_killed_when_the_parent_ends():
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:  # the parent of the child under test: it forks it, waits until it is tied, and ends
        try:
            os.close(r)
            me = os.getpid()
            tied_r, tied_w = os.pipe()
            child = os.fork()
            if child == 0:
                os.write(tied_w, b"y" if lifeline.die_with_parent(me) else b"n")
                time.sleep(60)
                os._exit(0)
            tied = os.read(tied_r, 1)
            os.write(w, f"{child} {tied.decode()}".encode())
        finally:
            os._exit(0)
    os.close(w)
    child, tied = os.read(r, 64).decode().split()
    os.close(r)
    os.waitpid(middle, 0)
    assert tied == "y"
    assert ends_within(int(child), 2.0), "the child outlived its parent"


def _watched(conn) -> None:
    lifeline.watch_parent()
    conn.send(os.getpid())
    time.sleep(60)


@linux
@pytest.mark.processes
def test_a_worker_watching_its_parent_ends_when_the_parent_is_killed():
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:  # starts a worker as the pool does (here by fork), then dies by SIGKILL
        try:
            os.close(r)
            ours, theirs = multiprocessing.Pipe()
            worker = multiprocessing.get_context("fork").Process(target=_watched, args=(theirs,), daemon=True)
            worker.start()
            os.write(w, str(ours.recv()).encode())
            os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(1)
    os.close(w)
    worker_pid = int(os.read(r, 64))
    os.close(r)
    os.waitpid(middle, 0)
    assert ends_within(worker_pid, 2.0), "the worker outlived the process that started it"


def test_only_the_main_process_has_no_parent_to_watch():
    assert lifeline.watch_parent() is False


def test_the_fork_server_s_tie_reads_the_pid_where_both_starters_write_it():
    # the CLI's early start names the variable without importing evmstate; the pool and the tie take it from lifeline
    from evmstate.scale import lifeline, pool
    from evmstate_cli import launch

    assert launch.TIED_TO == lifeline.TIED_TO == pool.TIED_TO
    assert launch.PRELOAD[0] == pool.TIE == "evmstate.scale.forkserver_tie"
