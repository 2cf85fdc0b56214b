"""`evmstate ARGS` and `python -c CODE ARGS` run as new processes run them, but forked from a zygote that has imported evmstate.

A new Python spends about 2 s of CPU importing evmstate, vyper, py-evm, pyrevm and Hypothesis before
it runs a command; a test that runs a command in a process of its own, because what a pinned seed draws
depends on what else the process has loaded (Hypothesis draws from the constants of the local modules
loaded: a machine another test ran in this process), pays it each time. The zygote is a Python started
once per test process (per environment that Python reads at start) that imports them and nothing of
the tests, then forks one child per command: the child sets the command's folder, environment,
arguments and standard streams, and runs the console script's file (as `python bin/evmstate` does: its
module is __main__, loaded from that file) or the code (as `-c` does), then exits as that process would,
its atexit handlers run. So the modules a child has loaded are a new process's, and those that are local
to Hypothesis (the console script, the project's machines) the same.

Where a test is about the process itself (signals, the process group, the console script's exit,
start-up imports, a wheel), it starts a real one. So do commands this cannot fork for: another
program, another Python, or an environment whose start-up variables (PYTHON*, HYPOTHESIS*, CI, the
locale) differ from the zygote's (another zygote is started for them), and platforms without fork
and Linux's pidfd_open.

The zygote waits for each child (a pidfd each), and so its /proc entry counts their CPU time:
benchmarks/parallel.py's process_cpu() adds it as it adds the fork server's.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO, Sequence

# in the zygote's command line, for benchmarks/parallel.py to find it
MARKER = "evmstate-tests-zygote"
# what the zygote imports: what `evmstate run` on either backend and the tests' seeded searches import
PRELOAD = (
    "evmstate_cli.launch",
    "evmstate_cli.main",
    "evmstate_cli.render",
    "evmstate.runner",
    "evmstate.strategies",
    "evmstate.engine.discovery",
    "evmstate.engine.fork",
    "evmstate.engine.item",
    "evmstate.engine.machine_run",
    "evmstate.engine.native",
    "evmstate.engine.property_run",
    "evmstate.engine.records",
    "evmstate.engine.shrink.finish",
    "evmstate.compiler.sources",
    "evmstate.contracts.project",
    "evmstate.evm.factory",
    "evmstate.evm.pyevm.backend",
    "evmstate.evm.revm.backend",
    "evmstate.search.guidance",
    "evmstate.search.native.mutations",
    "eth.vm.spoof",
    "coincurve",
)

SERVER = r"""# MARKER
import json, os, select, signal, socket, sys, types

def preload(names):
    import importlib
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # pyrevm where it is not installed: a child imports what it needs

def child(request, fds):
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # a stop signal the requesting process ignores, a new process started by it inherits ignored (under nohup, or
    # a shell's background job: SIGINT), and Python leaves SIGINT so at start
    ignored = set(request.get("ignored", ()))
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as Python sets it at start
    signal.signal(signal.SIGINT, signal.SIG_IGN if signal.SIGINT in ignored else signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    argv = request["argv"]
    if request["code"] is None:  # a script's file: `python SCRIPT ARGS`
        import runpy
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
    else:  # `python -c CODE ARGS`
        sys.argv = ["-c", *argv]
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = main
        exec(compile(request["code"], "<string>", "exec"), main.__dict__)

def serve(listener):
    waiting = {}  # pidfd: (pid, connection)
    while True:
        ready, _, _ = select.select([listener, sys.stdin, *waiting], [], [])
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 1):
            os._exit(0)  # the test process is gone
        for fd in ready:
            if fd in waiting:
                pid, conn = waiting.pop(fd)
                _, status = os.waitpid(pid, 0)
                os.close(fd)
                conn.sendall(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                conn.close()
        if listener in ready:
            conn, _ = listener.accept()
            data, fds, _, _ = socket.recv_fds(conn, 1 << 22, 3)
            while not data.endswith(b"\n"):
                data += conn.recv(1 << 22)
            request = json.loads(data)
            pid = os.fork()
            if pid == 0:
                listener.close()
                conn.close()
                for fd in waiting:
                    os.close(fd)
                return request, fds
            for fd in fds:
                os.close(fd)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            waiting[os.pidfd_open(pid)] = (pid, conn)

preload(json.loads(sys.argv[2]))
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen(16)
sys.stdout.write("ready\n")
sys.stdout.flush()
request, fds = serve(listener)
del listener
child(request, fds)
""".replace("MARKER", MARKER)

# variables a Python (and what it imports) reads as it starts: a command with other values needs a zygote started with them
STARTUP = ("PYTHON", "HYPOTHESIS", "LC_", "LANG", "CI", "TF_BUILD", "GITHUB_", "BUILDKITE", "CIRCLECI", "TRAVIS", "CODEBUILD", "JENKINS", "GITLAB_CI", "TEAMCITY", "VIRTUAL_ENV", "EVMSTATE_START_METHOD")


def _startup_key(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in env.items() if k.startswith(STARTUP)))


class Zygote:
    """A Python that has imported PRELOAD, forking a child per command."""

    def __init__(self, env: dict[str, str]) -> None:
        from .cli.helpers import interruptible  # the zygote starts with the stop signals as in a terminal

        self.folder = Path(tempfile.mkdtemp(prefix="zygote-"))
        self.path = str(self.folder / "socket")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, self.path, json.dumps(PRELOAD)],
            cwd=self.folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=interruptible,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line != b"ready\n":
            self.proc.wait()
            raise RuntimeError(f"the test zygote did not start (exit {self.proc.returncode})")

    def run(self, argv: Sequence[str], code: str | None, *, cwd: str, env: dict[str, str], stdin: int, stdout: int, stderr: int,
            timeout: float | None) -> int:
        """The exit code (negative: the signal) of the command, its streams on the three file descriptors; killed after timeout seconds."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(self.path)
            request = json.dumps({"argv": list(argv), "code": code, "cwd": cwd, "env": env, "ignored": _ignored()}).encode() + b"\n"
            socket.send_fds(conn, [request], [stdin, stdout, stderr])
            lines = conn.makefile("rb")
            pid = json.loads(lines.readline())["pid"]
            killed = threading.Event()

            def kill() -> None:
                killed.set()
                _kill(pid)

            timer = threading.Timer(timeout, kill) if timeout else None
            if timer:
                timer.start()
            try:
                answer = lines.readline()
            finally:
                if timer:
                    timer.cancel()
            if not answer:
                raise RuntimeError("the test zygote ended while a command ran")
            returncode = json.loads(answer)["returncode"]
            if killed.is_set():
                raise subprocess.TimeoutExpired(list(argv), timeout or 0)
            return returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _ignored() -> list[int]:
    """The stop signals this process ignores: a new process it starts inherits them ignored."""
    import signal

    return [int(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if signal.getsignal(signum) == signal.SIG_IGN]


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


_ZYGOTES: dict[tuple[tuple[str, str], ...], Zygote] = {}
_LOCK = threading.Lock()


def _zygote(env: dict[str, str]) -> Zygote:
    key = _startup_key(env)
    with _LOCK:
        if key not in _ZYGOTES:
            _ZYGOTES[key] = Zygote(env)
        return _ZYGOTES[key]


@atexit.register
def _close_all() -> None:
    for zygote in _ZYGOTES.values():
        zygote.close()


def _forkable(argv: Sequence[str]) -> tuple[str | None, list[str]] | None:
    """(code, the rest of argv) for `python -c CODE ...` of this Python, (None, argv) for a console script of this Python; None for anything else."""
    if not hasattr(os, "pidfd_open") or not hasattr(socket, "send_fds"):
        return None
    if len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-c":
        return argv[2], list(argv[3:])
    script = Path(argv[0])
    if script.parent == Path(sys.executable).parent and script.is_file():
        with open(script, "rb") as f:
            if f.readline().strip() == b"#!" + os.fsencode(sys.executable):
                return None, list(argv)
    return None


def run(argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None,
        timeout: float | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """What subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, input=input) returns.

    argv: the evmstate console script (or another of this Python's), or [sys.executable, "-c", CODE, ...].
    """
    argv = [os.fspath(a) for a in argv]
    forkable = _forkable(argv)
    if forkable is None:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, input=input)
    code, rest = forkable
    env = dict(os.environ if env is None else env)
    with tempfile.TemporaryFile() as source, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if input is not None:
            source.write(input.encode())
            source.seek(0)
        stdin = source.fileno() if input is not None else os.open(os.devnull, os.O_RDONLY)
        try:
            returncode = _zygote(env).run(rest, code, cwd=os.path.abspath(cwd or os.getcwd()), env=env, stdin=stdin, stdout=out.fileno(), stderr=err.fileno(), timeout=timeout)
        finally:
            if input is None:
                os.close(stdin)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, returncode, out.read().decode(), err.read().decode())


# `python -c SESSION SCRIPT ARGS`: the console script SCRIPT run as the zygote runs a script's file (run()), in a
# session of its own, as subprocess.Popen(..., start_new_session=True) starts a command
SESSION = (
    "import os, runpy, sys; os.setsid(); sys.argv = sys.argv[1:]; sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0])); "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


class Started:
    """A console script of this Python forked from the zygote in a session of its own, its stop signals at their defaults
    (as in a terminal), while the test goes on: what subprocess.Popen(argv, cwd=cwd, env=env, stdin=DEVNULL,
    stdout=stdout, stderr=stderr, start_new_session=True, preexec_fn=tests.cli.helpers.interruptible) starts, for a
    test that signals the command, its process group or its session while it runs.

    pid, poll(), wait(timeout), returncode (negative: the signal) and kill() as Popen's; the zygote has waited for the
    command once it has a return code. A thread reads the zygote's answer whatever the test does (one that fails before
    it waits leaves no answer unread, which would end the zygote). Where run() would start a process (another program,
    no fork), so does this.
    """

    def __init__(self, argv: Sequence[str], *, cwd: str | os.PathLike[str], env: dict[str, str], stdout: int, stderr: int) -> None:
        argv = [os.fspath(a) for a in argv]
        self.returncode: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        forkable = _forkable(argv)
        if forkable is None or forkable[0] is not None:
            from .cli.helpers import interruptible

            self._proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True, preexec_fn=interruptible)
            self.pid = self._proc.pid
            return
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(_zygote(env).path)
        request = {"argv": argv, "code": SESSION, "cwd": os.path.abspath(cwd), "env": env, "ignored": []}
        stdin = os.open(os.devnull, os.O_RDONLY)
        try:
            socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [stdin, stdout, stderr])
        finally:
            os.close(stdin)
        lines = conn.makefile("rb")
        self.pid = int(json.loads(lines.readline())["pid"])
        self._ended = threading.Event()
        threading.Thread(target=self._answer, args=(conn, lines), daemon=True).start()

    def _answer(self, conn: socket.socket, lines: BinaryIO) -> None:
        try:
            answer = lines.readline()
            if answer:  # else the zygote ended first: wait() says so
                self.returncode = int(json.loads(answer)["returncode"])
        finally:
            lines.close()
            conn.close()
            self._ended.set()

    def poll(self) -> int | None:
        if self._proc is not None:
            self.returncode = self._proc.poll()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self._proc is not None:
            self.returncode = self._proc.wait(timeout)
            return self.returncode
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
        if self.returncode is None:
            raise RuntimeError("the test zygote ended while a command ran")
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            _kill(self.pid)
