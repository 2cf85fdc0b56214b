"""What evmstate mutate keeps between runs: entries written whole, read back, and removed only when long unused."""

from __future__ import annotations

import os
import time

from evmstate.mutate import cache as cache_mod
from evmstate.mutate.cache import MutationCache


def test_entries_come_back_as_written_and_a_damaged_one_is_as_none(tmp_path):
    kept = MutationCache(tmp_path)
    kept.put("verdict", "k1", {"kill": None, "seconds": 1.5})
    kept.put("build", "c1", {"artifacts": {"Token": {"abi": []}}})
    again = MutationCache(tmp_path)
    assert again.get("verdict", "k1") == {"kill": None, "seconds": 1.5}
    assert again.get("build", "c1") == {"artifacts": {"Token": {"abi": []}}}
    assert again.get("verdict", "missing") is None
    (tmp_path / "verdict" / "k1.json").write_text("{not json")
    assert MutationCache(tmp_path).get("verdict", "k1") is None


def test_a_narrower_run_keeps_what_a_wider_one_judged_and_long_unused_entries_go(tmp_path, monkeypatch):
    wide = MutationCache(tmp_path)
    for i in range(10):
        wide.put("verdict", f"k{i}", {"i": i})
    narrow = MutationCache(tmp_path)
    assert narrow.get("verdict", "k0") == {"i": 0}
    assert narrow.prune() == 0
    assert len(list((tmp_path / "verdict").iterdir())) == 10
    old = time.time() - cache_mod.STALE - 60
    os.utime(tmp_path / "verdict" / "k9.json", (old, old))
    monkeypatch.setattr(cache_mod, "MAX_ENTRIES", 8)
    assert MutationCache(tmp_path).prune() == 2  # k9, stale; and the oldest beyond 8 (k9 counts among them)
    assert not (tmp_path / "verdict" / "k9.json").exists()
    assert len(list((tmp_path / "verdict").iterdir())) == 8
