"""The benchmarks' vault-class workload (benchmarks/projects/vault): the vault and its mocks compile from snekmate's
installed modules, a program through its whole cycle agrees with the machine's model, and the machine passes a short
run on py-evm, every answer of the call cache checked against the call run again. Its planted bugs are found in
tests/quality/test_vault_bugs.py; its figures are the benchmarks'."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from evmstate import Project
from evmstate.contracts import calls
from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.engine.loader import load_module
from evmstate.engine.program import init_class, run_program
from evmstate.engine.recorded import RecordedStep
from evmstate.runner import Overrides, RunOptions, run
from evmstate.spec import collect

from ..conftest import REPO, copy_project

PROJECT = REPO / "benchmarks" / "projects" / "vault"
ETHER = 10**18
DAY = 86400


def step(rule: str, delay: int = 0, **arguments: object) -> RecordedStep:
    return RecordedStep(f"rule_{rule}", {k: {"account": v[1]} if isinstance(v, tuple) else v for k, v in arguments.items()}, delay=(delay, 0))


# two depositors; both strategies lent to, one gains and is reported (its profit locked), the other is locked and
# loses; three days on, part of the profit has unlocked and each depositor takes what the vault can pay
CYCLE = [
    step("deposit", st_actor=("account", 0), st_receiver=("account", 0), st_assets=600 * ETHER),
    step("mint", st_actor=("account", 1), st_receiver=("account", 1), st_shares=400 * ETHER),
    step("update_debt", st_strategy=0, st_debt=500 * ETHER),
    step("update_debt", st_strategy=1, st_debt=300 * ETHER),
    step("strategy_gain", DAY, st_strategy=0, st_knob=50 * ETHER),
    step("process_report", st_strategy=0),
    step("strategy_lock", st_strategy=1, st_knob=100 * ETHER),
    step("strategy_loss", st_strategy=1, st_knob=30 * ETHER),
    step("redeem_max", 3 * DAY, st_actor=("account", 0), st_receiver=("account", 0)),
    step("withdraw_max", st_actor=("account", 1), st_receiver=("account", 2)),
    step("process_report", st_strategy=1),
    step("shutdown"),
    step("update_debt", st_strategy=1, st_debt=0),
]


def test_the_vault_compiles_on_snekmate_and_its_machine_passes(tmp_path: Path) -> None:
    root = copy_project(PROJECT, tmp_path / "vault")
    with open(root / "evmstate.toml", "a") as toml:
        toml.write('\n[fuzz]\ncall_cache = "check"\n')
    # the cycle on revm: whether the model follows the vault does not depend on the EVM, and the machine's invariants
    # (two dozen view calls after every step) cost a fraction there; the search below runs on py-evm
    project = Project(config_mod.load(root).replace(backend=BackendConfig(name="revm")))
    assert not project.build.errors
    assert {"Vault", "MockStrategy", "MockAccountant", "ERC20Mock"} == set(project.build.artifacts)
    assert any(path.replace("\\", "/").endswith("snekmate/extensions/erc4626.vy") for path in project.build.artifacts["Vault"].inputs)

    spec = collect(load_module(root / "machines" / "vault.py").VaultMachine)
    init_class(spec, project)
    sent: list[calls.CallRecord] = []
    with contextlib.redirect_stdout(io.StringIO()), calls.recording(lambda record: sent.append(record) if record.kind == "transaction" else None):
        cycle = run_program(spec, project, CYCLE, strict=True)
    assert cycle.error is None, cycle
    # every step's transaction went through: the model followed the vault through its whole cycle, not through refusals
    assert [f"{r.contract}.{r.function}" for r in sent] == [
        "Vault.deposit", "Vault.mint", "Vault.update_debt", "Vault.update_debt", "MockStrategy.simulate_gain", "Vault.process_report",
        "MockStrategy.set_locked", "MockStrategy.simulate_loss", "Vault.redeem", "Vault.withdraw", "Vault.process_report",
        "Vault.shutdown_vault", "Vault.update_debt",
    ]
    assert all(r.success for r in sent), [r.error for r in sent if not r.success]

    options = RunOptions((str(root / "machines" / "vault.py"),), overrides=Overrides(seed=0, max_examples=4, stateful_step_count=12), save_failures=False)
    (result,) = run(config_mod.load(root), options, lambda event: None).results
    assert result.status == "passed", result.failure or result.error
    assert result.steps == 48
