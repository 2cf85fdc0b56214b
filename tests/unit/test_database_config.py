"""[database] url: a folder (the default) or a Redis server."""

from pathlib import Path

import pytest

from evmstate.config import from_dict
from evmstate.errors import ConfigError
from evmstate.engine.database import SharedDirectoryDatabase, open_database


def test_the_default_is_the_examples_folder(tmp_path: Path) -> None:
    cfg = from_dict({}, root=tmp_path)
    assert cfg.examples_dir == tmp_path / ".evmstate" / "examples" and not cfg.database.is_redis
    assert open_database(cfg) == SharedDirectoryDatabase(tmp_path / ".evmstate" / "examples")


def test_a_folder_is_relative_to_the_root(tmp_path: Path) -> None:
    cfg = from_dict({"database": {"url": "shared/examples"}}, root=tmp_path)
    assert cfg.examples_dir == tmp_path / "shared" / "examples"


@pytest.mark.parametrize("url", ["redis://localhost:6379/0", "rediss://h:6380/1", "unix:///run/redis.sock"])
def test_redis_urls(tmp_path: Path, url: str) -> None:
    cfg = from_dict({"database": {"url": url}}, root=tmp_path)
    assert cfg.database.is_redis and cfg.examples_dir is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"url": "postgres://db/x"}, r"postgres:// is not a database evmstate can use. Give a folder"),
        ({"url": ""}, r"\[database\] url must be a folder or a Redis URL"),
        ({"url": 3}, r"\[database\] url must be a folder or a Redis URL"),
        ({"uri": "redis://h"}, r"unknown key 'uri' in \[database\]. Did you mean 'url'\?"),
    ],
)
def test_bad_database_settings_say_what_to_write(tmp_path: Path, body: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_dict({"database": body}, root=tmp_path)
