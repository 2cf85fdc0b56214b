"""The guidance corpus campaigns keep: carried from one invocation to the next, reproducible by
seed, ignored once the sources change, shared by Dask workers through Redis. (The storage
itself: tests/unit/test_corpus.py.)

An invocation here is one campaign shard (what a campaign's worker runs, scale.shards.run_shard)
with a budget in runs, so that the outcome is the same every time. The machine
(tests/projects/rungs) has a bug behind four rare conditions met in order, each its own branch.
"""

from __future__ import annotations

import json
import shutil
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from evmstate import config as config_mod
from evmstate.engine.database import corpus_store
from evmstate.search.corpus import FORMAT
from evmstate.runner import Overrides
from evmstate.scale.pool import loaded_modules
from evmstate.scale.shards import ProjectBundle, Shard, run_bundle_shard

from .. import zygote
from ..cli.helpers import local_cluster
from ..conftest import copy_project
from .rungs import KEY, RUNGS, RUNS, SEED, corpus_counts, invocation


@pytest.fixture()
def rungs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "rungs"
    copy_project(RUNGS, root)
    monkeypatch.chdir(root)
    return root


def saved_runs(root: Path) -> list[dict[str, Any]]:
    """The runs saved for the machine, without when and by which process."""
    runs = []
    for value in corpus_store(config_mod.load(root)).fetch(KEY.encode()):
        payload = json.loads(zlib.decompress(value.partition(b"\n")[2]))
        runs.append({k: v for k, v in payload.items() if k not in ("at", "by")})
    return sorted(runs, key=repr)


# Hypothesis draws constants from the modules a process has loaded: the four invocations run in a
# fresh process, as each `evmstate fuzz` does, so that what they find does not depend on what else
# the test process imported
CARRIED = """
import json, shutil, sys
from pathlib import Path
from tests.integration.rungs import RUNS, SEED, corpus_counts, invocation

root = Path(sys.argv[1])
out = {}
def note(name, result):
    out[name] = {"status": result.status, "counts": corpus_counts(result), "invariant": result.failure and result.failure.invariant,
                 "first": result.statistics.get("first failure at run"), "statistics": result.statistics}
note("first", invocation(root, SEED))
note("second", invocation(root, SEED + 100))
shutil.rmtree(root / ".evmstate" / "corpus", ignore_errors=True)
note("alone", invocation(root, SEED + 100))
print(json.dumps(out))
"""


@pytest.mark.processes
def test_a_second_invocation_finds_from_the_first_ones_corpus_what_it_alone_does_not(rungs: Path):
    repo = Path(__file__).parents[2]
    done = zygote.run([sys.executable, "-c", CARRIED, str(rungs)], cwd=repo)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    first, second, alone = (found[k] for k in ("first", "second", "alone"))
    assert first["status"] == "passed" and first["counts"]["added"] > 0
    assert second["status"] == "failed", second["statistics"]
    assert second["counts"]["loaded"] == first["counts"]["added"]
    assert second["invariant"] == "invariant_below_the_top"
    # the corpus carried it: the same second invocation without it finds nothing
    assert alone["status"] == "passed" and alone["counts"]["loaded"] == 0


def test_the_same_seed_and_saved_corpus_search_the_same(rungs: Path):
    saved = rungs / ".evmstate" / "corpus"
    # a seed whose two invocations each keep runs: which seeds do depends on the modules this process has loaded
    # (Hypothesis draws constants from them), so the first of 7, 8, ... that does; the same invocation twice from the
    # same saved corpus must then search alike
    for seed in range(7, 37):
        shutil.rmtree(rungs / ".evmstate", ignore_errors=True)
        shutil.rmtree(rungs / "snapshot", ignore_errors=True)
        invocation(rungs, seed)
        if not saved.is_dir():
            continue
        shutil.copytree(saved, rungs / "snapshot")
        outcomes = []
        for _ in range(2):
            shutil.rmtree(saved)
            shutil.copytree(rungs / "snapshot", saved)
            result = invocation(rungs, seed + 100)
            # what was drawn and found, not how long it took
            statistics = {k: v for k, v in result.statistics.items() if k not in ("first failure after", "shrink time") and not k.endswith(" phase")}
            outcomes.append((result.status, result.runs, result.steps, statistics, saved_runs(rungs)))
        counts = corpus_counts(outcomes[0][3])
        if counts["loaded"] > 0 and counts["added"] > 0:
            break
    else:
        pytest.fail("no seed of 7 to 36 kept runs in both invocations")
    assert outcomes[0] == outcomes[1]
    assert len(outcomes[0][4]) == counts["loaded"] + counts["added"]


def test_a_corpus_made_for_other_sources_is_removed_not_loaded(rungs: Path):
    first = invocation(rungs, SEED)
    assert corpus_counts(first)["added"] > 0
    module = rungs / "machines" / "rungs.py"
    module.write_text(module.read_text() + "\n# edited\n")
    after_edit = invocation(rungs, SEED + 100)
    assert corpus_counts(after_edit) == {"loaded": 0, "added": corpus_counts(after_edit)["added"], "stale": corpus_counts(first)["added"]}
    # the contract changed: compiled again, what the edited machine kept is stale too
    contract = rungs / "contracts" / "Rungs.vy"
    contract.write_text(contract.read_text().replace("% 16 == 0", "% 15 == 0"))
    after_contract = invocation(rungs, SEED + 200, paths=("machines",))
    assert corpus_counts(after_contract)["loaded"] == 0 and corpus_counts(after_contract)["stale"] == corpus_counts(after_edit)["added"]


def test_an_unreadable_saved_run_is_set_aside_and_the_search_goes_on(rungs: Path):
    invocation(rungs, SEED)
    folder = corpus_store(config_mod.load(rungs)).folder(KEY.encode())
    good = len(list(folder.glob("*.run")))
    damaged = f"evmstate-corpus {FORMAT}\n".encode() + b"\x78\x9cnot zlib"  # of this format, not zlib
    (folder / "0000.run").write_bytes(damaged)
    result = invocation(rungs, SEED + 100)
    assert corpus_counts(result)["loaded"] == good
    assert f"1 unreadable set aside ({folder / '0000.run.unreadable'})" in result.statistics["corpus"]
    assert (folder / "0000.run.unreadable").read_bytes() == damaged


def test_a_corpus_folder_that_cannot_be_written_leaves_the_search_as_it_was(rungs: Path):
    (rungs / ".evmstate").mkdir(exist_ok=True)
    (rungs / ".evmstate" / "corpus").write_text("not a folder")
    result = invocation(rungs, SEED)
    assert result.status == "passed" and "the corpus could not be written (NotADirectoryError" in result.statistics["corpus"]
    assert (rungs / ".evmstate" / "corpus").read_text() == "not a folder"


@pytest.mark.processes
def test_two_dask_workers_share_one_corpus_through_redis(rungs: Path, redis_url: str):
    from distributed import Client

    with (rungs / "evmstate.toml").open("a") as f:
        f.write(f'\n[database]\nurl = "{redis_url}"\n')
    cfg = config_mod.load(rungs)
    bundle = ProjectBundle.of(cfg, ("machines/rungs.py",), None, loaded_modules())
    # forked from this process (local_cluster), the workers start with evmstate imported; each is a process of its own
    with local_cluster(2) as cluster, Client(cluster) as client:
        a, b = sorted(client.scheduler_info()["workers"])

        def shard_on(worker: str, index: int) -> Any:
            shard = Shard(KEY, index, 0, Overrides(max_examples=RUNS), None)
            return client.submit(run_bundle_shard, bundle, shard, workers=[worker], pure=False).result(timeout=300)

        first, second, third = shard_on(a, 0), shard_on(b, 1), shard_on(a, 2)
    assert first.worker != second.worker and first.worker == third.worker
    counts = [corpus_counts(r.result) for r in (first, second, third)]
    assert counts[0]["loaded"] == 0 and counts[0]["added"] > 0
    # each shard starts from what the shards before it kept, on whichever worker they ran
    assert counts[1]["loaded"] == counts[0]["added"]
    assert counts[2]["loaded"] == counts[0]["added"] + counts[1]["added"]
    # all of it on the Redis server, none in the project's folder
    saved = list(corpus_store(cfg).fetch(KEY.encode()))
    assert len(saved) == sum(c["added"] for c in counts)
    assert not (rungs / ".evmstate" / "corpus").exists()
