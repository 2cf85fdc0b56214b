"""The fork cache's files: one JSON file per address under <chain id>/<block>/, written atomically.

Standard library only: serve.py, which runs as a script of its own, reads and writes them too.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

if __package__:
    from ...files import write_atomic
else:  # run by serve.py as a script, which imports no package: the ground floor's files.py, by its path
    import importlib.util

    _spec = importlib.util.spec_from_file_location("evmstate_files", Path(__file__).resolve().parents[2] / "files.py")
    assert _spec is not None and _spec.loader is not None
    _ground = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_ground)
    write_atomic = _ground.write_atomic

Account = tuple[int, int, bytes]  # balance, nonce, code
HEX = re.compile(r"0x(?:[0-9a-fA-F]{2})*\Z")


class DamagedFile(ValueError):
    """Raised when a file of the fork cache does not hold what evmstate wrote there; names the file and says to delete
    it.
    """

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"the fork cache file {path} is damaged ({problem}): delete it, and run again with a node (--fork-url URL, "
            "or [fork] url "
            "in evmstate.toml), which fetches what it held again"
        )
        self.path = path


ABSENT = object()  # what loaded() gives for a file that is not there


def loaded(path: Path) -> Any:
    """A cache file's JSON; ABSENT when there is no such file; DamagedFile when it cannot be read or is not JSON."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ABSENT
    except OSError as e:
        raise DamagedFile(path, f"it cannot be read: {e.strerror}") from None
    try:
        return json.loads(raw)
    except ValueError as e:  # not JSON, or not UTF-8: written atomically, a file is never seen half-written
        raise DamagedFile(path, f"not JSON: {e}") from None


def unwritable(folder: Path) -> OSError | None:
    """Why a file cannot be written in folder (a read-only or full disk), None when one can: a byte written, synced and
    removed.
    """
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
    """What the cache holds of address: its account (None: not fetched) and the slots fetched; DamagedFile when its file
    is not as written.
    """
    path = file_of(folder, address)
    data = loaded(path)
    if data is ABSENT:
        return None, {}
    if not isinstance(data, dict) or not set(data) <= {"account", "storage"}:
        raise DamagedFile(path, f"it holds {_kind(data)}, not an object with \"account\" and \"storage\"")
    account = data.get("account")
    if account is not None and not (
        isinstance(account, list)
        and len(account) == 3
        and _hex_number(account[0])
        and _natural(account[1])
        and isinstance(account[2], str)
        and HEX.match(account[2])
    ):
        raise DamagedFile(
            path, f'its account is {json.dumps(account)[:80]}, not [balance, nonce, code] such as ["0x0", 0, "0x"]'
        )
    storage = data.get("storage", {})
    if not isinstance(storage, dict) or not all(key.isdigit() and _hex_number(value) for key, value in storage.items()):
        raise DamagedFile(
            path, f'its storage is {json.dumps(storage)[:80]}, not slots and hex values such as {{"0": "0x5dc"}}'
        )
    found = None if account is None else (int(account[0], 16), account[1], bytes.fromhex(account[2][2:]))
    return found, {int(slot): int(value, 16) for slot, value in storage.items()}


def _kind(value: Any) -> str:
    return {list: "a JSON list", str: "a JSON string", bool: "true or false", int: "a number", float: "a number"}.get(
        type(value), "null" if value is None else "an object with other keys"
    )


def _hex_number(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"0x[0-9a-fA-F]+", value) is not None and len(value) <= 66


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64


def write(folder: Path, address: bytes, account: Account | None, slots: dict[int, int]) -> None:
    """Write what is known of address, merged with what another process wrote meanwhile (the values of a past block
    never differ).
    """
    known, on_disk = read(folder, address)
    account = account if account is not None else known
    data: dict[str, Any] = {}
    if account is not None:
        data["account"] = [hex(account[0]), account[1], "0x" + account[2].hex()]
    merged = {**on_disk, **slots}
    data["storage"] = {str(s): hex(v) for s, v in sorted(merged.items())}
    write_atomic(file_of(folder, address), json.dumps(data))
