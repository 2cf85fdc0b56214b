"""The guidance corpus's storage: the saved format, staleness, unreadable values, the size bound."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evmstate.search.corpus import FORMAT, MAGIC, MAX_ENTRIES, Corpus, FolderStore, Saved, decode, encode, over_bound
from evmstate.search.guidance import Entry, Guide, register, unregister

KEY = "machines/m.py::M"


def kept_runs(guide: Guide, n: int = 30, replayed: list | None = None) -> list[Entry]:
    """Runs of a real Hypothesis test drawn through the guided provider, every kind of choice among them, each kept.

    replayed, when given, gets each run's choices and how many of them replayed a kept run's.
    """
    name = register(guide)
    strategies = st.tuples(st.booleans(), st.integers(), st.integers(0, 2**256 - 1), st.floats(), st.text(), st.binary(), st.sampled_from(range(7)))

    @settings(max_examples=n, database=None, backend=name, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.data())
    def test(data):
        guide.step_started()
        data.draw(strategies)
        guide.reached_new_code()
        guide.step_started()
        data.draw(st.text(alphabet="abc", min_size=1))
        guide.reached_new_code()
        if replayed is not None and guide.current is not None:
            replayed.append((list(guide.current.record), guide.current.replayed))
        guide.run_finished()

    try:
        test()
    finally:
        unregister(name)
    return guide.corpus


def same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


def test_saved_runs_read_back_as_they_were_and_replay_in_full():
    runs = kept_runs(Guide(0))
    assert len(runs) >= 20
    kinds = {kind for e in runs for kind, _, _ in e.choices}
    assert {"boolean", "integer", "float", "string", "bytes"} <= kinds
    saved = [decode(encode(e, [("weth", "Token", False, 7)], "fp"), "fp") for e in runs]
    for entry, back in zip(runs, saved):
        assert back.entry.head == entry.head and back.entry.spans == entry.spans
        assert back.features == {("weth", "Token", False, 7)}
        assert len(back.entry.choices) == len(entry.choices)
        for (k1, c1, v1), (k2, c2, v2) in zip(entry.choices, back.entry.choices):
            assert k1 == k2 and same_value(v1, v2)
            assert c2 == c1, (k1, c1, c2)  # as guidance compares them: a saved string's intervals equal the live ones
    # a guide that starts from the saved runs replays every choice of them, as drawn
    replaying = Guide(1)
    replaying.corpus.extend(s.entry for s in saved)
    seen: list = []
    kept_runs(replaying, 20, seen)
    assert replaying.stats.extended > 0
    whole = 0
    for record, count in seen:
        for s in saved:
            plan = s.entry.choices if count == len(s.entry.choices) else s.entry.distilled()
            if count == len(plan) and all(same_value(a[2], b[2]) for a, b in zip(record[:count], plan)):
                whole += any(kind == "string" for kind, _, _ in plan)
                break
    assert whole > 0, "no run replayed a whole saved run with strings in it"


def test_other_formats_and_fingerprints_are_stale_and_removed(tmp_path: Path):
    store = FolderStore(tmp_path)
    entry = Entry([("integer", {"min_value": 0, "max_value": 5, "weights": None, "shrink_towards": 0}, 3)], 0, [(0, 1)])
    mine = encode(entry, [], "fp-now", at=2.0)
    old_code = encode(entry, [], "fp-before", at=1.0)
    old_format = MAGIC + f" {FORMAT + 1}\n".encode() + mine.partition(b"\n")[2]
    for value in (mine, old_code, old_format):
        store.save(KEY.encode(), value)
    corpus = Corpus(store, KEY, "fp-now")
    (loaded,) = corpus.load()
    assert loaded.entry == entry
    assert corpus.stale == 2 and list(store.fetch(KEY.encode())) == [mine], "stale runs are removed"
    assert corpus.statistics() == {"corpus": "1 kept runs loaded, 0 added, 2 stale removed"}


def test_an_unreadable_value_is_set_aside_with_its_bytes_and_the_rest_loads(tmp_path: Path):
    store = FolderStore(tmp_path / "corpus")
    good = encode(Entry([("boolean", {"p": 0.5}, True)], 0, [(0, 1)]), [], "fp")
    store.save(KEY.encode(), good)
    folder = store.folder(KEY.encode())
    (folder / "garbage.run").write_bytes(b"\x00not a corpus entry")
    damaged = good[: len(good) // 2]
    (folder / "damaged.run").write_bytes(damaged)
    corpus = Corpus(store, KEY, "fp")
    assert [s.entry.choices for s in corpus.load()] == [[("boolean", {"p": 0.5}, True)]]
    assert (folder / "garbage.run.unreadable").read_bytes() == b"\x00not a corpus entry"
    assert (folder / "damaged.run.unreadable").read_bytes() == damaged
    assert sorted(Path(p).name for p in corpus.set_aside) == ["damaged.run.unreadable", "garbage.run.unreadable"]
    assert "2 unreadable set aside" in corpus.statistics()["corpus"]
    # set aside, they are not read again
    again = Corpus(store, KEY, "fp")
    assert len(again.load()) == 1 and again.set_aside == []


def test_a_store_that_cannot_be_used_leaves_the_search_without_it_and_touches_nothing(tmp_path: Path):
    blocker = tmp_path / "corpus"
    blocker.write_text("a file where the corpus folder would be")
    corpus = Corpus(FolderStore(blocker), KEY, "fp")
    assert corpus.load() == []
    corpus.publish(Entry([("boolean", {"p": 0.5}, True)], 0, [(0, 1)]), [])
    assert corpus.published == 0 and "could not be written (NotADirectoryError" in corpus.statistics()["corpus"]
    assert blocker.read_text() == "a file where the corpus folder would be"


def test_the_bound_drops_runs_others_cover_before_the_oldest():
    def saved(at: float, *hits: int) -> Saved:
        return Saved(Entry([], 0, []), frozenset(("C", "C", False, h) for h in hits), at, "", str(at).encode())

    old_unique, covered, newer = saved(1.0, 1), saved(2.0, 2), saved(3.0, 2, 3)
    assert over_bound([old_unique, covered, newer], 2) == [covered]
    assert over_bound([old_unique, newer], 1) == [old_unique]
    assert over_bound([old_unique, newer], 2) == []


def test_loading_keeps_at_most_the_bound(tmp_path: Path):
    store = FolderStore(tmp_path)
    for i in range(MAX_ENTRIES + 5):
        store.save(KEY.encode(), encode(Entry([("integer", {"min_value": 0, "max_value": 9999, "weights": None, "shrink_towards": 0}, i)], 0, []), [("C", "C", False, i)], "fp", at=float(i)))
    corpus = Corpus(store, KEY, "fp")
    loaded = corpus.load()
    assert len(loaded) == MAX_ENTRIES and corpus.pruned == 5
    assert [s.entry.choices[0][2] for s in loaded] == list(range(5, MAX_ENTRIES + 5)), "the oldest go, the rest load oldest first"
    assert len(list(store.fetch(KEY.encode()))) == MAX_ENTRIES
