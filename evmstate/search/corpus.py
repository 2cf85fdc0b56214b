"""The guidance corpus that outlasts one shard: each machine's kept runs, saved and loaded again.

Coverage guidance (guidance.py) keeps the runs that reached new code. A campaign's shard
publishes each run it keeps to the machine's corpus as soon as it keeps it, and a shard that
starts loads the corpus first: every shard of a campaign, every worker (local processes, or
Dask workers through a Redis server), and the next campaign continue from what the others
kept. A loaded run comes with the coverage it reached, so a shard keeps only runs that reach
code no saved run reached: it extends the saved runs instead of keeping its own first,
shallower ones again.

Where: a folder per machine under .evmstate/corpus/ (FolderStore), or the Redis server the
example database is on (engine.examples.corpus_store). A store holds, per machine (keyed by
its id, path::name), a set of values, each one kept run: a header line with the format
number, then the run compressed (JSON: the choices, where its steps that reached new code
are, the coverage it reached, and the fingerprint of what it ran on).

What makes a saved run stale: its fingerprint covers the format number, evmstate's version and
the code of its modules that decide what a run draws, Hypothesis's version, the machine's id and
module file, every contract's deploy and runtime code, and the [accounts], [chain] and [fuzz]
settings. A run saved under another fingerprint is never loaded and is removed from the store
(a choice sequence replayed on changed code would be harmless, since guidance draws afresh where
a replayed choice no longer fits, but the coverage saved with it would be wrong). A value that
cannot be read is set aside (renamed in a folder, moved to the machine's key plus "/unreadable"
on Redis), never loaded, never lost.
Size: at most MAX_ENTRIES runs per machine after each load (runs whose coverage others cover
go first, then the oldest), MAX_BYTES per run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import socket
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Protocol

import hypothesis

from ..files import code_digest, version, write_atomic
from .guidance import Choice, Entry

if TYPE_CHECKING:
    from ..contracts.project import Project

# bumped whenever what a saved run means changes (how draws are made, what is saved); 2: coverage per deployment
FORMAT = 2
MAGIC = b"evmstate-corpus"
MAX_ENTRIES = 256  # kept runs per machine
MAX_BYTES = 1 << 20  # one saved run, compressed
FOLDER = "corpus"  # under .evmstate/
REDIS_PREFIX = b"evmstate-corpus:"  # on a Redis server: this, then the machine's id
REDIS_ASIDE = b"/unreadable"  # ...and this after it, for the values set aside
REDIS_EXPIRY = 30 * 86400  # seconds a machine's corpus stays on a Redis server after its last write

Feature = tuple[str, str, bool, int]  # (deployment, contract, deploy code?, hit) of coverage.Identity and its hits




class Store(Protocol):
    """Where corpora live: a set of values per key (a folder, or a Redis server)."""

    def fetch(self, key: bytes) -> Iterable[bytes]: ...

    def save(self, key: bytes, value: bytes) -> None: ...

    def delete(self, key: bytes, value: bytes) -> None: ...

    def set_aside(self, key: bytes, value: bytes) -> str:
        """Keep an unreadable value out of the way (never loaded again); says where it went."""


class Unreadable(Exception):
    """A saved value that is not a corpus entry this evmstate can read."""


class Stale(Exception):
    """A saved entry of another format, or made for other code."""


@dataclass
class Saved:
    """One kept run as saved: the entry guidance extends, the coverage it reached, when and by whom."""

    entry: Entry
    features: frozenset[Feature]
    at: float
    by: str
    value: bytes = field(repr=False, default=b"")


# -- fingerprint -----------------------------------------------------------------------------


# the modules whose code decides which choices a run draws (the comparison operands the hooks
# record are dictionary values): evmstate's version alone does not change between two checkouts of it
DRAWING = (
    "evmstate.engine.program",
    "evmstate.engine.machine_run",
    "evmstate.engine.example",
    "evmstate.engine.native",
    "evmstate.search.native.choices",
    "evmstate.search.native.mutations",
    "evmstate.engine.swarm",
    "evmstate.engine.delays",
    "evmstate.strategies",
    "evmstate.search.dictionary",
    "evmstate.search.constants",
    "evmstate.search.guidance",
    "evmstate.search.session",
    "evmstate.evm.pyevm.opcodes",
)


@functools.lru_cache(maxsize=1)
def evmstate_code() -> str:
    """evmstate's version and a hash of the code of the DRAWING modules (a name that no longer resolves raises)."""
    return code_digest(DRAWING, salt=version())


def fingerprint(project: "Project", machine_id: str, module: Path | None) -> str:
    """What a saved run depends on (see the module's docstring): runs saved under another are stale."""
    h = hashlib.sha256()
    config = project.config
    parts = [
        str(FORMAT), evmstate_code(), hypothesis.__version__, machine_id, repr(config.accounts), repr(config.chain),
        repr(config.fuzz),
    ]
    for part in parts:
        h.update(part.encode() + b"\0")
    h.update(hashlib.sha256(module.read_bytes()).digest() if module is not None and module.is_file() else b"-")
    for name, artifact in sorted(project.artifacts.items()):
        h.update(
            name.encode() + b"\0" + hashlib.sha256(artifact.bytecode).digest()
            + hashlib.sha256(artifact.bytecode_runtime).digest()
        )
    return h.hexdigest()[:32]


# -- the format ------------------------------------------------------------------------------


class Intervals(tuple):
    """A string draw's character intervals as saved: equal to the IntervalSet a live draw gets.

    Guidance compares a replayed choice's constraints with the live draw's; only the value
    replayed goes to Hypothesis, so this stands in for Hypothesis's IntervalSet there.
    """

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Intervals):
            return tuple(self) == tuple(other)
        found = getattr(other, "intervals", None)
        return found is not None and tuple(map(tuple, found)) == tuple(self)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return {"f": value.hex()}
    if isinstance(value, bytes):
        return {"b": value.hex()}
    if isinstance(value, dict):
        return {"d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    intervals = getattr(value, "intervals", None)
    if isinstance(intervals, tuple):
        return {"i": [list(pair) for pair in intervals]}
    if isinstance(value, (tuple, list)):
        return {"t": [_encode(v) for v in value]}
    raise TypeError(f"a choice holds a {type(value).__name__}, which a corpus cannot save")


def _decode(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    ((tag, inner),) = value.items()
    if tag == "f":
        return float.fromhex(inner)
    if tag == "b":
        return bytes.fromhex(inner)
    if tag == "d":
        return {_decode(k): _decode(v) for k, v in inner}
    if tag == "i":
        return Intervals(tuple(pair) for pair in inner)
    if tag == "t":
        return tuple(_decode(v) for v in inner)
    raise ValueError(f"unknown tag {tag!r}")


def encode(
    entry: Entry, features: Iterable[Feature], fingerprint: str, at: float | None = None, by: str | None = None
) -> bytes:
    """One kept run as saved; TypeError when a choice holds what the format cannot hold."""
    # a strategy's choices share one constraints object: each is encoded once
    shared: dict[int, Any] = {}

    def constraints_of(constraints: Any) -> Any:
        done = shared.get(id(constraints))
        if done is None:
            done = shared[id(constraints)] = _encode(constraints)
        return done

    payload = {
        "evmstate": version(),
        "fingerprint": fingerprint,
        "at": time.time() if at is None else at,
        "by": by if by is not None else f"{socket.gethostname()}:{os.getpid()}",
        "head": entry.head,
        "spans": [list(s) for s in entry.spans],
        "choices": [[kind, constraints_of(constraints), _encode(value)] for kind, constraints, value in entry.choices],
        "features": sorted(list(f) for f in features),
    }
    body = zlib.compress(json.dumps(payload, separators=(",", ":")).encode())
    return MAGIC + b" " + str(FORMAT).encode() + b"\n" + body


def decode(value: bytes, fingerprint: str) -> Saved:
    """The saved run in value; Unreadable when it is not one, Stale when it is of another format or fingerprint."""
    first, sep, body = value.partition(b"\n")
    magic, _, number = first.partition(b" ")
    if magic != MAGIC or not sep or not number.isdigit():
        raise Unreadable("not a corpus entry")
    if int(number) != FORMAT:
        raise Stale(f"format {int(number)}")
    try:
        payload = json.loads(zlib.decompress(body))
        if payload["fingerprint"] != fingerprint:
            raise Stale("made for other code")
        choices: list[Choice] = []
        for kind, constraints, drawn in payload["choices"]:
            decoded = _decode(constraints)
            if not isinstance(kind, str) or not isinstance(decoded, dict):
                raise ValueError("a choice is not (kind, constraints, value)")
            choices.append((kind, decoded, _decode(drawn)))
        spans = [(int(a), int(b)) for a, b in payload["spans"]]
        features = frozenset((str(label), str(n), bool(d), int(h)) for label, n, d, h in payload["features"])
        entry = Entry(choices, int(payload["head"]), spans)
        return Saved(entry, features, float(payload["at"]), str(payload["by"]), value)
    except Stale:
        raise
    except (zlib.error, ValueError, KeyError, TypeError, AttributeError) as e:
        raise Unreadable(f"damaged ({e})") from None


# -- the size bound --------------------------------------------------------------------------


def over_bound(saved: list[Saved], limit: int) -> list[Saved]:
    """The runs to drop so that limit remain: first those whose coverage the others all reach (oldest first), then the
    oldest.
    """
    if len(saved) <= limit:
        return []
    order = sorted(saved, key=lambda s: (s.at, s.value))
    counts: dict[Feature, int] = {}
    for s in order:
        for f in s.features:
            counts[f] = counts.get(f, 0) + 1
    dropped: list[Saved] = []
    excess = len(saved) - limit
    for s in order:
        if len(dropped) == excess:
            return dropped
        if all(counts[f] > 1 for f in s.features):
            dropped.append(s)
            for f in s.features:
                counts[f] -= 1
    gone = {id(s) for s in dropped}
    rest = [s for s in order if id(s) not in gone]
    return dropped + rest[: excess - len(dropped)]


# -- one machine's corpus --------------------------------------------------------------------


class Corpus:
    """One machine's saved runs in a store: load() once when its search starts, publish() each run it keeps."""

    def __init__(self, store: Store, machine_id: str, fingerprint: str, *, replay: bool = False) -> None:
        self.store = store
        self.key = machine_id.encode()
        self.fingerprint = fingerprint
        # replay each saved run whole, first, instead of extending them (evmstate mutate's first pass)
        self.replay = replay
        self.loaded = 0
        self.published = 0
        self.stale = 0  # removed: another format or fingerprint
        self.pruned = 0  # removed: over the bound
        self.set_aside: list[str] = []  # unreadable values, where they went
        self.error: str | None = None  # the store failed: the search goes on without it

    @classmethod
    def of(cls, store: Store, project: "Project", machine_id: str, *, replay: bool = False) -> "Corpus":
        """The corpus of the machine machine_id (path::name, path relative to the project's root), saved for project's
        code.
        """
        path = machine_id.rpartition("::")[0]
        return cls(
            store, machine_id, fingerprint(project, machine_id, project.config.root / path if path else None),
            replay=replay,
        )

    def load(self) -> list[Saved]:
        """The machine's saved runs, oldest first; stale ones removed, unreadable ones set aside, the rest bounded."""
        found: list[Saved] = []
        try:
            for value in list(self.store.fetch(self.key)):
                try:
                    found.append(decode(value, self.fingerprint))
                except Stale:
                    self.store.delete(self.key, value)
                    self.stale += 1
                except Unreadable:
                    self.set_aside.append(self.store.set_aside(self.key, value))
            dropped = over_bound(found, MAX_ENTRIES)
            for s in dropped:
                self.store.delete(self.key, s.value)
            self.pruned += len(dropped)
        except Exception as e:  # the store is not there or not readable: search without it
            self.error = f"could not be read ({type(e).__name__}: {e})"
            return []
        gone = {id(s) for s in dropped}
        kept = sorted((s for s in found if id(s) not in gone), key=lambda s: (s.at, s.value))
        self.loaded = len(kept)
        return kept

    def publish(self, entry: Entry, features: Iterable[Feature]) -> None:
        """Save one kept run; a store that fails is left alone for the rest of the search."""
        if self.error is not None:
            return
        try:
            value = encode(entry, features, self.fingerprint)
        except TypeError:
            return  # a choice the format cannot hold: this run is not saved
        if len(value) > MAX_BYTES:
            return
        try:
            self.store.save(self.key, value)
        except Exception as e:
            self.error = f"could not be written ({type(e).__name__}: {e})"
            return
        self.published += 1

    def statistics(self) -> dict[str, str]:
        """The machine's statistics line about its corpus."""
        text = f"{self.loaded} kept runs loaded, {self.published} added"
        if self.stale:
            text += f", {self.stale} stale removed"
        if self.pruned:
            text += f", {self.pruned} over the bound of {MAX_ENTRIES} removed"
        if self.set_aside:
            text += f", {len(self.set_aside)} unreadable set aside ({', '.join(self.set_aside)})"
        if self.error is not None:
            text += f"; the corpus {self.error}"
        return {"corpus": text}


class GivenStore:
    """Saved runs handed over as values (fetched from a store elsewhere): read, never written.

    evmstate mutate replays a machine's corpus on mutants of the code it was saved for: a run of a
    mutant must leave the corpus of the real code as it found it, so nothing is saved, deleted or
    set aside.
    """

    def __init__(self, values: Iterable[bytes]) -> None:
        self.values = tuple(values)

    def __repr__(self) -> str:
        return f"GivenStore({len(self.values)} runs)"

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.values

    def save(self, key: bytes, value: bytes) -> None:
        pass

    def delete(self, key: bytes, value: bytes) -> None:
        pass

    def set_aside(self, key: bytes, value: bytes) -> str:
        return "left where it is"


class FolderStore:
    """Corpora in a folder: a folder per machine, a file per saved run, named by its hash.

    A run is written to a temporary file in its machine's folder and renamed into place, so a
    reader never sees half of it and any number of processes may write at once.
    """

    SUFFIX = ".run"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._where: dict[tuple[bytes, str], Path] = {}  # the file each value fetched came from

    @staticmethod
    def _hash(value: bytes) -> str:
        return hashlib.sha256(value).hexdigest()[:20]

    def __repr__(self) -> str:
        return f"FolderStore({str(self.path)!r})"

    def folder(self, key: bytes) -> Path:
        name = key.decode("utf-8", "replace")
        readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", name.replace("::", "--")).strip("._")[:80]
        return self.path / f"{readable}-{hashlib.sha256(key).hexdigest()[:8]}"

    def _file(self, key: bytes, value: bytes) -> Path:
        found = self._where.get((key, self._hash(value)))
        return found if found is not None else self.folder(key) / (self._hash(value) + self.SUFFIX)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        folder = self.folder(key)
        if not folder.exists():
            return
        for name in sorted(os.listdir(folder)):
            if name.endswith(self.SUFFIX) and not name.startswith("."):
                try:
                    value = (folder / name).read_bytes()
                except FileNotFoundError:
                    continue  # removed since the listing
                self._where[(key, self._hash(value))] = folder / name
                yield value

    def save(self, key: bytes, value: bytes) -> None:
        target = self._file(key, value)
        if target.exists():
            return
        write_atomic(target, value)

    def delete(self, key: bytes, value: bytes) -> None:
        self._file(key, value).unlink(missing_ok=True)

    def set_aside(self, key: bytes, value: bytes) -> str:
        source = self._file(key, value)
        target = source.with_name(source.name + ".unreadable")
        try:
            os.replace(source, target)
        except FileNotFoundError:
            pass  # another process set it aside first
        return str(target)
