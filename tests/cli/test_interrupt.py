"""Ctrl-C while searching: a real evmstate process gets SIGINT and still writes its reports."""

import json
import os
import signal
import subprocess
import sys
import time
from xml.etree import ElementTree as ET

import pytest

from .helpers import CTRL_C, Forked, invoke


@pytest.fixture()
def ctrl_c_raises():
    """Ctrl-C raising KeyboardInterrupt while the test runs, as in a terminal (a background job, as CI may run the tests
    in, starts with it ignored); as it was afterwards."""
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, saved)


def delivered() -> None:
    """Python runs a signal's handler between two bytecodes: let some run."""
    deadline = time.monotonic() + 0.2
    while time.monotonic() < deadline:
        time.sleep(0.001)

QUICK = '''
from evmstate import strategy


class Quick:
    settings = {"max_examples": 3, "stateful_step_count": 3}
    x = strategy("uint8")

    def rule_noop(self, x):
        pass
'''

SLOW = '''
import time
from pathlib import Path

from evmstate import strategy


class Slow:
    settings = {"max_examples": 10_000}
    x = strategy("uint8")

    def rule_wait(self, x):
        Path("searching").touch()
        time.sleep(0.01)
'''


@pytest.mark.processes
def test_ctrl_c_while_searching_writes_the_reports_and_exits_130(example, cli_env: dict[str, str]):
    (example / "machines" / "a_quick.py").write_text(QUICK)
    (example / "machines" / "b_slow.py").write_text(SLOW)
    args = ["run", "machines/a_quick.py", "machines/b_slow.py", "--json", "report.json", "--junit-xml", "report.xml", "--seed", "1"]
    proc = Forked(args, cwd=example, env=cli_env)
    deadline = time.time() + 120
    while not (example / "searching").exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)  # well into the search
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "✓ [1/2] machines/a_quick.py::Quick  examples 3/3" in out
    assert "! [2/2] machines/b_slow.py::Slow  interrupted, examples " in out
    assert "interrupted by Ctrl-C in machines/b_slow.py::Slow at example " in out
    assert "1 of 2 machines and tests finished" in out
    assert "wrote report.xml" in out and "wrote report.json" in out and "Traceback" not in out
    data = json.loads((example / "report.json").read_text())
    assert data["interrupted"] is True and data["exit_code"] == 130 and data["stopped_in"] == "machines/b_slow.py::Slow"
    by_name = {r["name"]: r for r in data["results"]}
    assert by_name["Quick"]["status"] == "passed" and by_name["Quick"]["examples"] == 3
    assert by_name["Slow"]["status"] == "interrupted" and 0 < by_name["Slow"]["examples"] < 10_000
    suite = ET.parse(example / "report.xml").getroot()
    assert suite.get("tests") == "2" and suite.get("skipped") == "1" and suite.get("failures") == "0"
    (slow,) = [case for case in suite if case.tag == "testcase" and case.get("name") == "Slow"]
    assert slow.find("skipped").get("message").startswith("interrupted by Ctrl-C after ")


@pytest.mark.parametrize(
    "target", ["machines/erc20.py", "machines/test_properties.py::test_transfer_moves_exactly_the_amount"]
)
def test_a_ctrl_c_in_hypothesis_s_own_start_is_an_interruption_never_a_failure(example, monkeypatch, target, ctrl_c_raises):
    # A Ctrl-C (or a worker's SIGTERM, SIGHUP) that comes while Hypothesis starts a test, before its engine exists,
    # comes out of Hypothesis as an AssertionError of its own handler: no run failed, so nothing is the contract's
    import hypothesis.core

    real = hypothesis.core.function_digest
    sent = []

    def digest(fn):
        if not sent:
            sent.append(fn)
            os.kill(os.getpid(), signal.SIGINT)
            delivered()
        return real(fn)

    monkeypatch.setattr(hypothesis.core, "function_digest", digest)
    code, out = invoke("run", target, "--seed", "1")
    assert sent, "Hypothesis no longer computes the test's database key at its start: find another way in"
    assert code == 130 and "interrupted by Ctrl-C" in out and "Traceback" not in out, out
    assert "0 failed" in out and not list((example / ".evmstate" / "failures").glob("*.json")), out


def test_an_error_out_of_hypothesis_when_no_run_failed_is_evmstate_s_own_never_a_failure(example, monkeypatch):
    import hypothesis.core

    def digest(fn):
        raise RuntimeError("the database key could not be made")

    monkeypatch.setattr(hypothesis.core, "function_digest", digest)
    code, out = invoke("run", "machines/erc20.py", "--seed", "1")
    assert code == 3 and "internal error in evmstate while running machines/erc20.py::ERC20Machine" in out, out
    assert "the database key could not be made" in out and "0 passed, 0 failed, 1 error" in out, out
    assert not list((example / ".evmstate" / "failures").glob("*.json"))


INTERRUPTED_IMPORT = '''
import os
import signal

from evmstate import strategy


class Noted:
    """A descriptor: Python calls __set_name__ while the class below is made."""

    def __set_name__(self, owner, name):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the machine's module is imported
        deadline = __import__("time").monotonic() + 0.2
        while __import__("time").monotonic() < deadline:
            pass


class Imported:
    noted = Noted()
    x = strategy("uint8")

    def rule_noop(self, x):
        pass
'''


def test_a_ctrl_c_while_a_machine_s_module_is_imported_is_an_interruption_not_a_broken_machine(example, ctrl_c_raises):
    # Python 3.11 wraps the KeyboardInterrupt in a RuntimeError ("Error calling __set_name__"): still Ctrl-C's
    (example / "machines" / "imported.py").write_text(INTERRUPTED_IMPORT)
    code, out = invoke("run", "machines/imported.py", "--seed", "1")
    assert code == 130 and "interrupted" in out, out
    assert "error" not in out.lower() and "Traceback" not in out, out


SHUTDOWN = """
import atexit
import os
import signal
import sys


def last():
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    print("ignored" if all(signal.getsignal(s) == signal.SIG_IGN for s in stops) else "handled", file=sys.stderr)
    os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C once the command has its status


atexit.register(last)  # registered before the command's: runs after its exit handlers
from evmstate_cli.main import main

sys.argv = ["evmstate", "--version"]
main()
"""


def test_once_the_command_has_its_status_a_stop_while_python_shuts_down_leaves_it_as_it_is():
    # Python puts the default of every signal it handles back before it tears its modules down: a Ctrl-C then ended a
    # replay by SIGINT after it had printed "still fails" (exit -2, not 1). An ignored signal stays ignored.
    done = subprocess.run([sys.executable, "-c", SHUTDOWN], capture_output=True, text=True, timeout=120, **CTRL_C)
    assert done.returncode == 0 and "ignored" in done.stderr and "KeyboardInterrupt" not in done.stderr, done
