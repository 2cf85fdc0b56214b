"""tests/zygote.py: a command forked from the zygote runs as a new process runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .. import zygote
from ..conftest import evmstate_exe

pytestmark = pytest.mark.processes

# what a process sees of itself, and the loaded modules whose literals Hypothesis draws from (its local constants)
SELF = """
import json, os, sys
from hypothesis.internal.conjecture import providers
import evmstate.runner  # as the seeded searches do
local = sorted(m.__name__ for m in list(sys.modules.values()) if getattr(m, "__file__", None) and providers.is_local_module_file(m.__file__))
print(json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "name": __name__, "env": os.environ.get("ZYGOTE_TEST"), "stdin": sys.stdin.read(),
                  "local": local, "sigint": str(__import__("signal").getsignal(2))}))
sys.exit(int(sys.argv[1]))
"""


def test_a_child_sees_its_arguments_folder_environment_and_input_and_the_local_modules_of_a_new_process(tmp_path: Path):
    command = [sys.executable, "-c", SELF, "7", "x y"]
    env = {**os.environ, "ZYGOTE_TEST": "here"}
    forked = zygote.run(command, cwd=tmp_path, env=env, input="some input", timeout=120)
    new = subprocess.run(command, cwd=tmp_path, env=env, input="some input", capture_output=True, text=True, timeout=120)
    assert (forked.returncode, new.returncode) == (7, 7), forked.stderr + new.stderr
    seen = json.loads(forked.stdout)
    assert seen == json.loads(new.stdout)
    assert seen["argv"] == ["-c", "7", "x y"] and seen["cwd"] == str(tmp_path) and seen["env"] == "here" and seen["stdin"] == "some input"
    assert not any(name.startswith("tests") for name in seen["local"]), seen["local"]


def test_the_console_script_answers_as_the_installed_command_does(tmp_path: Path):
    for args in (["--version"], ["run", "--no-such-option"]):
        forked = zygote.run([evmstate_exe(), *args], cwd=tmp_path, timeout=120)
        new = subprocess.run([evmstate_exe(), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert (forked.returncode, forked.stdout, forked.stderr) == (new.returncode, new.stdout, new.stderr), args


def test_an_error_a_signal_and_a_timeout_end_a_child_as_they_end_a_process(tmp_path: Path):
    raised = zygote.run([sys.executable, "-c", "raise ValueError('no')"], cwd=tmp_path)
    assert raised.returncode == 1 and raised.stderr.strip().endswith("ValueError: no"), raised.stderr
    killed = zygote.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"], cwd=tmp_path)
    assert killed.returncode == -signal.SIGTERM
    with pytest.raises(subprocess.TimeoutExpired):
        zygote.run([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path, timeout=1)
    # another program is not forked: it runs as a process
    assert zygote.run(["sh", "-c", "echo $0"], cwd=tmp_path).stdout == "sh\n"
