"""The user's files read as text: UTF-8 (a byte order mark allowed), or where they are not, the line and column that is not.

evmstate.toml, machine files and Vyper sources are all read through decode(), so each says the same
about a file saved in another encoding or holding a null byte.
"""

from __future__ import annotations

import codecs

# byte order marks of encodings other than UTF-8: a file saved as UTF-16 (PowerShell's `>`, Notepad's "Unicode")
OTHER_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


class Undecodable(ValueError):
    """Raised when a file's bytes are not text evmstate can read; line and column (from 1) say where, 0 when the whole file is."""

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
        raise Undecodable(f"byte 0x{data[e.start]:02x} at line {line}, column {column} is not {encoding.removesuffix('-sig').upper()} text; save the file as UTF-8", line, column) from None
    null = data.find(b"\0")
    if null >= 0:
        line, column = position(data, null)
        raise Undecodable(f"a null byte (\\x00) at line {line}, column {column}; delete it (a text file holds none)", line, column)
    return text
