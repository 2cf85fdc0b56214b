"""What `evmstate mutate` keeps between runs, in .evmstate/mutants/: one JSON file per entry, written atomically.

Four kinds, each keyed by a hash of everything its content depends on:
  baseline/  a machine or test on the real code (its module, the sources of the contracts it
             deploys, the budget and seed, its saved failures and corpus, evmstate and Hypothesis)
  compiled/  a mutant compiled: what its code is, or why it does not compile (by the mutated
             file's text and every other file its contracts compile from, the compiler settings)
  build/     the compiled contracts of such a mutant, read only when it is judged
  verdict/   a mutant judged: by the mutant and by the keys of the machines and tests that judged it
so that a second run judges again only what changed. An entry no run has used for STALE seconds
is removed, and so are the oldest beyond MAX_ENTRIES of a kind: a narrower run (--function) keeps
what a wider one judged.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import time
from pathlib import Path
from typing import Any, Callable

from ..config import shown
from ..errors import ResourceError
from ..files import write_atomic

FORMAT = 1
KINDS = ("baseline", "compiled", "build", "verdict")
STALE = 30 * 86400  # seconds an entry stays unused before it goes
MAX_ENTRIES = 20000  # per kind


class MutationCache:
    """The folder of kept results; get/put by kind and key, and prune() at the end of a run.

    A folder that cannot be written (a full or read-only disk) is told once to warn, and the run goes
    on without keeping anything: what it finds is in memory until it ends.
    """

    def __init__(self, folder: Path, warn: Callable[[str], None] | None = None) -> None:
        self.folder = folder
        self.used: set[Path] = set()
        self.warn = warn
        self.failed = False  # a write failed: nothing more is written, nor pruned

    def _path(self, kind: str, key: str) -> Path:
        suffix = ".json.gz" if kind == "build" else ".json"
        return self.folder / kind / f"{key}{suffix}"

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The entry, or None when there is none (or it cannot be read: it is then made again)."""
        path = self._path(kind, key)
        try:
            raw = path.read_bytes()
            data = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
        except (OSError, ValueError, EOFError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        self.used.add(path)
        with contextlib.suppress(OSError):
            os.utime(path)
        return data["entry"]

    def put(self, kind: str, key: str, entry: dict[str, Any]) -> None:
        path = self._path(kind, key)
        body = json.dumps({"format": FORMAT, "entry": entry}, separators=(",", ":")).encode()
        if path.suffix == ".gz":
            body = gzip.compress(body, compresslevel=5)
        if self.failed:
            return
        try:
            write_atomic(path, body)
        except OSError as exc:
            self.failed = True
            where = shown(self.folder) + "/"
            if self.warn is not None:
                self.warn(
                    str(
                        ResourceError.unwritable(
                            "what evmstate mutate found", where, exc,
                            "the run goes on, and the next one judges every mutant again",
                        )
                    )
                )
            return
        self.used.add(path)

    def prune(self) -> int:
        """Remove the entries unused for STALE seconds, and the oldest beyond MAX_ENTRIES of a kind; how many went."""
        removed = 0
        now = time.time()
        for kind in KINDS if not self.failed else ():
            folder = self.folder / kind
            if not folder.is_dir():
                continue
            entries = sorted(folder.iterdir(), key=_mtime, reverse=True)
            for index, path in enumerate(entries):
                if path in self.used:
                    continue
                fresh = path.name.startswith(".tmp-") and now - _mtime(path) < 3600  # being written now
                if not fresh and (index >= MAX_ENTRIES or now - _mtime(path) > STALE or path.name.startswith(".tmp-")):
                    path.unlink(missing_ok=True)
                    removed += 1
        return removed


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
