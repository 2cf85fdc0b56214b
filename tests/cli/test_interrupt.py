"""Ctrl-C while searching: a real evmstate process gets SIGINT and still writes its reports."""

import json
import signal
import subprocess
import time
from xml.etree import ElementTree as ET

import pytest

from ..conftest import evmstate_exe
from .helpers import CTRL_C

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
    exe = evmstate_exe()
    env = cli_env
    args = [exe, "run", "machines/a_quick.py", "machines/b_slow.py", "--json", "report.json", "--junit-xml", "report.xml", "--seed", "1"]
    proc = subprocess.Popen(args, cwd=example, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **CTRL_C)
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
