"""What a finished campaign leaves alive in the process: nothing of its project but what the next one replaces.

A process runs many campaigns (evmstate run over many files, a test worker, a benchmark): each
one's project holds compiled contracts and a chain, and one kept alive by a cache, a table or a
machine module costs memory and every garbage collection after it.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.engine.discovery import discover
from evmstate.engine.item import RunRequest, run_item
from evmstate.engine.settings import Overrides

from ..conftest import copy_example


def projects_of(root: Path) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Project) and Path(o.config.root) == root)


@pytest.mark.parametrize("native", [False, True], ids=["hypothesis", "native"])
def test_campaigns_run_one_after_another_leave_at_most_the_last_project_alive(tmp_path, native):
    root = copy_example(tmp_path / "project").resolve()
    cfg = config_mod.load(root)
    for _ in range(3):
        project = Project(cfg)
        project.activate()
        (item,) = discover(cfg, (str(root / "machines" / "erc20.py"),)).items
        request = RunRequest(overrides=Overrides(seed=0, max_examples=3, stateful_step_count=5), seed=0, native=native, corpus=native, save_failures=False)
        result = run_item(cfg, project, item, request, lambda e: None)
        assert result.status == "passed", result.failure or result.error
        del project, item, result
    # the project in force (evmstate.contracts' current one) is the last; the two before it are gone
    assert projects_of(root) <= 1
