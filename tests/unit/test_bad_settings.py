"""A generated corpus of bad evmstate.toml files: every key with a value of each wrong type and out of
its bounds, unknown and misplaced keys and sections, broken TOML, other encodings, a folder in the
file's place.

Each is a ConfigError (exit 2 on the command line, never a traceback) that names the file, the key
or the line, and says what to write instead. The keys come from the settings' own dataclasses, so
a key added later is in the corpus too.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from evmstate.config import CONFIG_NAME, load
from evmstate.config_checks import INT64
from evmstate.errors import ConfigError

from .bad_settings import CASES, encodings, keys

# what a message says to do: one of these words is in each
HINTS = ("default", "use ", "Use ", "Did you mean", "write", "Write", "delete", "save", "give", "Give", "list ", "Known", "Lower", "move", "Fix", "Rename", "Make", "Create", "at most", "at least")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project folder for the whole corpus (each case writes its own evmstate.toml there): a folder per case costs more than the case."""
    return tmp_path_factory.mktemp("settings")


def _config_error(root: Path) -> str:
    """The message of the ConfigError loading root's settings raises; anything else fails the test as it is raised."""
    with pytest.raises(ConfigError) as info:
        load(root)
    return str(info.value)


def _said_well(message: str, path: Path, where: str) -> None:
    assert str(path) in message, f"the message does not name the file: {message}"
    assert where in message, f"the message does not name {where!r}: {message}"
    assert any(h in message for h in HINTS), f"the message does not say what to write: {message}"
    assert "Traceback" not in message and "\n  File " not in message


@pytest.mark.parametrize("text, where", [pytest.param(text, where, id=name) for text, where, name in CASES])
def test_a_bad_setting_is_a_config_error_naming_the_file_and_key(folder: Path, text: str, where: str) -> None:
    path = folder / CONFIG_NAME
    path.write_text(text)
    _said_well(_config_error(folder), path, where)


@pytest.mark.parametrize("data, where", [pytest.param(data, where, id=name) for data, where, name in encodings()])
def test_a_file_in_another_encoding_says_where_and_to_save_it_as_utf8(folder: Path, data: bytes, where: str) -> None:
    path = folder / CONFIG_NAME
    path.write_bytes(data)
    message = _config_error(folder)
    _said_well(message, path, where)
    assert "cannot read" in message


def test_every_key_is_in_the_corpus_with_each_wrong_type() -> None:
    covered = {name.split("=")[0] for _, _, name in CASES}
    assert {f"{section}.{key}" for section, key, _, _ in keys()} <= covered
    assert len(CASES) + len(encodings()) >= 300


def test_a_utf8_byte_order_mark_and_windows_line_ends_are_read(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_bytes(codecs.BOM_UTF8 + b"[hypothesis]\r\nseed = 7\r\n[accounts]\r\ncount = 1000\r\n")
    cfg = load(tmp_path)
    assert (cfg.hypothesis.seed, cfg.accounts.count) == (7, 1000)  # 1000 accounts: the most, taken


def test_an_empty_file_is_the_defaults(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text("")
    assert load(tmp_path).accounts.count == 10


def test_a_folder_in_place_of_the_file(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).mkdir()
    message = _config_error(tmp_path)
    assert message.startswith(f"{tmp_path / CONFIG_NAME} is a folder, not a file") and "Rename or remove the folder" in message


def test_a_broken_moccasin_toml_is_named_and_a_pyproject_not_utf8_is_not_moccasins(tmp_path: Path) -> None:
    (tmp_path / "moccasin.toml").write_bytes(b"[project]\nsrc = \"s\xe9\"\n")
    _said_well(_config_error(tmp_path), tmp_path / "moccasin.toml", "line 2, column 9")
    (tmp_path / "moccasin.toml").unlink()
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.x]\nname = \"\xe9\"\n")
    assert load(tmp_path).path is None  # no settings of evmstate's or moccasin's: the defaults


def test_the_bounds_are_taken_at_their_edges(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text(
        "[accounts]\ncount = 1000\n[hypothesis]\nstateful_step_count = 1000\ndeadline = 86400000\nseed = -9223372036854775808\n"
        "[chain]\ntimestamp = 9223372036854775807\ngas_limit = 9223372036854775807\n[fuzz]\ncall_timeout = 86400\n[fork]\ntimeout = 3600\n"
    )
    cfg = load(tmp_path)
    assert (cfg.accounts.count, cfg.hypothesis.stateful_step_count, cfg.chain.timestamp, cfg.fork.timeout) == (1000, 1000, INT64, 3600.0)


def test_the_command_says_it_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.cli.helpers import invoke

    monkeypatch.chdir(tmp_path)
    (tmp_path / CONFIG_NAME).write_text("[backend]\nname = 100000\n")
    code, out = invoke("run")
    assert code == 2 and f"{tmp_path / CONFIG_NAME}: [backend] name = 100000 is not a backend" in out
    code, out = invoke("run", "--steps", "5000")
    assert code == 2 and "5000 is not in the range 1<=x<=1000" in out
