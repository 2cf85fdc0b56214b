"""Observation-dependent generation: routed and filtered bundles find the payment bug and
shrink it to the minimal 3-step program; a replay re-resolves the ids the contract returns."""

import pytest

from evmstate import config as config_mod
from evmstate.failures import FailureStore
from evmstate.engine.replay import replay

from .conftest import FASTEST, run_project

pytestmark = pytest.mark.quality

ROUTED = [
    "state = PaymentsRouted()",
    "authorized_0 = state.authorize(amount=1)",
    "voided_0 = state.void(payment=authorized_0)",
    "state.capture_voided(payment=voided_0)",
]
FILTERED = [
    "state = PaymentsFiltered()",
    "payments_0 = state.authorize(amount=1)",
    "state.void(payment=payments_0)",
    "state.capture_refused(payment=payments_0)",
]


# two pinned seeds (five before): on each, both machines must report the minimal program; on revm, where the searches
# and their shrinking cost less (what a bundle routes or filters does not depend on the EVM)
@pytest.mark.parametrize("seed", [1, 4])
def test_both_machines_shrink_to_the_minimal_program(example, seed):
    summary, _ = run_project(example, "machines/payments.py", seed=seed, backend=FASTEST)
    by_name = {r.name: r for r in summary.results}
    routed, filtered = by_name["PaymentsRouted"], by_name["PaymentsFiltered"]
    for result in (routed, filtered):
        assert result.status == "failed"
        assert result.failure.steps <= 4
        assert "Capture" not in result.failure.message
        assert result.statistics["rejected runs"] == 0, "a filter with no match never discards a run"
    assert routed.failure.program == ROUTED
    assert filtered.failure.program == FILTERED
    assert "Payments.capture(1000) succeeded where reverts('Not authorized') expected a revert" == routed.failure.message
    void = filtered.rules["void"].filters["payment"]
    assert void.enabled > 0 and void.skipped > 0


def test_replay_of_a_routed_failure_survives_new_ids(example, monkeypatch):
    monkeypatch.chdir(example)
    # found on revm, replayed on the project's py-evm: the record holds no id the contract returned
    summary, _ = run_project(example, "machines/payments.py", seed=0, max_examples=50, backend=FASTEST)
    routed = next(r for r in summary.results if r.name == "PaymentsRouted")
    store = FailureStore(example / ".evmstate" / "failures")
    record = store.load(routed.failure_id)
    assert record.steps[1] == {"rule": "void", "arguments": {"payment": {"ref": "authorized_0"}}, "results": ["voided_0"]}
    source = example / "contracts" / "Payments.vy"
    source.write_text(source.read_text().replace("self.next_id + 1000", "self.next_id + 777000"))
    steps = []
    result = replay(config_mod.load(example), record, steps.append)
    assert result.verdict == "still fails"
    assert result.message == "Payments.capture(777000) succeeded where reverts('Not authorized') expected a revert"
    assert [s.line for s in steps] == [
        "authorized_0 = state.authorize(amount=1)",
        "voided_0 = state.void(payment=authorized_0)",
        "state.capture_voided(payment=voided_0)",
    ]
    assert "contracts: Payments" in result.changed
