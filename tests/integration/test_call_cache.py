"""The call cache: a view call is answered from it while what it read is unchanged, and runs again after each kind of change."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from evmstate import Project, TransactionReverted
from evmstate.config import BackendConfig, Config, FuzzConfig
from evmstate.evm.base import contract_address

from ..conftest import BACKENDS, copy_project, kept_build, needs_revm

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cache")
    shutil.copytree(HERE / "cache" / "contracts", root / "contracts")
    kept_build(root, "kept-cache-contracts", lambda: project_at(root, "pyevm"))
    return root


def project_at(root: Path, backend: str, mode: str = "on") -> Project:
    return Project(Config(root=root, backend=BackendConfig(name=backend), fuzz=FuzzConfig(call_cache=mode)))


@pytest.fixture(params=BACKENDS)
def project(request: pytest.FixtureRequest, root: Path) -> Project:
    return project_at(root, request.param)


class Counts:
    """Hits and misses of the project's call cache since the last look."""

    def __init__(self, project: Project) -> None:
        self.cache = project.backend.call_cache
        assert self.cache is not None
        self.seen = (self.cache.hits, self.cache.misses)

    def since(self) -> tuple[int, int]:
        now = (self.cache.hits, self.cache.misses)
        hits, misses = now[0] - self.seen[0], now[1] - self.seen[1]
        self.seen = now
        return hits, misses


def test_a_repeated_view_call_is_answered_from_the_cache(project):
    reader = project.Reader.deploy()
    reader.set_stored(21)
    counts = Counts(project)
    assert [reader.doubled() for _ in range(5)] == [42] * 5
    assert counts.since() == (4, 1)


def test_a_write_to_a_slot_it_read_runs_it_again_and_other_slots_do_not(project):
    a = project.accounts
    reader = project.Reader.deploy()
    reader.credit(a[1], 5)
    assert reader.credited(a[1]) == 5
    counts = Counts(project)
    reader.credit(a[2], 7)  # another slot
    assert reader.credited(a[1]) == 5
    assert counts.since() == (1, 0)
    reader.credit(a[1], 1)  # the slot it read
    assert reader.credited(a[1]) == 6
    assert counts.since() == (0, 1)


def test_a_snapshot_revert_that_changes_what_it_read_runs_it_again(project):
    reader = project.Reader.deploy()
    reader.set_stored(1)
    snap = project.chain.snapshot()
    reader.set_stored(2)
    assert reader.doubled() == 4
    project.chain.revert(snap)
    counts = Counts(project)
    assert reader.doubled() == 2
    assert counts.since() == (0, 1)
    assert reader.doubled() == 2
    assert counts.since() == (1, 0)


def test_time_travel_runs_again_only_what_reads_the_block(project):
    reader = project.Reader.deploy()
    deadline = project.chain.time() + 1000
    left, height, doubled = reader.time_left(deadline), reader.height(), reader.doubled()
    counts = Counts(project)
    project.chain.sleep(100)
    assert reader.time_left(deadline) == left - 100
    assert reader.doubled() == doubled
    # py-evm sees which calls read the block; on revm, any call into code that can read it runs again
    assert counts.since() == ((1, 1) if project.config.backend.name == "pyevm" else (0, 2))
    project.chain.mine(3)
    assert reader.height() == height + 3
    assert counts.since() == (0, 1)


def test_new_code_at_an_address_it_looked_at_runs_it_again(project):
    a = project.accounts
    reader = project.Reader.deploy()
    target = contract_address(a[0].raw_address, a[0].nonce)
    assert reader.code_size(target) == 0
    counts = Counts(project)
    deployed = project.Empty.deploy({"from": a[0]})
    assert deployed.raw_address == target
    assert reader.code_size(target) == len(project.backend.get_code(target)) > 0
    assert counts.since() == (0, 1)


def test_a_balance_change_runs_it_again(project):
    a = project.accounts
    reader = project.Reader.deploy()
    before, own = reader.balance_of(a[3]), reader.own_balance()
    counts = Counts(project)
    a[0].transfer(a[3], 10**18)
    reader.fund({"from": a[1], "value": 5})
    assert reader.balance_of(a[3]) == before + 10**18
    assert reader.own_balance() == own + 5
    assert counts.since() == (0, 2)


def test_a_cached_revert_is_the_same_revert(project):
    reader = project.Reader.deploy()
    reader.set_stored(3)
    errors = []
    for _ in range(2):
        with pytest.raises(TransactionReverted) as info:
            reader.at_least(5)
        errors.append(info.value)
    first, second = errors
    assert (first.reason, first.gas_used) == (second.reason, second.gas_used) == ("below", first.gas_used)
    counts = Counts(project)
    reader.set_stored(9)
    assert reader.at_least(5) == 9
    assert counts.since() == (0, 1)


# what a program of calls did, with and without the cache: the same, call by call
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.integers(0, 3)),
        st.tuples(st.just("credit"), st.integers(0, 2), st.integers(0, 3)),
        st.tuples(st.just("sleep"), st.integers(0, 2)),
        st.tuples(st.just("snapshot")),
        st.tuples(st.just("revert")),
        st.tuples(st.just("view"), st.sampled_from(["doubled", "credited", "at_least", "time_left", "balance_of"]), st.integers(0, 2)),
    ),
    max_size=30,
)


def play(project: Project, reader, ops) -> list:
    a = project.accounts
    out: list = []
    snaps: list[int] = []
    for op in ops:
        kind = op[0]
        if kind == "set":
            reader.set_stored(op[1])
        elif kind == "credit":
            reader.credit(a[op[1]], op[2])
        elif kind == "sleep":
            project.chain.sleep(op[1])
        elif kind == "snapshot":
            snaps.append(project.chain.snapshot())
        elif kind == "revert" and snaps:
            project.chain.revert(snaps.pop())
        elif kind == "view":
            name, arg = op[1], op[2]
            args = {"doubled": (), "credited": (a[arg],), "at_least": (arg,), "time_left": (project.chain.time() + 10,), "balance_of": (a[arg],)}[name]
            try:
                out.append((name, reader.function(name)(*args)))
            except TransactionReverted as e:
                out.append((name, "reverted", e.reason, e.gas_used))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_call_answers_as_it_would_without_the_cache(root, backend):
    cached, plain = project_at(root, backend, "check"), project_at(root, backend, "off")
    readers = (cached.Reader.deploy(), plain.Reader.deploy())

    @settings(max_examples=30, deadline=None)
    @given(ops=OPS)
    def same(ops):
        with cached.chain.anchor(), plain.chain.anchor():
            assert play(cached, readers[0], ops) == play(plain, readers[1], ops)

    same()
    assert cached.backend.call_cache.hits > 0


# -- whole machines: the same verdicts, programs and failures with the cache checked as without it


def verdicts(root: Path, mode: str, backend: str = "pyevm", coverage: bool = False, paths: tuple[str, ...] = (), max_examples: int = 10, shrink: bool = True) -> list[tuple]:
    from evmstate import config as config_mod
    from evmstate.runner import Overrides, RunOptions, run

    from tests.conftest import SEARCH_ONLY

    cfg = config_mod.load(root)
    cfg = dataclasses.replace(cfg, backend=BackendConfig(name=backend), fuzz=dataclasses.replace(cfg.fuzz, call_cache=mode))
    if not shrink:
        cfg = dataclasses.replace(cfg, hypothesis=dataclasses.replace(cfg.hypothesis, phases=SEARCH_ONLY))
    options = RunOptions(paths or (str(root / cfg.project.machines),), overrides=Overrides(seed=3, max_examples=max_examples, stateful_step_count=20), save_failures=False, coverage=coverage)
    summary = run(cfg, options, lambda event: None)
    assert not any(r.internal for r in summary.results), [r.error for r in summary.results if r.internal]
    # a message may name a source by its path: the same in every copy of the project
    found = [(r.name, r.status, r.steps, r.failure and r.failure.message.replace(str(root), "<root>"), r.failure and r.failure.steps) for r in summary.results]
    if coverage:
        # the lines each source's code reached, by the source's path as the report shows it (the same in every copy)
        report = summary.coverage
        found.append(("coverage", {report.shown(path): f.lines for path, f in report.files.items()}))
    return found


@pytest.mark.quality
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_bundled_machine_runs_the_same_with_the_cache_checked(tmp_path, backend):
    from tests.conftest import copy_example

    # each in its own copy: the second run must not replay what the first saved. Searches of 5
    # runs a machine, not shrunk: shrinking is most of a run that finds a bug, and its runs replay
    # variations of the programs the search ran; 5 runs of 20 steps find some machines' bugs and
    # call every view the machines call
    checked = verdicts(copy_example(tmp_path / "checked"), "check", backend, max_examples=5, shrink=False)
    assert checked == verdicts(copy_example(tmp_path / "plain"), "off", backend, max_examples=5, shrink=False)
    assert {status for _, status, *_ in checked} == {"passed", "failed"}


@pytest.mark.quality
def test_a_snekmate_machine_covers_the_same_code_with_the_cache(tmp_path):
    """With coverage on, getters run as calls: the cache answers them and records their coverage again."""
    runs = []
    for mode in ("check", "off"):
        root = copy_project(HERE.parent / "projects" / "snekmate", tmp_path / mode)
        # 4 runs of 20 steps: each view the machine calls, called many times, answered and covered
        runs.append(verdicts(root, mode, coverage=True, paths=(str(root / "machines" / "erc20.py"),), max_examples=4))
    assert runs[0] == runs[1]
    ((_, lines),) = [entry for entry in runs[0] if entry[0] == "coverage"]
    erc20 = lines["snekmate/tokens/erc20.vy"]
    assert sum(erc20.values()) > 20 and not all(erc20.values())  # the views it called covered, not every line


# -- revm: a revert explained on py-evm once per state that matters


@needs_revm
def test_revm_explains_a_revert_again_only_when_what_it_read_changed(root):
    from evmstate import reverts

    project = project_at(root, "revm")
    a = project.accounts
    stock = project.Stock.deploy()
    backend = project.backend
    stock.set_paused(True)
    for _ in range(3):
        with reverts(dev_revert_msg="dev: paused"):
            stock.take(5, {"from": a[1]})
    assert backend.shadow_runs == 1
    stock.restock(3, {"from": a[2]})  # a slot the failed call did not read before it failed
    with reverts(dev_revert_msg="dev: paused"):
        stock.take(5, {"from": a[1]})
    assert backend.shadow_runs == 1
    stock.set_paused(False)  # now the other check fails: explained again, and told apart
    with reverts(dev_revert_msg="dev: out of stock"):
        stock.take(5, {"from": a[1]})
    with reverts(dev_revert_msg="dev: out of stock"):
        stock.take(5, {"from": a[1]})
    assert backend.shadow_runs == 2
    stock.restock(1, {"from": a[2]})  # the stock it read changed: run again, the same check
    with reverts(dev_revert_msg="dev: out of stock"):
        stock.take(5, {"from": a[1]})
    assert backend.shadow_runs == 3
