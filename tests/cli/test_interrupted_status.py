"""A stop that escapes a command's own handling (a worker's pipe closed by the same Ctrl-C, raised on the way out):
the command still ends as failed where it had reported a failure, which is saved as it was printed; else as 130."""

from __future__ import annotations

import pytest

from evmstate.engine.events import MachineFinished
from evmstate_cli import main as cli_main
from evmstate_cli import signals
from evmstate_cli.render import Handler


def test_a_stop_escaping_a_command_exits_as_failed_once_a_failure_was_reported(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main.cli, "main", interrupted)
    monkeypatch.setitem(signals.reported, "failure", False)
    with pytest.raises(SystemExit) as nothing_found:
        cli_main._main()
    assert nothing_found.value.code == 130
    # a renderer told of a machine that failed: the failure was reported
    Handler()(MachineFinished(name="M", kind="machine", path="machines/m.py", status="passed", examples=1, steps=3, elapsed=0.1))
    assert not signals.reported["failure"]
    Handler()(MachineFinished(name="M", kind="machine", path="machines/m.py", status="failed", examples=1, steps=3, elapsed=0.1))
    assert signals.reported["failure"]
    with pytest.raises(SystemExit) as found:
        cli_main._main()
    assert found.value.code == 1
