"""A campaign retires a machine's other shards once one of them failed: by a signal that stops their search at its next run."""
import os
import signal

import pytest

from evmstate.scale import pool


@pytest.mark.skipif(pool.RETIRE_SIGNAL is None, reason="the platform has no SIGUSR1: retiring sends SIGINT there")
def test_the_retire_signal_stops_the_search_at_its_next_run_never_raising_inside_it(monkeypatch):
    interrupts = pool._Interrupts()
    monkeypatch.setattr(pool, "_worker_interrupts", interrupts)
    previous = signal.signal(pool.RETIRE_SIGNAL, interrupts.retire)
    try:
        os.kill(os.getpid(), pool.RETIRE_SIGNAL)  # idle: nothing to retire
        assert not pool.retired()
        with interrupts.arm():
            assert not pool.retired()
            os.kill(os.getpid(), pool.RETIRE_SIGNAL)  # raises nothing: the handler only marks it
            assert pool.retired()
        with interrupts.arm():  # the next task starts searching again
            assert not pool.retired()
    finally:
        signal.signal(pool.RETIRE_SIGNAL, previous)

