"""The revm sight sampled (evm/revm/sight.py): a call of a known shape takes the coverage of the calls of its shape traced before.

Against py-evm's hooks on the same calls: the coverage of every call, and the slots each transaction stored.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyrevm", reason="pyrevm has no wheel for this Python (wheels exist for CPython 3.10 to 3.12)")

from evmstate import Project  # noqa: E402
from evmstate.config import BackendConfig, Config, FuzzConfig  # noqa: E402
from evmstate.evm.revm import sight as sight_mod  # noqa: E402
from evmstate.evm.base import Feedback  # noqa: E402
from evmstate.search.session import Search, SearchOptions, collector_of  # noqa: E402

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def token_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("token")
    (root / "contracts").mkdir()
    shutil.copy(HERE.parent / "contracts" / "Token.vy", root / "contracts" / "Token.vy")
    return root


def load(root: Path, name: str) -> Project:
    return Project(Config(root=root, backend=BackendConfig(name=name), fuzz=FuzzConfig()))


def transfers(project: Project, sampling: bool, amounts: list[int]) -> list[tuple[Any, ...]]:
    """Each transfer's coverage, the slots it stored (as a set: py-evm's order is the code's) and whether it succeeded."""
    token = project.Token.deploy("T", "T", 18, 10**6, {"from": project.accounts[0]})
    backend = project.backend
    hits: dict[bytes, set[int]] = {}
    seen: list[Any] = []
    backend.set_coverage(hits)
    backend.set_feedback(Feedback())
    backend.set_observer(seen.append)
    if sampling:
        backend.set_sampling(True)  # type: ignore[attr-defined]
    records = []
    for i, amount in enumerate(amounts):
        sender = project.accounts[i % 3].raw_address
        data = token.transfer.encode_input(project.accounts[3 + i % 4].address, amount)
        result = backend.transact(sender, token.raw_address, data)
        written = {(a, s, v) for a, s, v in seen[-1].storage_writes if project.backend.get_storage(a, s) == v}
        records.append(({k: frozenset(v) for k, v in hits.items()}, written, result.success))
        hits.clear()
    return records


def test_a_sampled_sight_gives_each_call_the_coverage_py_evm_records(token_root):
    amounts = [1 + (i * 7919) % 997 for i in range(60)] + [10**9] * 20  # transfers, then overdrafts
    expected = transfers(load(token_root, "pyevm"), False, amounts)
    revm = load(token_root, "revm")
    got = transfers(revm, True, amounts)
    assert [r[0] for r in got] == [r[0] for r in expected]
    assert [r[2] for r in got] == [r[2] for r in expected]
    # what a transaction stored: revm's changed slots when sampled, each one py-evm saw written
    for (_, written, _), (_, theirs, _) in zip(got, expected):
        assert written == theirs
    sight = revm.backend.sight  # type: ignore[attr-defined]
    assert sight.sampled > 40, sight.statistics()
    assert sight.traced + sight.remembered + sight.sampled + sum(sight.witnessed.values()) == len(amounts)


def test_a_run_s_first_reverted_calls_of_a_shape_give_the_bound_they_failed(token_root):
    # overdrafts by one account: each of the first REVERTED is traced whole, so the search can repeat its step at the
    # balance it failed (search/guidance.py); later ones are sampled, as other calls of a known shape
    revm = load(token_root, "revm")
    token = revm.Token.deploy("T", "T", 18, 10**6, {"from": revm.accounts[0]})
    backend, feedback = revm.backend, Feedback()
    backend.set_coverage({})
    backend.set_feedback(feedback)
    backend.set_sampling(True)  # type: ignore[attr-defined]
    balance = token.balanceOf(revm.accounts[0])
    bounds = []
    for amount in range(balance + 1, balance + 11):
        feedback.bound = None
        data = token.transfer.encode_input(revm.accounts[1].address, amount)
        assert not backend.transact(revm.accounts[0].raw_address, token.raw_address, data).success
        bounds.append(feedback.bound)
    traced = sight_mod.REVERTED
    assert bounds[:traced] == [(amount, balance) for amount in range(balance + 1, balance + 1 + traced)]
    assert bounds[traced:] == [None] * (10 - traced)


def test_without_sampling_every_call_is_traced(token_root):
    revm = load(token_root, "revm")
    transfers(revm, False, [1 + i for i in range(30)])
    assert revm.backend.sight.sampled == 0  # type: ignore[attr-defined]


def test_a_shape_whose_calls_covered_different_code_is_traced_every_time(token_root, monkeypatch):
    monkeypatch.setattr(sight_mod, "EVERY", 4)
    revm = load(token_root, "revm")
    backend, sight = revm.backend, revm.backend.sight  # type: ignore[attr-defined]
    token = revm.Token.deploy("T", "T", 18, 10**6, {"from": revm.accounts[0]})
    backend.set_coverage({})
    backend.set_sampling(True)  # type: ignore[attr-defined]
    data = token.transfer.encode_input(revm.accounts[4].address, 1)

    def send() -> None:
        backend.transact(revm.accounts[0].raw_address, token.raw_address, data)

    send()  # the receiver's first balance: a shape of its own
    for _ in range(3):
        send()  # one shape from now on: its first call traced, then sampled
    assert sight.sampled == 2
    (key,) = [k for k, n in sight.run_seen.items() if n == 3]
    shape = sight.shapes[key]
    shape.hits = {}  # as if a call of another path had been traced first under this shape
    send()  # the EVERY-th of the run: traced whole, and its coverage is not the shape's
    assert shape.mixed
    traced = sight.traced
    for _ in range(3):
        send()  # traced for their coverage
    assert (sight.traced, sight.sampled) == (traced + 3, 2)


def test_a_mixed_shape_call_over_unchanged_values_takes_the_remembered_trace(token_root):
    """A call traced for its coverage alone whose inputs and the values it read are those of a call traced before: that
    trace's coverage, not the tracer run again."""
    revm = load(token_root, "revm")
    backend, sight = revm.backend, revm.backend.sight  # type: ignore[attr-defined]
    token = revm.Token.deploy("T", "T", 18, 10**6, {"from": revm.accounts[0]})
    hits: dict[bytes, set[int]] = {}
    backend.set_coverage(hits)
    backend.set_sampling(True)  # type: ignore[attr-defined]
    # accounts[1] holds no tokens: the transfer reverts and changes no value the call reads
    data = token.transfer.encode_input(revm.accounts[4].address, 10**9)
    covered = []
    for _ in range(3):
        assert not backend.transact(revm.accounts[1].raw_address, token.raw_address, data).success
        covered.append({k: frozenset(v) for k, v in hits.items()})
        hits.clear()
    assert (sight.traced, sight.sampled, sight.remembered) == (1, 2, 0)  # the run's first of the shape, then sampled
    (key,) = [k for k, n in sight.run_seen.items() if n == 3]
    sight.shapes[key].mixed = True  # as if two of its traces had covered different code
    assert not backend.transact(revm.accounts[1].raw_address, token.raw_address, data).success
    assert (sight.traced, sight.remembered) == (1, 1)
    assert {k: frozenset(v) for k, v in hits.items()} == covered[0] and covered[0]


def records(project: Project, token: Any, warm: bool) -> tuple[Any, ...]:
    """Feedback and observed storage of a fixed run of transfers, sampled, its run started after warm-up calls or not."""
    backend = project.backend
    hits: dict[bytes, set[int]] = {}
    feedback = Feedback()
    seen: list[Any] = []
    backend.set_coverage(hits)
    backend.set_feedback(feedback)
    backend.set_observer(lambda r: seen.append((r.storage_reads, r.storage_writes)))
    backend.set_sampling(True)  # type: ignore[attr-defined]
    if warm:  # calls of the same shapes in earlier runs, taken back
        snap = backend.snapshot()
        for i in range(40):
            backend.transact(project.accounts[i % 2].raw_address, token.raw_address, token.transfer.encode_input(project.accounts[5 + i % 3].address, 3 + i))
        backend.revert(snap)
        feedback.operands.clear(), feedback.equalities.clear(), feedback.counts.clear(), seen.clear()
        backend.set_sampling(True)  # type: ignore[attr-defined]  # a run starts
    for i in range(40):
        backend.transact(project.accounts[i % 2].raw_address, token.raw_address, token.transfer.encode_input(project.accounts[5 + i % 3].address, 1 + i))
    return feedback.operands, feedback.equalities, seen


def test_what_a_sampled_run_feeds_the_dictionary_follows_from_the_run_alone(token_root):
    """A run replayed after other runs (Hypothesis's replay of a native run) must draw the same: the same operands and storage seen."""
    runs = []
    for warm in (False, True):
        project = load(token_root, "revm")
        token = project.Token.deploy("T", "T", 18, 10**6, {"from": project.accounts[0]})
        token.transfer(project.accounts[1], 10**5, {"from": project.accounts[0]})
        runs.append(records(project, token, warm))
        assert project.backend.sight.sampled > 20  # type: ignore[attr-defined]
    assert runs[0] == runs[1]
    assert runs[0][0], "the run's first calls of each shape gave their comparison operands"


def test_the_search_samples_for_guidance_and_not_for_a_coverage_report(token_root):
    project = load(token_root, "revm")
    options = SearchOptions()
    search = Search(project, options, seed=0)
    search.start()
    assert project.backend.sight.sampling  # type: ignore[attr-defined]
    search.stop()
    assert not project.backend.sight.sampling  # type: ignore[attr-defined]
    collector_of(project).wanted = True
    reported = Search(project, options, seed=0)
    reported.start()
    assert not project.backend.sight.sampling  # type: ignore[attr-defined]
    reported.stop()
    py = load(token_root, "pyevm")
    assert not Search(py, options, seed=0).sampling


def balance_reads(project: Project, sampling: bool) -> tuple[list[Any], list[Any]]:
    """The coverage and storage reads of view calls (balanceOf of 3 holders, 5 times each) with the call cache off."""
    token = project.Token.deploy("T", "T", 18, 10**6, {"from": project.accounts[0]})
    backend = project.backend
    hits: dict[bytes, set[int]] = {}
    seen: list[Any] = []
    backend.set_coverage(hits)
    backend.set_observer(seen.append)
    if sampling:
        backend.set_sampling(True)  # type: ignore[attr-defined]
    coverage = []
    for i in range(15):
        data = token.balanceOf.encode_input(project.accounts[i % 3].address)
        backend.call(project.accounts[0].raw_address, token.raw_address, data, static=True)
        coverage.append({k: frozenset(v) for k, v in hits.items()})
        hits.clear()
    return coverage, [r.storage_reads for r in seen]


def test_a_view_call_the_cache_cannot_hold_is_seen_once_a_run_for_each_shape(token_root):
    """View calls add no operands: a run's first of each shape gives its reads, the rest the shape's coverage."""
    uncached = Config(root=token_root, backend=BackendConfig(name="revm"), fuzz=FuzzConfig(call_cache="off"))
    expected, _ = balance_reads(Project(Config(root=token_root, backend=BackendConfig(name="pyevm"), fuzz=FuzzConfig(call_cache="off"))), False)
    revm = Project(uncached)
    coverage, reads = balance_reads(revm, True)
    assert coverage == expected
    sight = revm.backend.sight  # type: ignore[attr-defined]
    assert sight.sampled == 14 and sight.traced + sight.remembered == 1, sight.statistics()  # one shape: three holders' balances read alike
    assert reads[0] and not any(reads[1:])
    revm.backend.set_sampling(True)  # type: ignore[attr-defined]  # the next run: its first call seen whole again
    again, reads = balance_reads(revm, True)  # a second token: its own address
    assert [list(c.values()) for c in again] == [list(c.values()) for c in expected] and reads[0] and not any(reads[1:])
    whole = Project(uncached)
    _, reads = balance_reads(whole, False)
    assert all(reads) and whole.backend.sight.sampled == 0  # type: ignore[attr-defined]


def deployment_hits(project: Project) -> dict[bytes, frozenset[int]]:
    hits: dict[bytes, set[int]] = {}
    project.backend.set_coverage(hits)
    project.backend.set_observer(lambda r: None)
    project.Token.deploy("T", "T", 18, 10**6, {"from": project.accounts[0]})
    project.backend.set_coverage(None)
    return {k: frozenset(v) for k, v in hits.items()}


def test_a_deployment_is_traced_on_revm_without_a_py_evm_chain(token_root):
    """The constructor's coverage, recorded under the contract being created as py-evm records it; no py-evm state is built."""
    expected = deployment_hits(load(token_root, "pyevm"))
    revm = load(token_root, "revm")
    assert deployment_hits(revm) == expected and len(expected) == 1
    sight = revm.backend.sight  # type: ignore[attr-defined]
    assert sight.traced == 1 and not sight.witnessed
    assert revm.backend._shadow is None  # type: ignore[attr-defined]
