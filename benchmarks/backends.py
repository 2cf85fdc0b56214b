"""py-evm against revm: steps/s of the ERC20 model workload, the Depositer bug on revm, and where a step's time goes.

A step = one rule + all invariants over 10 accounts (the bundled ERC20 machine, 50 runs x 50 steps).
Run: python benchmarks/backends.py [--profile]    (needs pip install "evmstate[revm]")
"""

from __future__ import annotations

import cProfile
import collections
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from evmstate import Project
from evmstate import config as config_mod
from evmstate.config import BackendConfig, Config
from evmstate.runner import Overrides, RunOptions, run

REPO = Path(__file__).resolve().parent.parent

# the ERC20 machine's strategies and rules, doing nothing: what Hypothesis and the runner cost alone
DRAWS_ONLY = '''
from evmstate import strategy


class DrawsOnlyMachine:
    st_amount = strategy("uint256", max_value="1000 ether")
    st_owner = strategy("address")
    st_spender = strategy("address")
    st_receiver = strategy("address")

    def __init__(cls, accounts):
        cls.accounts = accounts

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}

    def rule_transfer(self, st_owner, st_receiver, st_amount):
        pass

    def rule_approve(self, st_owner, st_spender, st_amount):
        pass

    def rule_transfer_from(self, st_spender, st_owner, st_receiver, st_amount):
        pass

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert balance == 0
'''


def plain_hypothesis_rate(root: Path, backend: str, repeats: int) -> float:
    """Steps/s of DRAWS_ONLY's rules as a plain Hypothesis RuleBasedStateMachine (the same strategies),
    run by hypothesis.stateful.run_state_machine_as_test, 50 runs x 50 steps: what Hypothesis's
    own stateful runner costs per step."""
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

    from evmstate import strategy

    project = Project(Config(root=root, backend=BackendConfig(name=backend)))  # strategy("address") draws its accounts
    accounts = project.accounts
    amount, address = strategy("uint256", max_value="1000 ether"), strategy("address")
    steps = [0]

    class DrawsOnly(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.balances = {a: 0 for a in accounts}

        @rule(st_owner=address, st_receiver=address, st_amount=amount)
        def transfer(self, st_owner, st_receiver, st_amount):
            steps[0] += 1

        @rule(st_owner=address, st_spender=address, st_amount=amount)
        def approve(self, st_owner, st_spender, st_amount):
            steps[0] += 1

        @rule(st_spender=address, st_owner=address, st_receiver=address, st_amount=amount)
        def transfer_from(self, st_spender, st_owner, st_receiver, st_amount):
            steps[0] += 1

        @invariant()
        def balances_zero(self):
            for balance in self.balances.values():
                assert balance == 0

    rates = []
    for _ in range(repeats):
        steps[0] = 0
        started = time.perf_counter()
        run_state_machine_as_test(DrawsOnly, settings=settings(max_examples=50, stateful_step_count=50, database=None, deadline=None, suppress_health_check=list(HealthCheck)))
        rates.append(steps[0] / (time.perf_counter() - started))
    return statistics.median(rates)


def project_copy(tmp: Path) -> Path:
    root = tmp / "project"
    for name in ("contracts", "machines"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "evmstate.toml", root / "evmstate.toml")
    (root / "machines" / "draws_only.py").write_text(DRAWS_ONLY)
    return root


def run_once(root: Path, path: str, backend: str, seed: int = 0, **overrides: int) -> tuple[float, object]:
    """(seconds, result) of one run of one machine file, from a fresh example database."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    cfg = config_mod.load(root).replace(backend=BackendConfig(name=backend))
    options = RunOptions((str(root / path),), overrides=Overrides(seed=seed, **overrides), save_failures=False)
    started = time.perf_counter()
    summary = run(cfg, options, lambda e: None)
    return time.perf_counter() - started, summary.results[0]


def steps_per_second(root: Path, path: str, backend: str, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        _, result = run_once(root, path, backend, max_examples=50, stateful_step_count=50)
        assert result.status == "passed", result.failure
        rates.append(result.steps / result.elapsed)
    return statistics.median(rates)


def view_micros(project: Project, fast: bool, n: int = 2000) -> float:
    project.fast_getters = fast
    token = project.Token.deploy("T", "T", 18, 10**24)
    account = project.accounts[1]
    rounds = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(n):
            token.balanceOf(account)
        rounds.append((time.perf_counter() - started) / n * 1e6)
    project.fast_getters = True
    return statistics.median(rounds)


def where_the_time_goes(root: Path) -> None:
    """One ERC20 run on revm under cProfile, its own time summed by layer."""
    profile = cProfile.Profile()
    profile.enable()
    run_once(root, "machines/erc20.py", "revm", max_examples=50, stateful_step_count=50)
    profile.disable()
    layers: collections.Counter[str] = collections.Counter()
    for (filename, _, name), (_, _, own, _, _) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if "hypothesis" in filename or name in ("<function Random.getstate>",) or "getstate" in name:
            layer = "Hypothesis"
        elif filename.endswith(("evmstate/revm.py", "evmstate/check.py")) or "builtins.EVM" in name:
            layer = "revm backend (pyrevm and the journal reading)"
        elif filename.endswith(("evmstate/contract.py", "evmstate/abi.py", "evmstate/revert.py", "evmstate/events.py", "evmstate/units.py", "evmstate/accounts.py")) or "eth_abi" in filename or "eth_utils" in filename or "eth_hash" in filename:
            layer = "contract layer (encoding, decoding, receipts, events)"
        elif filename.endswith(("evmstate/runner.py", "evmstate/spec/machine.py", "evmstate/spec/markers.py", "evmstate/strategies.py")):
            layer = "runner"
        elif "/machines/" in filename:
            layer = "the machine's own code"
        else:
            layer = "other (builtins, contextlib, ...)"
        layers[layer] += own
    total = sum(layers.values())
    print("Where an ERC20 step's time goes on revm (cProfile, own time):")
    for layer, seconds in layers.most_common():
        print(f"  {100 * seconds / total:5.1f}%  {layer}")


def main() -> int:
    from evmstate.evm.revm import backend as revm

    if not revm.available():
        print(f"pyrevm is not installed: {revm.INSTALL_HINT}")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = project_copy(Path(tmp))
        Project(Config(root=root))  # compile once: the runs below use the build cache
        pyevm = steps_per_second(root, "machines/erc20.py", "pyevm", 1)
        fast = steps_per_second(root, "machines/erc20.py", "revm", 3)
        floor = steps_per_second(root, "machines/draws_only.py", "revm", 3)
        print(f"ERC20 50x50 on py-evm: {pyevm:6.0f} steps/s")
        print(f"ERC20 50x50 on revm:   {fast:6.0f} steps/s ({fast / pyevm:.1f}x py-evm; aim >= 3000)")
        print(f"the same rules doing nothing (Hypothesis and the runner alone): {floor:6.0f} steps/s")
        times = []
        for seed in range(5):
            elapsed, result = run_once(root, "machines/depositer.py", "revm", seed=seed)
            assert result.status == "failed" and result.failure.steps == 2, result
            times.append(elapsed)
        print(
            f"Depositer bug found, shrunk to 2 steps and explained on py-evm, on revm: median {statistics.median(times):.2f}s "
            f"over seeds 0-4 ({min(times):.2f}-{max(times):.2f}s; build cache warm; aim <= 1 s)"
        )
        for backend in ("pyevm", "revm"):
            project = Project(Config(root=root, backend=BackendConfig(name=backend)))
            print(f"Token.balanceOf on {backend}: {view_micros(project, True):6.1f} us read from storage, {view_micros(project, False):7.1f} us run as a call")
        if "--profile" in sys.argv:
            where_the_time_goes(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
