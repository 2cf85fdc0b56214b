"""--seed reproduces a search only from nothing saved: the seed line says when saved examples are replayed first, and --fresh leaves them out."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import copy_example
from .helpers import invoke
from .workers import InlineWorkers

REPLAYED = "; failing examples saved in .evmstate/examples/ are replayed first (--fresh: the seed alone decides the search)"


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()} if folder.is_dir() else {}


def failure(root: Path, *args: str) -> tuple[str, dict]:
    code, out = invoke("run", "machines/depositer.py", "--max-examples", "20", "--json", "out.json", *args)
    assert code == 1, out
    (result,) = json.loads((root / "out.json").read_text())["results"]
    return out, result


def test_the_seed_line_says_saved_examples_are_replayed_first_and_fresh_leaves_them_out(example, tmp_path_factory, monkeypatch):
    out, first = failure(example, "--seed", "1")
    assert "seed: 1 — rerun with --seed 1\n" in out, "nothing was saved before the first run"
    examples = example / ".evmstate" / "examples"
    saved = files(examples)
    assert saved
    # the next run replays the saved example first, whatever its seed: the line says so
    out, replayed = failure(example, "--seed", "5")
    assert f"seed: 5 — rerun with --seed 5{REPLAYED}\n" in out
    assert replayed["failure"]["shrink"]["replayed"]
    # --fresh: the search the seed makes from nothing, nothing read or written there
    out, fresh = failure(example, "--seed", "5", "--fresh")
    assert "seed: 5 — rerun with --seed 5 --fresh (no saved examples are read or written: the seed alone decides the search)\n" in out
    assert not fresh["failure"]["shrink"]["replayed"]
    assert files(examples) == saved
    assert fresh["failure_id"] == first["failure_id"] and (example / ".evmstate" / "failures" / f"{first['failure_id']}.json").is_file()
    # the same as the seed gives in a project that never saved anything
    clean = copy_example(tmp_path_factory.mktemp("clean"))
    monkeypatch.chdir(clean)
    _, alone = failure(clean, "--seed", "5")
    for key in ("examples", "runs", "steps", "seed"):
        assert fresh[key] == alone[key], key
    assert fresh["failure"]["program"] == alone["failure"]["program"]


def test_what_a_campaign_replays_first_is_named_from_the_folders(example):
    from evmstate import config as config_mod
    from evmstate.engine.database import replayed_first

    cfg = config_mod.load(example)
    assert replayed_first(cfg, corpus=True) is None
    runs = example / ".evmstate" / "corpus" / "machines_erc20.py--ERC20Machine-e506d955"
    runs.mkdir(parents=True)
    (runs / ".tmp-half-written").write_bytes(b"x")
    assert replayed_first(cfg, corpus=True) is None, "a file being written is not a saved run"
    (runs / "ba1e626e1427f6bb6838.run").write_bytes(b"x")
    assert replayed_first(cfg, corpus=True) == "guidance runs saved in .evmstate/corpus/"
    assert replayed_first(cfg) is None, "evmstate run reads no corpus"
    redis = cfg.replace(database=config_mod.DatabaseConfig(url="redis://localhost:6379/0"))
    assert replayed_first(redis, corpus=True) == "examples and guidance runs saved on redis://localhost:6379/0"


def test_a_fresh_campaign_reads_and_writes_no_corpus_nor_example(example):
    from evmstate import config as config_mod
    from evmstate.engine.events import RunStarted
    from evmstate.runner import CampaignOptions, Overrides
    from evmstate.scale.campaign import fuzz
    from evmstate.scale.pool import ProjectSource

    def campaign(fresh: bool) -> RunStarted:
        cfg = config_mod.load()
        events: list = []
        options = CampaignOptions(("machines/erc20.py",), None, Overrides(max_examples=5, stateful_step_count=10, seed=1, fresh=fresh), budget=1.0)
        summary = fuzz(cfg, options, events.append, InlineWorkers(ProjectSource(cfg, (str(example / "machines/erc20.py"),))))
        assert summary.exit_code == 0 and summary.examples > 0
        (started,) = [e for e in events if isinstance(e, RunStarted)]
        return started

    corpus, examples = example / ".evmstate" / "corpus", example / ".evmstate" / "examples"
    assert campaign(False).replayed_first is None
    kept = files(corpus)
    assert kept, "a campaign keeps its guidance runs"
    started = campaign(True)
    assert started.fresh and started.replayed_first is None
    assert files(corpus) == kept and not files(examples)
    assert campaign(False).replayed_first == "guidance runs saved in .evmstate/corpus/"
