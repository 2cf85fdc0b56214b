"""SIGTERM and SIGHUP are Ctrl-C, and nothing evmstate starts outlives it: commands stopped by SIGKILL, SIGTERM, SIGHUP and Ctrl-C at each phase.

Each case starts the installed command in a session of its own on a one-contract project
(tests/projects/signals), waits for the phase in what the command writes (its machines write
`phase: ...` to their own stderr; compiling is held on a FIFO among the sources), sends the
signal to the command alone or to its whole process group (as a terminal, `timeout` or a CI
runner does), then checks the exit code and what was said, that no process of the session is
left 2 s after the command ended (workers, shrinking helpers, the fork server, multiprocessing's
resource tracker: found in /proc by their session), that every saved record loads, and that a
failure found before a SIGTERM, SIGHUP or Ctrl-C was saved.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from evmstate.failures import FailureStore

from .. import zygote
from ..conftest import REPO, copy_project, evmstate_exe, without_shrinking
from .helpers import invoke

pytestmark = [
    pytest.mark.processes,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process tree from /proc; parent-death signals are Linux's"),
]

WAIT = 180.0  # seconds a phase may take to come on a loaded machine
LEFT_AFTER = 2.0  # seconds after the command ended by which nothing it started may be left


def session(sid: int) -> dict[int, tuple[int, str]]:
    """The live processes of session sid, by pid: (parent pid, command line). Zombies have ended and are left out."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        state, ppid, _, in_session = stat[stat.rindex(")") + 2 :].split()[:4]
        if int(in_session) == sid and state not in ("Z", "X"):
            found[int(entry)] = (int(ppid), cmdline.replace(b"\0", b" ").decode(errors="replace").strip())
    return found


class Command:
    """The installed evmstate command in a session of its own, its output read line by line as it comes.

    Forked from the test zygote (tests/zygote.py: a process of its own that runs the console script as a new one does,
    its stop signals at their defaults as in a terminal), in a session of its own; the zygote has waited for it once it
    ended, as subprocess.Popen's wait() does.
    """

    def __init__(self, root: Path, *args: str) -> None:
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
        read, write = os.pipe()
        try:
            self.proc = zygote.Started([evmstate_exe(), *args], cwd=root, env=env, stdout=write, stderr=write)
        finally:
            os.close(write)
        self.stdout = open(read, encoding="utf-8", errors="replace")  # noqa: SIM115
        self.lines: list[str] = []
        self.closed = False
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with self.stdout:
            for line in self.stdout:
                with self.changed:
                    self.lines.append(line)
                    self.changed.notify_all()
        with self.changed:
            self.closed = True
            self.changed.notify_all()

    @property
    def output(self) -> str:
        with self.changed:
            return "".join(self.lines)

    def wait_for(self, text: str) -> None:
        """Until a line holds text; fails when the command ends first, or WAIT passes."""
        self.wait_until(lambda line: text in line, repr(text))

    def wait_until(self, seen: Callable[[str], bool], what: str) -> None:
        """Until seen(line) holds for a line; fails when the command ends first, or WAIT passes."""
        with self.changed:
            self.changed.wait_for(lambda: self.closed or any(map(seen, self.lines)), WAIT)
            assert any(map(seen, self.lines)), f"never saw {what}:\n{''.join(self.lines)}"

    def stop(self, signum: int, group: bool) -> int:
        """Send signum to the command (group: to its whole process group) and wait for it to end; its exit code."""
        (os.killpg if group else os.kill)(self.proc.pid, signum)
        return self.proc.wait(timeout=WAIT)

    def left(self) -> dict[int, tuple[int, str]]:
        """What is still alive of the session LEFT_AFTER seconds after the command ended (killed then, so that no test leaves it behind)."""
        deadline = time.monotonic() + LEFT_AFTER
        alive = session(self.proc.pid)
        while alive and time.monotonic() < deadline:
            time.sleep(0.05)
            alive = session(self.proc.pid)
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return alive

    def kill(self) -> None:
        """End whatever of the session is still running: after a test that failed midway."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.left()

    def helpers(self) -> list[int]:
        """The shrinking helpers running: processes three below the command (it, the fork server, a worker, a helper)."""
        tree = session(self.proc.pid)
        depth = {self.proc.pid: 0}
        for _ in range(4):
            for pid, (ppid, _) in tree.items():
                if ppid in depth:
                    depth[pid] = depth[ppid] + 1
        return [pid for pid, d in depth.items() if d == 3]


def _in_pipe_read(pid: int) -> bool:
    """Whether process pid waits in a read of a pipe or FIFO, as Linux names what a process waits in (anon_pipe_read,
    pipe_read); False where that cannot be read (not Linux, the process gone)."""
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


class HeldCompile:
    """A source that is a FIFO: the command compiling the project waits on it, so that it can be stopped while compiling."""

    def __init__(self, root: Path) -> None:
        self.path = root / "contracts" / "Held.vy"
        os.mkfifo(self.path)
        self.fd: int | None = None

    def reached(self, pid: int) -> None:
        """Until the command (pid) opens the source to read it (it is then compiling: the open for writing waits for a
        reader), and then waits in its read.

        A stop sent as the command's open returns could reach it before its read began: Python runs a signal's handler
        between instructions, so the read that follows would wait with the stop already taken, for ever.
        """
        opened: list[int] = []
        opener = threading.Thread(target=lambda: opened.append(os.open(self.path, os.O_WRONLY)), daemon=True)
        opener.start()
        opener.join(WAIT)
        if not opened:  # let the opener go: open the other end here
            os.close(os.open(self.path, os.O_RDONLY | os.O_NONBLOCK))
            opener.join(5)
            pytest.fail("the command never read the contracts while compiling")
        self.fd = opened[0]
        deadline = time.monotonic() + 5  # where the kernel hides it (it reads 0), a moment is all the wait
        while not _in_pipe_read(pid) and time.monotonic() < deadline:
            time.sleep(0.01)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return copy_project(REPO / "tests" / "projects" / "signals", tmp_path / "signals")


def records(root: Path) -> list[str]:
    """The ids of the saved failure records, each loaded: a record that does not load fails the test."""
    store = FailureStore(root / ".evmstate" / "failures")
    for rid in store.ids():
        store.load(rid)
    return store.ids()


NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}

# (command line, phase, signal, to the whole group): every command at each phase, each signal
# somewhere, to the command alone (`kill`, `docker stop`, the OOM killer) and to its group (a
# terminal, `timeout`, a CI runner); SIGKILL where there are workers, helpers or a fork server to
# outlive it
CASES = {
    "run, shrinking, SIGTERM": (("run", "machines/failing.py", "--seed", "1"), "shrinking", signal.SIGTERM, False),
    "run -n 2, compiling, SIGKILL": (("run", "machines/waiting.py", "-n", "2", "--shards", "2"), "compiling", signal.SIGKILL, False),
    "run -n 2, searching, SIGHUP to the group": (("run", "machines/waiting.py", "-n", "2", "--shards", "2"), "searching", signal.SIGHUP, True),
    "run -n 2, shrinking with helpers, SIGKILL": (("run", "machines/failing.py", "-n", "2", "--seed", "1"), "helpers", signal.SIGKILL, False),
    "fuzz -n 2, searching, SIGKILL": (("fuzz", "machines/waiting.py", "-n", "2"), "searching", signal.SIGKILL, False),
    "fuzz -n 2, shrinking, SIGTERM": (("fuzz", "machines/failing.py", "machines/waiting.py", "-n", "2", "--seed", "1"), "failing", signal.SIGTERM, False),
    "fuzz -n 2, saved, Ctrl-C to the group": (("fuzz", "machines/quick.py", "machines/waiting.py", "-n", "2", "--seed", "1"), "saved", signal.SIGINT, True),
    "mutate -n 2, compiling, SIGTERM to the group": (("mutate", "machines/waiting.py", "-n", "2"), "compiling", signal.SIGTERM, True),
    "mutate -n 2, searching, SIGKILL": (("mutate", "machines/waiting.py", "-n", "2"), "searching", signal.SIGKILL, False),
}
# what each phase's wait looks for in the output
PHASES = {
    "searching": "phase: searching #1 in",
    "shrinking": "shrinking (Ctrl-C keeps the shortest failing program found so far)",
    "failing": "phase: failing #3 in",  # found, handed to Hypothesis, and shrinking
    "saved": "replay with: evmstate replay",  # the failure saved as it was printed, the other machine still searching
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_command_stopped_at_a_phase_leaves_nothing_running_and_keeps_what_it_found(project, case):
    args, phase, signum, group = CASES[case]
    held = HeldCompile(project) if phase == "compiling" else None
    command = Command(project, *args)
    try:
        if held is not None:
            held.reached(command.proc.pid)
        elif phase == "helpers":
            command.wait_for(PHASES["shrinking"])
            deadline = time.monotonic() + WAIT
            while not command.helpers() and time.monotonic() < deadline and command.proc.poll() is None:
                time.sleep(0.05)
            assert command.helpers(), f"no helper was shrinking:\n{command.output}"
        else:
            command.wait_for(PHASES[phase])
        code = command.stop(signum, group)
        if held is not None:
            held.release()
        left = command.left()
    finally:
        if held is not None:
            held.release()
        command.kill()
    out = command.output
    assert not left, f"left running {LEFT_AFTER} s after evmstate ended: {left}\n{out}"
    saved = records(project)
    if signum == signal.SIGKILL:
        assert code == -signal.SIGKILL
        return
    assert "Traceback" not in out, out
    found = phase in ("shrinking", "failing", "saved")
    assert code == (1 if found else 130), out
    assert bool(saved) == found, (saved, out)
    said = {"run": f"interrupted by {NAMES[signum]} in ", "fuzz": f"(stopped by {NAMES[signum]})", "mutate": f"(interrupted by {NAMES[signum]}: the mutants judged so far)"}
    if args[0] == "mutate" and phase == "compiling":  # before it has a report to show
        said["mutate"] = f"\ninterrupted by {NAMES[signum]}\n"
    assert said[args[0]] in out, out
    if phase in ("shrinking", "failing"):
        assert "interrupted while shrinking: this is the shortest failing program found so far" in out, out
        data = json.loads((project / ".evmstate" / "failures" / f"{saved[0]}.json").read_text())
        assert data["interrupted"] is True and data["error"]["type"] == "AssertionError", data


def test_evmstate_shrink_stopped_keeps_the_shorter_program_found_sigkill_keeps_the_record_and_replay_stops_as_for_ctrl_c(project, monkeypatch, cli_env):
    # a failure saved as the search found it, unshrunk: Hypothesis does not shrink, evmstate's budget is spent at once
    # (in this process: the record is what the commands stopped below start from)
    toml = without_shrinking(project) / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nshrink_time = 0.001\n")
    monkeypatch.chdir(project)
    code, out = invoke("run", "machines/failing.py", "--seed", "1")
    assert code == 1, out
    (rid,) = records(project)
    steps = len(json.loads((project / ".evmstate" / "failures" / f"{rid}.json").read_text())["steps"])
    assert steps >= 2, "the search's failing program is already as short as it gets: pick another seed"

    # SIGKILL while shrinking: the record stands as it was
    command = Command(project, "shrink", rid)
    try:
        command.wait_for("phase: failing #2 in")
        assert command.stop(signal.SIGKILL, group=False) == -signal.SIGKILL
        left = command.left()
    finally:
        command.kill()
    assert not left, left
    assert records(project) == [rid]

    # SIGTERM once a shorter program failed: it replaces the record's program under the same id (a record
    # is one failure), marked interrupted; the command says so and exits 1
    command = Command(project, "shrink", rid)
    try:
        # a shorter program failing for the second time: the first time, it was being replayed; now it is kept
        shorter = re.compile(r"phase: failing after (\d+) steps #(\d+) ")
        command.wait_until(lambda line: (m := shorter.search(line)) is not None and int(m.group(1)) < steps and int(m.group(2)) >= 2, f"a program shorter than {steps} steps kept")
        code = command.stop(signal.SIGTERM, group=False)
        left = command.left()
    finally:
        command.kill()
    out = command.output
    assert not left, left
    assert code == 1 and "Traceback" not in out, out
    assert "interrupted by SIGTERM while shrinking: this is the shortest failing program found so far" in out, out
    (new,) = records(project)
    data = json.loads((project / ".evmstate" / "failures" / f"{new}.json").read_text())
    assert new == rid and data["interrupted"] is True and len(data["steps"]) < steps, data
    assert f"replay with: evmstate replay {new}" in out

    # replay stopped while it compiles: SIGTERM is Ctrl-C there too
    held = HeldCompile(project)
    command = Command(project, "replay", new)
    try:
        held.reached(command.proc.pid)
        code = command.stop(signal.SIGTERM, group=False)
        held.release()
        left = command.left()
    finally:
        held.release()
        command.kill()
    out = command.output
    assert not left, left
    assert code == 130 and out.endswith("interrupted by SIGTERM\n") and "Traceback" not in out, out
    assert records(project) == [new]
