"""Hypothesis's example database as evmstate opens it: a folder safe for many writers, or Redis;
and where the guidance corpus (search.corpus) lives beside it.

Neither is ever part of a verdict. A Redis server that does not answer, or a URL that is not one,
is an error before anything runs (check_database). Once a run is under way, the first error of
either store (a server that died, a full or read-only disk) is told once as a warning (Fallible)
and the process goes on without that store: nothing is replayed from it or saved to it, and no
machine fails because of it.

The only module that imports redis (through hypothesis.extra.redis, and for the corpus).
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

from hypothesis.database import ExampleDatabase

from ..config import CONFIG_NAME, Config, shown
from ..errors import ConfigError, ResourceError, remedy, why
from ..files import write_atomic

_ATTEMPTS = 20  # a key folder removed under a writer is made again; this many times at most


def _hash(data: bytes) -> str:
    # the names Hypothesis's DirectoryBasedExampleDatabase gives keys and values: folders
    # written by either are read by the other
    return hashlib.sha384(data).hexdigest()[:16]


class SharedDirectoryDatabase(ExampleDatabase):
    """An example database in a folder that many processes may write at once.

    The layout is Hypothesis's DirectoryBasedExampleDatabase's (a folder per key, a file per
    value, named by hash), but no write can be lost or seen half done: a value is written to a
    temporary file inside its key's folder and renamed into place, so it never crosses file
    systems and the folder cannot be removed while the file is being written; a key folder that
    another process removed (its last value deleted) between the two steps is made again.
    A value's file name is its hash, so a value is never held twice under one key.
    """

    _METAKEYS = b".hypothesis-keys"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"SharedDirectoryDatabase({str(self.path)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SharedDirectoryDatabase) and self.path == other.path

    def __hash__(self) -> int:
        return hash(self.path)

    def _key_path(self, key: bytes) -> Path:
        return self.path / _hash(key)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        folder = self._key_path(key)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return
        for name in names:
            if name.startswith("."):
                continue  # a value still being written
            try:
                yield (folder / name).read_bytes()
            except OSError:
                pass  # deleted since the listing

    def save(self, key: bytes, value: bytes) -> None:
        if key != self._METAKEYS:
            self.save(self._METAKEYS, key)  # Hypothesis's tools list keys from here
        folder = self._key_path(key)
        target = folder / _hash(value)
        for _ in range(_ATTEMPTS):
            if target.exists():
                return
            try:
                write_atomic(target, value)
                return
            except (FileNotFoundError, FileExistsError):
                # the folder was removed while writing, or between another writer making it and
                # mkdir seeing it (pathlib then raises FileExistsError)
                continue
        raise OSError(f"could not save an example in {folder}: the folder kept being removed")

    def delete(self, key: bytes, value: bytes) -> None:
        folder = self._key_path(key)
        try:
            (folder / _hash(value)).unlink()
        except OSError:
            return
        try:
            folder.rmdir()  # only when empty; a writer's temporary file keeps it
        except OSError:
            return
        if key != self._METAKEYS:
            self.delete(self._METAKEYS, key)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        # saved under dest before it leaves src: a reader may see it under both, never under neither
        self.save(dest, value)
        if src != dest:
            self.delete(src, value)


_redis_lock = threading.Lock()
_redis: dict[tuple[int, str], ExampleDatabase] = {}


def redis_database(url: str) -> ExampleDatabase:
    """The Redis example database at url: one client per process, made on first use."""
    key = (os.getpid(), url)  # a client's connections must not cross into a forked child
    with _redis_lock:
        if key not in _redis:
            _redis[key] = _open_redis(url)
        return _redis[key]


def _open_redis(url: str) -> ExampleDatabase:
    return _redis_class(url)(url)


@functools.lru_cache(maxsize=None)
def _redis_class_cached() -> type:
    from hypothesis.extra.redis import RedisExampleDatabase

    class ServicedRedisDatabase(RedisExampleDatabase):
        """Hypothesis's Redis database, listening for real and equal to any other on the same server.

        The stock class subscribes to its change channel when a listener is added but never
        reads it, so changes pile up unseen; here a thread services the subscription. It also
        compares equal only by client object: here by the server's URL.
        """

        def __init__(self, url: str) -> None:
            super().__init__(_client(url), key_prefix=b"evmstate-example:")
            self.url = url
            self._thread: Any = None

        def __eq__(self, other: object) -> bool:
            return isinstance(other, ServicedRedisDatabase) and self.url == other.url

        def __hash__(self) -> int:
            return hash(self.url)

        def __repr__(self) -> str:
            return f"RedisExampleDatabase({self.url!r})"

        def _start_listening(self) -> None:
            super()._start_listening()
            self._thread = self._pubsub.run_in_thread(sleep_time=0.05, daemon=True)

        def _stop_listening(self) -> None:
            if self._thread is not None:
                self._thread.stop()
                self._thread.join(timeout=1)
                self._thread = None
            super()._stop_listening()

    return ServicedRedisDatabase


def _redis_class(url: str) -> type:
    try:
        return _redis_class_cached()
    except ImportError:
        raise ConfigError(f"[database] url = {url!r} needs the redis client: pip install \"evmstate[redis]\"") from None


# seconds to connect to the Redis server, and to wait for each of its answers: a server that hangs
# is told as one that died, instead of holding the run
REDIS_TIMEOUT = 10.0


def _client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT)


def shown_url(url: str) -> str:
    """A Redis URL as messages show it: its password, if it has one, left out."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def url_problem(url: str) -> str | None:
    """Why url is not a Redis URL evmstate can use (no host, a port or database that is not a number), None when it is
    one.
    """
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return None if parts.path else "it names no socket file"
    try:
        parts.port
    except ValueError:
        return f"its port, {parts.netloc.rpartition(':')[2]!r}, is not a number from 0 to 65535"
    if not parts.hostname:
        return "it names no host"
    db = parts.path.strip("/")
    if db and not db.isdigit():
        return f"the database after the host, {db!r}, is not a number"
    return None


def check_database(config: Config) -> None:
    """Raise before anything runs when [database] url cannot be used: a ConfigError when it is not a Redis URL, a
    ResourceError naming the server when it does not answer. A folder is not checked: one that cannot be written
    is a warning when it happens, and the run goes on without it.

    Also starts a new command's book of failed stores (Fallible): each is told once per command.
    """
    _dropped.clear()
    if not config.database.is_redis:
        return
    url = config.database.url
    where = shown(config.path) if config.path is not None else CONFIG_NAME
    problem = url_problem(url)
    if problem is not None:
        raise ConfigError(
            f"{where}: [database] url = {shown_url(url)!r} is not a Redis URL: {problem}. Write redis://host:6379/0 "
            "(rediss:// for TLS, unix:///path/to/redis.sock for a socket), or a folder such as \".evmstate/examples\"."
        )
    _redis_class(url)  # the client is installed
    try:
        _client(url).ping()
    except Exception as exc:
        raise ResourceError(
            f"the example database at {shown_url(url)} ([database] url in {where}) "
            f"does not answer ({why(exc)}). Nothing was run. "
            "Start the Redis server (or correct the URL), "
            'or set url to a folder such as ".evmstate/examples" to run without one.',
            where=shown_url(url),
        ) from None


# -- stores a run can do without ---------------------------------------------------------------

# the stores that failed in this process since its command started (check_database clears it): (pid, where)
_dropped: set[tuple[int, str]] = set()


class Fallible:
    """A store a run can do without (the example database, the guidance corpus), as one machine's run uses it.

    The store's first error (a server that died, a full or read-only disk) is told once through warn, and
    from then on this process leaves the store alone: nothing more is read from it (an empty answer) or
    written to it. Nothing in a store call is the machine's doing, so no error of it is a verdict.
    """

    def __init__(
        self, where: str, said: Callable[[BaseException], str], warn: Callable[[str], None] | None = None
    ) -> None:
        self.where = where
        self.said = said  # the warning an error of the store gives
        self.warn = warn

    @property
    def dropped(self) -> bool:
        return (os.getpid(), self.where) in _dropped

    def call(self, fn: Callable[..., Any], *args: Any, default: Any = None, raising: bool = False) -> Any:
        """fn(*args), or default once the store has failed (now or earlier in this process).

        raising: the error is raised instead (once the store failed, a ResourceError without asking it), for
        callers that keep their own account of it (search.corpus.Corpus); it is still told once.
        """
        if self.dropped:
            if raising:
                raise ResourceError(f"{self.where} failed earlier in this run, and is left alone", where=self.where)
            return default
        try:
            return fn(*args)
        except Exception as exc:
            _dropped.add((os.getpid(), self.where))
            if self.warn is not None:
                self.warn(self.said(exc))
            if raising:
                raise
            return default

    @classmethod
    def examples(cls, config: Config, warn: Callable[[str], None] | None = None) -> "Fallible":
        """The example database of config."""
        if config.database.is_redis:
            return cls.redis(config, warn)
        assert config.examples_dir is not None
        folder = shown(config.examples_dir) + "/"
        return cls(
            folder,
            lambda exc: (
                f"the example database in {folder} could not be used ({why(exc)}): "
                "the run goes on without it, so the next run "
                f"does not start from the examples of this one. {remedy(exc, folder)}"
            ),
            warn,
        )

    @classmethod
    def corpus(cls, config: Config, folder: Path, warn: Callable[[str], None] | None = None) -> "Fallible":
        """The guidance corpus of config (kept in folder when not on Redis)."""
        if config.database.is_redis:
            return cls.redis(config, warn)
        where = shown(folder) + "/"
        return cls(
            where,
            lambda exc: (
                f"the guidance corpus in {where} could not be used ({why(exc)}): "
                "the campaign goes on without it, so the runs "
                f"its shards keep from now on are not saved for the next shard or campaign. {remedy(exc, where)}"
            ),
            warn,
        )

    @classmethod
    def redis(cls, config: Config, warn: Callable[[str], None] | None = None) -> "Fallible":
        """The Redis server of [database] url: the example database and the guidance corpus, which fail together."""
        url = shown_url(config.database.url)
        return cls(
            url,
            lambda exc: (
                f"the Redis server of the example database, {url}, stopped answering ({why(exc)}): "
                "the run goes on without it, so "
                "nothing more is replayed from it or saved to it (examples, a campaign's corpus); "
                "failure records are still saved in "
                ".evmstate/failures/. Start the server again for the next run."
            ),
            warn,
        )


class FallibleStore:
    """A corpus store (search.corpus.Store) through a Fallible: its first error is told once as a warning, and raised
    to search.corpus.Corpus, which searches on without the store and says so in its statistics."""

    def __init__(self, inner: Any, guard: Fallible) -> None:
        self.inner, self.guard = inner, guard

    def __repr__(self) -> str:
        return repr(self.inner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # FolderStore.folder(), for those who look inside

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.guard.call(lambda: list(self.inner.fetch(key)), raising=True)

    def save(self, key: bytes, value: bytes) -> None:
        self.guard.call(self.inner.save, key, value, raising=True)

    def delete(self, key: bytes, value: bytes) -> None:
        self.guard.call(self.inner.delete, key, value, raising=True)

    def set_aside(self, key: bytes, value: bytes) -> str:
        return self.guard.call(self.inner.set_aside, key, value, raising=True)


def open_database(config: Config) -> ExampleDatabase:
    """The example database evmstate.toml's [database] url names (the .evmstate/examples folder by default)."""
    if config.database.is_redis:
        return redis_database(config.database.url)
    assert config.examples_dir is not None
    return SharedDirectoryDatabase(config.examples_dir)


def replayed_first(config: Config, *, corpus: bool = False) -> str | None:
    """Where a run would replay saved examples from before its seed's own search (corpus: a campaign's guidance runs
    too), as the seed line names it; None when nothing is saved. A folder is looked into; a Redis server is named, not
    asked."""
    from ..search import corpus as corpora  # only to name its folder

    places = []
    if config.database.is_redis:
        places.append(f"examples{' and guidance runs' if corpus else ''} saved on {config.database.url}")
    else:
        assert config.examples_dir is not None
        if _holds_values(config.examples_dir, skip=_hash(SharedDirectoryDatabase._METAKEYS)):
            places.append(f"failing examples saved in {shown(config.examples_dir)}/")
        if corpus and _holds_values(config.state_dir / corpora.FOLDER):
            places.append(f"guidance runs saved in {shown(config.state_dir / corpora.FOLDER)}/")
    return " and ".join(places) or None


def _holds_values(folder: Path, skip: str = "") -> bool:
    """Whether a store's folder holds a value: a file, not being written, in one of its key folders."""
    try:
        keys = [k for k in folder.iterdir() if k.is_dir() and k.name != skip]
        return any(not f.name.startswith(".") for k in keys for f in k.iterdir())
    except OSError:
        return False


# ShrunkExamples.outcome of a run that failed as a failure known before (keep-going): counted, and ended as a pass
KNOWN = ("known failure",)


class ShrunkExamples(ExampleDatabase):
    """One machine's view of the example database, holding only examples it reported shrunk.

    Hypothesis saves every failing example it meets. With report_multiple_bugs off, those of
    a second bug found while shrinking the first are never shrunk, and a later run that
    replays a saved example exactly skips shrinking: it would report them as found. So saves
    are held back until the run ends, and only the example of the reported failure is written
    (commit()). Keys are prefixed with a format tag and the machine's id, so machines sharing
    one test function do not mix and examples saved by earlier formats are never replayed.
    """

    FORMAT = b"evmstate-examples-2"

    def __init__(self, inner: ExampleDatabase, prefix: bytes, guard: Fallible | None = None) -> None:
        super().__init__()
        self.inner = inner
        # every call of inner goes through it: an error of the database is a warning, never the machine's failure
        self.guard = (
            guard
            if guard is not None
            else Fallible(repr(inner), lambda exc: f"the example database {inner!r} failed: {why(exc)}")
        )
        self.prefix = self.FORMAT + b"\0" + prefix + b"\0"
        self.outcome: Any = None  # what the run that just ended did; the runner sets it
        self.fetched = 0  # saved examples handed to Hypothesis, which replays them first
        self._pending: dict[tuple[bytes, bytes], Any] = {}  # (key, value) -> outcome

    def save(self, key: bytes, value: bytes) -> None:
        # Hypothesis saves an example right after the run that made it
        self._pending[(key, value)] = self.outcome

    def fetch(self, key: bytes) -> Iterable[bytes]:
        stored = self.guard.call(lambda: list(self.inner.fetch(self.prefix + key)), default=[])
        self.fetched += len(stored)
        yield from stored
        yield from [v for (k, v) in list(self._pending) if k == key and v not in stored]

    def delete(self, key: bytes, value: bytes) -> None:
        if self.outcome is KNOWN:
            # Hypothesis drops a saved example that replays without failing; this one failed, as a known failure
            # counted and ended as a pass: it stays, for the next search to replay first
            return
        self._pending.pop((key, value), None)
        self.guard.call(self.inner.delete, self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if self._pending.pop((src, value), "absent") != "absent":
            return  # a pending example that a smaller one replaced: never written
        self.guard.call(self.inner.move, self.prefix + src, self.prefix + dest, value)

    def commit(self, outcome: Any) -> None:
        """Write the held examples whose run ended as the reported failure did; drop the rest."""
        for (key, value), seen in self._pending.items():
            if outcome is not None and seen == outcome:
                self.guard.call(self.inner.save, self.prefix + key, value)
        self._pending.clear()



# -- the guidance corpus (search.corpus) ------------------------------------------------------


class RedisCorpusStore:
    """Corpora on a Redis server: a set per machine under prefix, dropped expiry seconds after its last write."""

    def __init__(self, url: str, prefix: bytes, expiry: int, aside: bytes) -> None:
        try:
            import redis  # noqa: F401  (only whether the client is installed)
        except ImportError:
            raise ConfigError(
                f'[database] url = {url!r} needs the redis client: pip install "evmstate[redis]"'
            ) from None
        self.url, self.prefix, self.expiry, self.aside = url, prefix, expiry, aside
        self.client = _client(url)

    def __repr__(self) -> str:
        return f"RedisCorpusStore({self.url!r})"

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return sorted(self.client.smembers(self.prefix + key))

    def save(self, key: bytes, value: bytes) -> None:
        with self.client.pipeline() as pipe:
            pipe.sadd(self.prefix + key, value)
            pipe.expire(self.prefix + key, self.expiry)
            pipe.execute()

    def delete(self, key: bytes, value: bytes) -> None:
        self.client.srem(self.prefix + key, value)

    def set_aside(self, key: bytes, value: bytes) -> str:
        aside = self.prefix + key + self.aside
        self.client.smove(self.prefix + key, aside, value)
        return f"{aside.decode()} on {self.url}"


_corpus_stores: dict[tuple[int, str], RedisCorpusStore] = {}


def corpus_store(config: Config, warn: Callable[[str], None] | None = None) -> Any:
    """Where machines' guidance corpora live: the Redis server of [database] url, else .evmstate/corpus.

    Through a Fallible: the store's first error is told to warn, and the search goes on without it.
    """
    # imported here: only campaigns keep a corpus
    from ..search import corpus

    folder = config.state_dir / corpus.FOLDER
    guard = Fallible.corpus(config, folder, warn)
    if not config.database.is_redis:
        return FallibleStore(corpus.FolderStore(folder), guard)
    key = (os.getpid(), config.database.url)  # a client's connections must not cross into a forked child
    with _redis_lock:
        if key not in _corpus_stores:
            _corpus_stores[key] = RedisCorpusStore(
                config.database.url, corpus.REDIS_PREFIX, corpus.REDIS_EXPIRY, corpus.REDIS_ASIDE
            )
        return FallibleStore(_corpus_stores[key], guard)
