"""`python -m pytest ARGS` run in the current folder as a new process runs it, but in a child forked from the test process.

A new Python spends about 5 s of CPU importing evmstate, vyper and Hypothesis before it runs a
test; the forked child starts with them imported. It is made to look like a new process where
that matters: the current folder first on sys.path (as `python -m` puts it), Hypothesis's default
settings (not the suite's derandomized profile), stdin closed, its own stdout and stderr, and
without pytest's warning that the modules of the plugins it loads are imported already and cannot be
rewritten (a new process imports them after pytest has hooked imports; the test process did, with no
assert rewriting of evmstate's and Hypothesis's modules: pyproject.toml's addopts). Nothing
it imports or registers comes back to the test process (pytest's in-process runs restore
sys.modules afterwards, which drops vyper's lazily imported modules and breaks the next compile).
Where the platform cannot fork, the command runs as a new process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import hypothesis
import pytest

REPO = Path(__file__).resolve().parent.parent


def run_pytest(args: list[str], *, timeout: int = 300) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `python -m pytest args` in the current folder (killed after timeout seconds)."""
    if not hasattr(os, "fork"):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), str(REPO)])}
        ran = subprocess.run([sys.executable, "-m", "pytest", *args], capture_output=True, text=True, env=env, timeout=timeout)
        return ran.returncode, ran.stdout, ran.stderr
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child: it never returns into the test
            code = 3
            try:
                signal.alarm(timeout)  # SIGALRM's default action ends the child
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.path.insert(0, os.getcwd())
                hypothesis.settings.load_profile("default")
                code = int(pytest.main(["-W", "ignore::pytest.PytestAssertRewriteWarning", *args]))
            except BaseException:
                traceback.print_exc()
            finally:
                with contextlib.suppress(BaseException):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
            pytest.fail(f"pytest {' '.join(args)} did not end in {timeout} s")
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode()


def runpytest(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """What pytester.runpytest_subprocess(*args) returns, the run made by run_pytest() in pytester's folder."""
    basetemp = tempfile.mkdtemp(prefix="runpytest-", dir=pytester.path)
    started = time.monotonic()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        code, out, err = run_pytest([f"--basetemp={basetemp}", *args])
    with contextlib.suppress(ValueError):
        code = pytest.ExitCode(code)
    return pytest.RunResult(code, out.splitlines(), err.splitlines(), time.monotonic() - started)
