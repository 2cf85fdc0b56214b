"""tests/slow.txt, which the `slow` marker is read from, names tests that exist and are in-process; tests/costs.txt,
which orders the modules, names modules that exist; `-n auto` starts a worker more than the cores.

A renamed or deleted test would drop out of the list without a word, and the quick tier would slow
down; a listed test that carries a tier's marker of its own is in that tier already.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import os

import pytest

from ..conftest import COSTS, SLOW, module_costs, pytest_xdist_auto_num_workers, slow_ids

REPO = Path(__file__).resolve().parents[2]
TIERS = ("quality", "network", "processes")


def test_every_listed_test_exists_and_is_in_process() -> None:
    ids = slow_ids()
    assert ids, f"{SLOW} lists no test"
    for nodeid in sorted(ids):
        path, _, name = nodeid.partition("::")
        name = re.sub(r"\[.*\]$", "", name).split("::")[-1]  # a test in a class: its method
        source = REPO / path
        assert source.is_file(), f"{SLOW}: {nodeid}: no file {path}"
        tree = ast.parse(source.read_text(encoding="utf-8"))
        found = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == name), None)
        assert found is not None, f"{SLOW}: {nodeid}: {path} defines no test {name}"
        marks = {ast.unparse(d) for d in found.decorator_list}
        module_marks = "".join(ast.unparse(n) for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets))
        for tier in TIERS:
            # (a mark given to some parameters only, inside parametrize, is left to suite_time.py, which writes the list)
            assert not any(m.startswith(f"pytest.mark.{tier}") for m in marks) and f"mark.{tier}" not in module_marks, f"{SLOW}: {nodeid} is marked {tier} already"


def test_each_line_gives_the_cost_then_the_test() -> None:
    for number, line in enumerate(SLOW.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            cost, _, nodeid = line.partition(" ")
            assert re.fullmatch(r"\d+\.\d", cost) and "::" in nodeid, f"{SLOW}:{number}: write the CPU seconds, a space, then the test's id: {line!r}"


def test_every_module_the_costs_list_is_a_test_module_and_the_costliest_run_first(request) -> None:
    costs = module_costs()
    assert costs, f"{COSTS} lists no module"
    for module, cpu in costs.items():
        assert (REPO / module).is_file() and Path(module).name.startswith("test_"), f"{COSTS}: no test module {module}"
        assert cpu >= 0, f"{COSTS}: {module}: a cost is CPU seconds"
    # the session's order (tests/conftest.py): no test of a listed module runs after one of a module listed as cheaper
    order = [item.nodeid.split("::", 1)[0] for item in request.session.items]
    ranks = [costs.get(module, 0.0) for module in order]
    assert ranks == sorted(ranks, reverse=True)


def test_n_auto_starts_a_worker_more_than_the_cores_unless_pytest_xdist_is_told(request, monkeypatch: pytest.MonkeyPatch) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    assert pytest_xdist_auto_num_workers(request.config) == cores + 1
    # pytest-xdist's own setting: the hook leaves the number to it
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    assert pytest_xdist_auto_num_workers(request.config) is None
    assert request.config.hook.pytest_xdist_auto_num_workers(config=request.config) == 2
