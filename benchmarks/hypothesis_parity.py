"""evmstate against plain Hypothesis on the same machines, contracts and budgets.

Two bugs, each written both ways:

- super_mint: an ERC20 built on snekmate (erc20 and ownable modules, `exports: erc20.__interface__`)
  with a planted `super_mint()` that credits the caller 100 ether without raising the total
  supply. The machine, as a real project writes one: rules mint, super_mint, transfer and burn
  over ten minter accounts (the owner holds the initial 1,000 ether), and the invariant that no
  account holds more than the total supply. The invariant breaks only once one minter has
  called super_mint about 11 times in one run (more if mints raised the supply).
- super_mint_view: the same machine with one more rule, without arguments (a view check).
  Hypothesis samples rules with fewer arguments first and tries the simplest program first
  (every choice at its smallest: the first rule, over and over), which finds super_mint at
  once when it is the rule sampled first; here the view is, and the bug must be searched for.
- echo: a stateless bug, `echo(x)` returns 0 for x == 2; a property test over strategy("uint256").

(a) plain Hypothesis: a `RuleBasedStateMachine` run by `hypothesis.stateful.run_state_machine_as_test`
    (and a `@given` test), calling the contracts through evmstate's library API (a Project, its
    chain reverted to a snapshot before every example). evmstate's `strategy()` objects are
    Hypothesis strategies; outside an evmstate run they draw as plain Hypothesis strategies.
(b) evmstate: the same machine written with evmstate's decorators (`evmstate.StateMachine`,
    `rule`, `invariant`) and the same `@given` test, run by `evmstate run`
    (tests/quality/super_mint: machines/super_mint.py, machines/test_echo.py).

Both run the same budget (max_examples runs of stateful_step_count steps, no example database,
generate phase only: the time to find), over seeds 0..N-1. Printed per bug and runner: how many
seeds found it, and the median seconds and runs to the first failure.

(c) with --native: the evmstate machine in evmstate's own loop (engine/native.py), as `evmstate fuzz` runs it.

Run: python benchmarks/hypothesis_parity.py [--seeds 10] [--examples 200] [--steps 50] [--backend revm|pyevm] [--only NAME] [--native] [--fuzz "guidance = false"]

On py-evm, seeds 0-9: super_mint_view was found by plain Hypothesis on 2 seeds and by evmstate
on 5. While four of five guided runs extended a kept run whatever came of it, evmstate found it
on none: the runs that find it are plain draws (a run that extends a kept one inherits that
run's swarm, and the kept runs are the first ones, with every rule on); the guide now draws
more plain runs the longer the corpus stays the same (search/guidance.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, assume, given, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from evmstate import Project, reverts, strategy
from evmstate import config as config_mod
from evmstate.config import BackendConfig
from evmstate.engine.events import FailureFound
from evmstate.runner import Overrides, RunOptions, run

# the contracts, and the machine and test as evmstate runs them (tests/quality/test_super_mint.py runs them too)
PROJECT = Path(__file__).resolve().parent.parent / "tests" / "quality" / "super_mint"
UINT256_MAX = 2**256 - 1
MINTERS = 10
INITIAL_SUPPLY = 1000 * 10**18

def write_project(root: Path, backend: str, fuzz: Sequence[str] = ()) -> None:
    """A copy of the project (contracts, the evmstate machine and test), on the backend, generate phase only, with these [fuzz] lines."""
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns(".evmstate"))
    toml = root / "evmstate.toml"
    toml.write_text(toml.read_text() + f'\n[backend]\nname = "{backend}"\n\n[hypothesis]\nphases = ["explicit", "generate"]\n' + ("\n[fuzz]\n" + "\n".join(fuzz) + "\n" if fuzz else ""))


# -- (a) plain Hypothesis ------------------------------------------------------------------------


class Found(Exception):
    """The first failure: plain Hypothesis's run stops here (no shrinking, as evmstate's generate-only runs)."""


def plain_machine(project: Project, found: list[tuple[float, int]], started: float, view: bool) -> type[RuleBasedStateMachine]:
    accounts, chain = project.accounts, project.chain
    owner, minters = accounts[0], list(accounts[1 : MINTERS + 1])
    token = project.SnekToken.deploy(INITIAL_SUPPLY, {"from": owner})
    base = chain.snapshot()
    runs = [0]

    class SuperMintPlain(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            nonlocal base
            chain.revert(base)
            base = chain.snapshot()
            runs[0] += 1

        @rule(amount=strategy("uint256"), minter_seed=st.integers(min_value=0, max_value=MINTERS - 1))
        def mint(self, amount, minter_seed):
            assume(token.totalSupply() + amount < UINT256_MAX)
            token.mint(minters[minter_seed], amount, {"from": owner})

        @rule(minter_seed=st.integers(min_value=0, max_value=MINTERS - 1))
        def super_mint(self, minter_seed):
            token.super_mint({"from": minters[minter_seed]})

        @rule(amount=strategy("uint256"), sender_seed=st.integers(min_value=0, max_value=MINTERS - 1), receiver_seed=st.integers(min_value=0, max_value=MINTERS - 1))
        def transfer(self, amount, sender_seed, receiver_seed):
            sender, receiver = minters[sender_seed], minters[receiver_seed]
            if amount > token.balanceOf(sender):
                with reverts():
                    token.transfer(receiver, amount, {"from": sender})
            else:
                token.transfer(receiver, amount, {"from": sender})

        @rule(amount=strategy("uint256"), holder_seed=st.integers(min_value=0, max_value=MINTERS - 1))
        def burn(self, amount, holder_seed):
            holder = minters[holder_seed]
            if amount > token.balanceOf(holder):
                with reverts():
                    token.burn(amount, {"from": holder})
            else:
                token.burn(amount, {"from": holder})

        @invariant()
        def no_balance_exceeds_the_total_supply(self):
            supply = token.totalSupply()
            for minter in minters:
                if token.balanceOf(minter) > supply:
                    found.append((time.perf_counter() - started, runs[0]))
                    raise Found()

    if not view:
        return SuperMintPlain

    class SuperMintPlainWithView(SuperMintPlain):
        @rule()
        def metadata(self):
            assert token.decimals() == 18

    return SuperMintPlainWithView


def plain_settings(examples: int, steps: int) -> settings:
    return settings(max_examples=examples, stateful_step_count=steps, database=None, deadline=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


def plain_super_mint(root: Path, backend: str, seed_: int, examples: int, steps: int, view: bool) -> tuple[float, int] | None:
    project = Project(config_mod.load(root).replace(backend=BackendConfig(name=backend)))
    found: list[tuple[float, int]] = []
    machine = plain_machine(project, found, time.perf_counter(), view)
    try:
        run_state_machine_as_test(seed(seed_)(machine), settings=plain_settings(examples, steps))
    except Found:
        pass
    return found[0] if found else None


def plain_echo(root: Path, backend: str, seed_: int, examples: int) -> tuple[float, int] | None:
    project = Project(config_mod.load(root).replace(backend=BackendConfig(name=backend)))
    echo = project.Echo.deploy({"from": project.accounts[0]})
    started = time.perf_counter()
    found: list[tuple[float, int]] = []
    runs = [0]

    @seed(seed_)
    @plain_settings(examples, 1)
    @given(input_number=strategy("uint256"))
    def test_echo(input_number):
        runs[0] += 1
        if echo.echo(input_number) != input_number:
            found.append((time.perf_counter() - started, runs[0]))
            raise Found()

    try:
        test_echo()
    except Found:
        pass
    return found[0] if found else None


# -- (b) evmstate -----------------------------------------------------------------------------------


def evmstate_find(root: Path, path: str, seed_: int, examples: int, steps: int) -> tuple[float, int] | None:
    """(seconds, runs) to the first failure of `evmstate run path --seed seed_`, or None."""
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)  # search, do not replay a saved failure
    found_at: list[float] = []
    started = time.perf_counter()

    def on_event(event: object) -> None:
        if isinstance(event, FailureFound) and not found_at:
            found_at.append(time.perf_counter() - started)

    overrides = Overrides(seed=seed_, max_examples=examples, stateful_step_count=steps)
    summary = run(config_mod.load(root), RunOptions((str(root / path),), overrides=overrides, save_failures=False), on_event)
    (result,) = summary.results
    if result.failure is None:
        return None
    return found_at[0], result.statistics.get("first failure at run")


def native_find(root: Path, path: str, seed_: int, examples: int, steps: int) -> tuple[float, int] | None:
    """(seconds, runs) to the first failure of the machine in evmstate's own loop (engine/native.py), as a campaign's shard runs it, or None."""
    from evmstate.contracts.project import Project as Project_
    from evmstate.engine.discovery import discover
    from evmstate.engine.item import RunRequest, run_item

    for kept in ("examples", "corpus"):
        shutil.rmtree(root / ".evmstate" / kept, ignore_errors=True)
    config = config_mod.load(root)
    (item,) = discover(config, (str(root / path),)).items
    project = Project_(config)
    project.activate()
    found_at: list[float] = []
    started = time.perf_counter()

    def on_event(event: object) -> None:
        if isinstance(event, FailureFound) and not found_at:
            found_at.append(time.perf_counter() - started)

    overrides = Overrides(seed=seed_, max_examples=examples, stateful_step_count=steps)
    result = run_item(config, project, item, RunRequest(overrides=overrides, seed=seed_, native=True, corpus=True, save_failures=False), on_event)
    assert not result.statistics["evmstate's own loop"].startswith("off"), result.statistics
    if result.failure is None:
        return None
    return found_at[0], result.statistics.get("first failure at run")


def report(label: str, outcomes: list[tuple[float, int] | None], budget: str) -> None:
    found = [o for o in outcomes if o is not None]
    if found:
        seconds = statistics.median(o[0] for o in found)
        runs = statistics.median(o[1] for o in found)
        print(f"  {label:18} found in {len(found):2}/{len(outcomes)} seeds; median {seconds:5.1f}s and {runs:5.0f} runs to the first failure ({budget})")
    else:
        print(f"  {label:18} found in  0/{len(outcomes)} seeds ({budget})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--examples", type=int, default=200, help="runs per seed for the machine (default 200)")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--test-examples", type=int, default=100, help="examples per seed for the property test (Hypothesis's default, 100)")
    parser.add_argument("--backend", default="revm", choices=("pyevm", "revm"))
    parser.add_argument("--only", choices=("super_mint", "super_mint_view", "echo"))
    parser.add_argument("--native", action="store_true", help="also each machine in evmstate's own loop, as evmstate fuzz runs it")
    parser.add_argument("--native-only", action="store_true", help="with --native: only the machines in evmstate's own loop")
    parser.add_argument("--fuzz", action="append", default=[], metavar="LINE", help='a line for evmstate.toml\'s [fuzz] section, e.g. "guidance = false" (repeatable); plain Hypothesis ignores it')
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; backend {args.backend}; seeds 0..{args.seeds - 1}" + (f"; evmstate's [fuzz]: {', '.join(args.fuzz)}" if args.fuzz else ""))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        write_project(root, args.backend, args.fuzz)
        Project(config_mod.load(root))  # compile once: every run below uses the build cache
        seeds = range(args.seeds)
        budget = f"{args.examples} runs x {args.steps} steps"
        for view, name in ((False, "super_mint"), (True, "super_mint_view")):
            if args.only not in (None, name):
                continue
            what = "the machine above with a rule without arguments, sampled first" if view else "snekmate ERC20, one minter ~11 times"
            print(f"{name} ({what}), {budget}:")
            machine = "machines/super_mint.py::" + ("SuperMintWithView" if view else "SuperMint")
            if not args.native_only:
                report("plain Hypothesis", [plain_super_mint(root, args.backend, s, args.examples, args.steps, view) for s in seeds], budget)
                report("evmstate", [evmstate_find(root, machine, s, args.examples, args.steps) for s in seeds], budget)
            if args.native:
                report("evmstate's own loop", [native_find(root, machine, s, args.examples, args.steps) for s in seeds], budget)
        if args.only in (None, "echo") and not args.native_only:
            budget = f"{args.test_examples} examples"
            print(f"echo (input 2 returns 0), property test, {budget}:")
            report("plain Hypothesis", [plain_echo(root, args.backend, s, args.test_examples) for s in seeds], budget)
            report("evmstate", [evmstate_find(root, "machines/test_echo.py", s, args.test_examples, 1) for s in seeds], budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
