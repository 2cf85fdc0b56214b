"""Files, on the ground floor: the user's files read as text, evmstate's own files written whole, evmstate's own version
and a digest of its modules' code for the caches keyed on it.

The user's files read as text: UTF-8 (a byte order mark allowed), or where they are not, the line
and column that is not. evmstate.toml, machine files and Vyper sources are all read through
decode(), so each says the same about a file saved in another encoding or holding a null byte.

Imports nothing of evmstate's.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable, TypeVar

K = TypeVar("K")
V = TypeVar("V")


@functools.lru_cache(maxsize=1)
def version() -> str:
    """evmstate's installed version, read once from the package's metadata (pyproject.toml is its one source: about 1 ms
    a read)."""
    return importlib.metadata.version("evmstate")


def module_file(name: str) -> Path:
    """The source file of an evmstate module named by its dotted name; a name that does not resolve raises.

    A cache keyed on a module's code must not go on hashing a module that was renamed away: a miss
    here is evmstate's own mistake (a stale list), not the user's.
    """
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None else None
    if origin is None or not Path(origin).is_file():
        raise LookupError(
            f"{name} is not a module with a source file: a list of modules to hash names it, update the list"
        )
    return Path(origin)


def code_digest(names: Iterable[str], *, salt: str = "") -> str:
    """A sha256 of the named modules' source files (in the order given), after salt."""
    h = hashlib.sha256(salt.encode())
    for name in names:
        h.update(name.encode() + module_file(name).read_bytes())
    return h.hexdigest()


# -- the user's files as text ----------------------------------------------------------------------




# byte order marks of encodings other than UTF-8: a file saved as UTF-16 (PowerShell's `>`, Notepad's "Unicode")
OTHER_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class Undecodable(ValueError):
    """Raised when a file's bytes are not text evmstate can read; line and column (from 1) say where, 0 when the whole
    file is."""

    def __init__(self, problem: str, line: int = 0, column: int = 0) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column


def position(data: bytes, offset: int) -> tuple[int, int]:
    """The line and column (from 1) of a byte offset in data."""
    start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - start + 1


def decode(data: bytes, encoding: str = "utf-8") -> str:
    """data as text (in encoding, UTF-8 unless a file declares another); Undecodable says what is wrong and where."""
    for mark, name in OTHER_MARKS:
        if data.startswith(mark):
            raise Undecodable(f"the file is {name} text (it starts with a {name} byte order mark); save it as UTF-8")
    if encoding.replace("_", "-").lower() in ("utf-8", "utf8"):
        encoding = "utf-8-sig"  # a UTF-8 byte order mark (Windows editors write one) is read past
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line, column = position(data, e.start)
        raise Undecodable(
            f"byte 0x{data[e.start]:02x} at line {line}, column {column} is not "
            f"{encoding.removesuffix('-sig').upper()} text; save the file as UTF-8",
            line,
            column,
        ) from None
    null = data.find(b"\0")
    if null >= 0:
        line, column = position(data, null)
        raise Undecodable(
            f"a null byte (\\x00) at line {line}, column {column}; delete it (a text file holds none)", line, column
        )
    return text


def write_atomic(path: Path, data: bytes | str, *, durable: bool = False) -> None:
    """Write data (text as UTF-8) to path whole: a reader sees the old file or the new one, never half.

    Through a temporary file in the same folder renamed over path; an error or Ctrl-C while writing
    removes the temporary file, and the error (a full or read-only disk: OSError) is the caller's to
    name. durable: the data is on the disk before the rename (fsync), for records that must outlive a
    power cut. A path that exists and is not a regular file (/dev/null, a named pipe) is written to
    as it is, never replaced.
    """
    body = data.encode("utf-8") if isinstance(data, str) else data
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        special = False
    if special:
        with open(path, "wb") as f:
            f.write(body)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Bounded(dict[K, V]):
    """A cache of derived values that forgets them all once it holds limit entries, so that a long run's memory stays
    bounded.

    Emptying at once, not evicting one by one, keeps a hit as fast as a dict's (no bookkeeping on
    reads); what was forgotten is derived again when next asked for.
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        if len(self) >= self.limit and key not in self:
            self.clear()
        super().__setitem__(key, value)
