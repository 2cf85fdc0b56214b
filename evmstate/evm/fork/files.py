"""The fork cache's files: one JSON file per address under <chain id>/<block>/, written atomically.

Standard library only: serve.py, which runs as a script of its own, reads and writes them too.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

Account = tuple[int, int, bytes]  # balance, nonce, code


def write_atomic(path: Path, text: str) -> None:
    """Write text to path through a temporary file renamed over it (evm/ sits below search/, whose corpus has the same helper)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def unwritable(folder: Path) -> OSError | None:
    """Why a file cannot be written in folder (a read-only or full disk), None when one can: a byte written, synced and removed."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".probe.", suffix=".tmp")
    except OSError as exc:
        return exc
    try:
        os.write(fd, b"\0")
        os.fsync(fd)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return None


def file_of(folder: Path, address: bytes) -> Path:
    return folder / f"0x{address.hex()}.json"


def read(folder: Path, address: bytes) -> tuple[Account | None, dict[int, int]]:
    """What the cache holds of address: its account (None: not fetched) and the slots fetched."""
    try:
        data = json.loads(file_of(folder, address).read_text())
    except (OSError, ValueError):  # none yet, or one another process is replacing
        return None, {}
    account = data.get("account")
    found = None if account is None else (int(account[0], 16), account[1], bytes.fromhex(account[2][2:]))
    return found, {int(slot): int(value, 16) for slot, value in data.get("storage", {}).items()}


def write(folder: Path, address: bytes, account: Account | None, slots: dict[int, int]) -> None:
    """Write what is known of address, merged with what another process wrote meanwhile (the values of a past block never differ)."""
    known, on_disk = read(folder, address)
    account = account if account is not None else known
    data: dict[str, Any] = {}
    if account is not None:
        data["account"] = [hex(account[0]), account[1], "0x" + account[2].hex()]
    merged = {**on_disk, **slots}
    data["storage"] = {str(s): hex(v) for s, v in sorted(merged.items())}
    write_atomic(file_of(folder, address), json.dumps(data))
