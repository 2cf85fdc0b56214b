"""A planted divergence between a vault and its upgrade (previewRedeem rounds up in the new one) found by
--differential sources and shrunk to its minimal program, on both backends, at the project's own budget."""

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.quality

from ..conftest import BACKENDS  # noqa: E402
from .conftest import search  # noqa: E402

PROJECT = Path(__file__).parent.parent / "projects" / "differential"

# the shortest program that diverges: 1 share of a supply of 2 backed by 3 wei is worth 1.5 wei, which one
# build rounds down and the other up; a supply of 1, or no donation, leaves nothing to round
PROGRAM = [
    "state = VaultMachine()",
    "state.rule_donate(amount=1)",
    "state.rule_deposit(address=accounts[0], amount=2)",
    "state.rule_preview(shares=1)",
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_rounding_divergence_is_shrunk_to_its_three_steps(tmp_path, backend):
    root = tmp_path / "differential"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns(".evmstate"))
    toml = root / "evmstate.toml"
    toml.write_text(toml.read_text() + f'\n[differential]\nmode = "sources:contracts_v1:"\n\n[backend]\nname = "{backend}"\n')
    found = search(root, "machines/vault.py", [0])
    for run in found:
        assert run["status"] == "failed" and run["error_type"] == "BuildsDiverged", run
        assert run["program"] == PROGRAM, (run["seed"], run["program"])
        head, a, b = run["message"].splitlines()
        assert head == "Vault.previewRedeem(1) from accounts[0] (a call): build B (new (contracts/)) diverged from build A (old (contracts_v1/)) in its return data"
        assert (a, b) == ("  A (old (contracts_v1/)): returned 1", "  B (new (contracts/)): returned 2")
