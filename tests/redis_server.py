"""A Redis server of a test's own: Debian's redis-server (apt package redis-server), on loopback, on a free port.

A module of its own (not a test file): the fixtures in conftest.py start it, and tests that kill it
mid-run (a server that dies under a campaign) reach it through the object the fixture yields.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

EXECUTABLE = "redis-server"
STARTS = 5  # tries at a free port: another process may take the one found before the server binds it


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port: int) -> bool:
    """Whether a Redis server answers PING on the loopback port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A redis-server process on 127.0.0.1:port that keeps nothing on disk; kill() ends it as a crash would."""

    def __init__(self, executable: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="evmstate-redis-"))
        for _ in range(STARTS):
            self.port = free_port()
            self.process = subprocess.Popen(
                [executable, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 30
            while self.process.poll() is None and time.monotonic() < deadline and not answers(self.port):
                time.sleep(0.05)
            if answers(self.port):
                return
            self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)
        raise RuntimeError(f"{executable} did not start on a free loopback port in {STARTS} tries")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def kill(self) -> None:
        """SIGKILL, and wait: from now on the port refuses connections."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def start() -> RedisServer:
    """A server of the test's own; the test is skipped, saying why, where redis-server is not installed."""
    executable = shutil.which(EXECUTABLE)
    if executable is None:
        pytest.skip(f"{EXECUTABLE} is not on PATH: install Debian's package (apt-get install redis-server; .ci/run does) to run the tests of the Redis example database")
    return RedisServer(executable)
