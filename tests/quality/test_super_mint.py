"""A ported Hypothesis machine at default settings: an ERC20 on snekmate's modules whose planted
super_mint() credits the caller without raising the total supply. The invariant (no account holds
more than the total supply) breaks only once one minter has called it 11 times in one run.

Rules are sampled in Hypothesis's order (fewer arguments first), so Hypothesis's first, simplest
program (every choice at its smallest) is super_mint by the first minter, over and over: found in
the first run, as plain Hypothesis finds it. Drawn in definition order with every rule in every run,
100 runs found it on none of 10 seeds (benchmarks/hypothesis_parity.py compares both runners)."""

from pathlib import Path

import pytest

from ..conftest import copy_project
from .conftest import run_project

pytestmark = pytest.mark.quality
SUPER_MINT = Path(__file__).parent / "super_mint"


@pytest.mark.parametrize("seed", range(2))
def test_super_mint_is_found_at_default_settings(tmp_path, seed):
    root = copy_project(SUPER_MINT, tmp_path / "super_mint")  # compiled once for every seed
    summary, _ = run_project(root, "machines/super_mint.py::SuperMint", seed=seed)
    (result,) = summary.results
    assert result.status == "failed", result.error
    failure = result.failure
    assert failure.invariant == "no_balance_exceeds_the_total_supply"
    assert failure.program == ["state = SuperMint()", *["state.super_mint(minter_seed=0)"] * 11]
