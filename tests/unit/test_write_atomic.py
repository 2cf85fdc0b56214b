"""evmstate's own files are written whole, by one writer (evmstate.files.write_atomic)."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from evmstate.files import write_atomic


def test_a_file_is_written_whole_text_as_utf8_and_its_folder_made(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "record.json"
    write_atomic(target, "é\n")
    assert target.read_bytes() == "é\n".encode()
    write_atomic(target, b"\x00\x01", durable=True)
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in target.parent.iterdir()) == ["record.json"]


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="the platform has no /dev/null")
def test_a_path_that_is_not_a_regular_file_is_written_to_never_replaced() -> None:
    write_atomic(Path("/dev/null"), "a report nobody keeps\n")  # --json /dev/null, --junit-xml /dev/null
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_bounded_cache_forgets_everything_once_full_and_keeps_a_value_set_again() -> None:
    from evmstate.files import Bounded

    cache: Bounded[int, int] = Bounded(3)
    for i in range(3):
        cache[i] = i
    cache[2] = 20  # a key it holds: replaced, nothing forgotten
    assert cache == {0: 0, 1: 1, 2: 20}
    cache[3] = 3
    assert cache == {3: 3}
