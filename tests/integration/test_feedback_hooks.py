"""The py-evm feedback hooks on real vyper code: branch counts and the operands of comparisons
against an argument, recorded in transactions and never in view calls (cached or not)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eth_utils import keccak

from evmstate import Project, TransactionReverted
from evmstate.config import BackendConfig, Config, FuzzConfig
from evmstate.evm.base import Feedback

from ..conftest import BACKENDS, warm_build

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("feedback")
    shutil.copytree(REPO / "contracts", root / "contracts")
    shutil.copytree(warm_build(), root / ".evmstate" / "build")  # the bundled contracts, compiled once for every test process
    return root


def recording(root: Path, mode: str = "on", backend: str = "pyevm") -> tuple[Project, Feedback, dict]:
    project = Project(Config(root=root, backend=BackendConfig(name=backend), fuzz=FuzzConfig(call_cache=mode)))
    hits: dict = {}
    feedback = Feedback()
    project.backend.set_coverage(hits)
    project.backend.set_feedback(feedback)
    return project, feedback, hits


def test_a_comparison_against_an_argument_records_the_other_side(root):
    project, feedback, _ = recording(root)
    sale = project.Sale.deploy()
    sale.set_price(2_000_000)
    feedback.operands.clear()
    with pytest.raises(TransactionReverted):
        sale.buy(5)
    # `_quote > price`: the price computed on the stack, 2_000_000 plus the 0.3% fee (the price, an argument of the
    # call before, also meets it in the sum's overflow check: an order, not recorded, as an equality would be)
    assert feedback.operands == [2_006_000]
    sale.buy(2_006_001)
    assert feedback.operands == [2_006_000, 2_006_000]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_last_order_an_argument_met_is_the_bound_a_reverted_call_failed(root, backend):
    # `_quote > price` refused a price of 5: the guide repeats such a step with the quote (search/guidance.py)
    project, feedback, _ = recording(root, backend=backend)
    sale = project.Sale.deploy()
    sale.set_price(2_000_000)
    feedback.bound = None
    with pytest.raises(TransactionReverted):
        sale.buy(5)
    assert feedback.bound == (5, 2_006_000)
    feedback.bound = None
    sale.buy(2_006_001)  # the same order, met
    assert feedback.bound == (2_006_001, 2_006_000)


def test_an_argument_compared_with_a_value_equal_to_it_is_kept_apart(root):
    # `_quote > price` with a quote of exactly the price: both sides are the argument's word, so
    # there is no other side for the search; the shrinker is told the number sits on the line
    project, feedback, _ = recording(root)
    sale = project.Sale.deploy()
    sale.set_price(2_000_000)
    feedback.operands.clear()
    with pytest.raises(TransactionReverted):
        sale.buy(2_006_000)
    assert feedback.matched == [2_006_000] and 2_006_000 not in feedback.operands
    feedback.matched.clear()
    sale.buy(2_006_001)
    assert feedback.matched == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_the_shrinker_asks_each_comparison_keeps_the_argument_with_its_other_side(root, backend):
    # the shrinker replaces a later argument only with what that argument was compared with
    project, feedback, _ = recording(root, backend=backend)
    sale = project.Sale.deploy()
    sale.set_price(2_000_000)
    with pytest.raises(TransactionReverted):
        sale.buy(5)
    assert feedback.sides == []  # the search's runs do not keep them
    feedback.everywhere = True
    feedback.operands.clear()
    sale.set_price(3_000_000)
    with pytest.raises(TransactionReverted):
        sale.buy(5)
    # set_price's bounds against the price, then `_quote > price` against the quote
    assert feedback.sides == [(3_000_000, o) for o in feedback.operands[:-1]] + [(5, 3_009_000)]
    assert 1_000_000 in feedback.operands[:-1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_argument_compared_with_itself_through_an_and_is_kept(root, backend):
    # Claims.vy: `_code != 0 and _code == self.claim_code[msg.sender]`; the equality feeds the AND's join, not the
    # branch, and is recorded all the same: the right code as matched, a wrong one with the code as its other side
    project, feedback, _ = recording(root, backend=backend)
    claims = project.Claims.deploy()
    claims.register()
    code = int.from_bytes(keccak(project.accounts[0].raw_address + b"claim"), "big")
    claims.claim(code)
    assert feedback.matched == [code]
    with pytest.raises(TransactionReverted):
        claims.claim(code - 1)
    assert feedback.matched == [code] and feedback.equalities[-1] == (code - 1, code)


def test_the_same_branch_taken_again_is_counted(root):
    project, feedback, hits = recording(root)
    puzzle = project.Puzzle.deploy()
    feedback.counts.clear()
    for nonce in range(20):
        puzzle.solve(nonce)
    (counts,) = feedback.counts.values()
    # every solve reaches the level check and the proof-of-work `if`: 20 times one way or the other
    jumpis = {branch >> 1 for branch in counts}
    assert any(counts.get(2 * pc, 0) + counts.get(2 * pc + 1, 0) == 20 for pc in jumpis)
    assert set(counts) <= next(iter(hits.values()))  # what is counted was covered


@pytest.mark.parametrize("mode", ["on", "off"])
def test_view_calls_record_no_feedback_whether_the_cache_answers_or_not(root, mode):
    project, feedback, hits = recording(root, mode)
    sale = project.Sale.deploy()
    sale.set_price(2_000_000)
    feedback.counts.clear()
    feedback.operands.clear()
    hits.clear()
    # the call a view function makes (a getter is read from storage without running code)
    data = keccak(b"base_price()")[:4]
    for _ in range(3):
        result = project.backend.call(project.accounts[0].raw_address, sale.raw_address, data, static=True)
        assert int.from_bytes(result.output, "big") == 2_000_000
    assert hits and feedback.counts == {} and feedback.operands == []


def test_without_feedback_the_comparisons_are_py_evms_own(root):
    project, feedback, _ = recording(root)
    project.backend.set_feedback(None)
    sale = project.Sale.deploy()
    sale.set_price(2_000_000)
    with pytest.raises(TransactionReverted):
        sale.buy(2_006_000)  # the planted bug, on the plain opcodes too
    sale.buy(2_006_001)
    assert feedback.operands == [] and feedback.counts == {}
    assert sale.bought(project.accounts[0]) == 1


WHEREVER = """# pragma version ~=0.4.3
seed: public(uint256)
hit: public(bool)
kept: public(uint256)


@external
def keep(_x: uint256):
    self.kept = _x


@external
def judge():
    if self.kept == 5 * self.seed + 1:
        self.hit = True


@external
def set_seed(_seed: uint256):
    self.seed = _seed


@external
def both(_x: uint256):
    if self.seed != 0 and _x == 3 * self.seed + 7:
        self.hit = True


@external
def scaled(_x: uint256):
    if self.seed != 0 and 3 * _x + 7 == self.seed:
        self.hit = True


@external
def quarter(_x: uint256):
    if _x // 4 == self.seed:
        self.hit = True


@external
def same(_x: uint256) -> bool:
    return _x == self.seed


@external
def redeem(_shares: uint256) -> uint256:
    # a share worth seed / kept of an asset: what a redeem of _shares pays, refused when it is nothing
    assets: uint256 = _shares * (self.seed + 1) // (self.kept + 1)
    assert assets > 0, "no assets"
    return assets


@external
def emptied(_x: uint256):
    if _x // 16 == 0:
        self.hit = True
"""


@pytest.fixture(scope="module")
def wherever_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wherever")
    (root / "contracts").mkdir()
    (root / "contracts" / "Wherever.vy").write_text(WHEREVER)
    return root


def test_every_comparison_of_an_argument_is_recorded_wherever_its_result_goes_on_both_backends(wherever_root):
    # the equality reaches the `if` through the `and`'s join, or is returned: recorded all the same; an argument
    # compared after `3 * x + 7` or `x // 4` is solved for
    records = []
    for backend in ("pyevm", "revm"):
        project, feedback, _ = recording(wherever_root, backend=backend)
        box = project.Wherever.deploy()
        box.set_seed(1000)
        feedback.operands.clear(), feedback.equalities.clear()
        box.both(5)
        assert (5, 3007) in feedback.equalities and 3007 in feedback.operands
        box.scaled(5)
        assert (5, 331) in feedback.equalities  # 3 * 331 + 7 == 1000
        box.quarter(5)
        assert (5, 4000) in feedback.equalities  # 4000 // 4 == 1000
        box.same(5, {"from": project.accounts[0]})  # a transaction: its result is only returned
        assert feedback.equalities[-1] == (5, 1000)
        # an equality with the added constant itself is no overflow check: 3 * 0 + 7 == 7
        box.set_seed(7)
        box.scaled(5)
        assert (5, 0) in feedback.equalities
        # a number kept by one call and compared by a later one without arguments: the other side, as for an argument
        box.keep(12)
        feedback.operands.clear()
        box.judge()
        assert 36 in feedback.operands, feedback.operands  # 5 * 7 + 1
        feedback.earlier.clear(), feedback.operands.clear()  # a new run: the calls before it are not its own
        box.judge()
        assert 36 not in feedback.operands, feedback.operands
        records.append((list(feedback.operands), list(feedback.equalities), dict(feedback.counts)))
        assert not box.hit()
        box.set_seed(1000)
    assert records[1] == records[0]


def test_a_number_derived_from_an_argument_and_tested_for_zero_records_the_largest_argument_it_is_zero_for(wherever_root):
    # `assert assets > 0` is a JUMPI on assets itself, `_x // 16 == 0` an ISZERO of it: no comparison runs, and the
    # argument that crosses the test is where the value is still zero, the top of a division's range
    records = []
    for backend in ("pyevm", "revm"):
        project, feedback, _ = recording(wherever_root, backend=backend)
        box = project.Wherever.deploy()
        box.set_seed(499)  # a share worth 500 / 1000 of an asset, the price below one
        box.keep(999)
        assert box.redeem.call(7) == 3
        feedback.operands.clear(), feedback.zeros.clear()
        box.redeem(7)
        assert feedback.zeros == [(7, 1)], feedback.zeros  # 1 * 500 // 1000 == 0, 2 * 500 // 1000 == 1
        with pytest.raises(TransactionReverted, match="no assets"):
            box.redeem(1)
        box.set_seed(3999)  # 4000 / 1000: a share worth 4 assets, so only 0 shares pay nothing: not recorded
        feedback.zeros.clear()
        box.redeem(7)
        assert feedback.zeros == [], feedback.zeros
        box.emptied(100)
        assert feedback.zeros == [(100, 15)], feedback.zeros  # `== 0` is an ISZERO: 15 // 16 == 0
        records.append(list(feedback.zeros))
    assert records[1] == records[0]
