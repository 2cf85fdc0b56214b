"""Speed on real code, in one run: steps/s of the ERC20 workloads on both backends with the call cache on and off,
the do-nothing ceiling, revm with explained reverts, and -n 1 against -n 2 with start-up included.

- ERC20 workload: the bundled ERC20 machine (machines/erc20.py, 10 accounts), 50 runs x 50 steps.
- snekmate ERC20: a contract built from snekmate's erc20 and ownable modules (exports:
  erc20.__interface__) with a machine written as real projects write one: after every step the
  invariants compare every account's balance and minter role, every allowance the model knows,
  the owner and the total supply (about 30 view calls a step). "getters run as calls" is the same
  machine with public getters run through the EVM (as before module getters were read from
  storage), so that the cache has every view call to answer.
- do-nothing ceiling: the ERC20 machine's strategies and rules, doing nothing (Hypothesis and
  the runner alone); next to it, the same rules and strategies as a plain Hypothesis
  RuleBasedStateMachine run by run_state_machine_as_test: what Hypothesis's own stateful runner
  costs per step, the bound for a runner that draws through Hypothesis's public API.
- explained reverts on revm: vyper's ERC20 example in short, whose machine expects
  reverts("safesub"): each such revert needs its source line, which revm does not give.
- vault-class machine: the allocator vault of benchmarks/projects/vault (a Yearn V3-shaped vault on
  snekmate's erc4626, two strategies with gain, loss and lock knobs, an accountant; 18 rules, four
  invariants over its accounting, exact previews; about 23 contract calls a step, vault_bugs.py),
  20 runs x 50 steps: steps/s on both backends, revm against py-evm, the calls a step makes, and on
  revm the share of its time in the sight (evm/sight.py running calls again for the search's
  signals, with the tracer, and failed calls explained on py-evm, evm/shadow.py). Aim, on a quiet
  machine: revm >= 1000 steps/s and >= 5x py-evm, the sight <= 15%.
  And on revm at [fuzz] invariant_interval = 5 (the invariants after every fifth step and at each run's end).
- -n 1 and -n 2: the ERC20 workload, 200 runs in 2 shards, wall time with the workers' start-up.
- evmstate's own loop: the same machines as `evmstate fuzz` runs them (engine/native.py: runs drawn
  in plain Python, each failure handed to Hypothesis), next to the same machine under Hypothesis
  (EVMSTATE_NATIVE=0), measured one after the other so that the machine's load weighs on both alike.
  `evmstate run` draws through the own loop on revm (engine.native.own_loop), so the run-style figures
  above are the own loop's on revm and Hypothesis's on py-evm.
- this machine now: a fixed Python workload's time before and after those figures. A shared machine's
  speed moves by a third within minutes, at the same load: two runs' figures compare only beside it.

Run: python benchmarks/speed.py [--quick] [--native]    (revm figures need pip install "evmstate[revm]")
  --native  only the figures of evmstate's own loop and their Hypothesis counterparts
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from evmstate import config as config_mod
from evmstate.config import NATIVE_VARIABLE, BackendConfig
from evmstate.evm.revm import backend as revm
from evmstate.runner import Overrides, RunOptions, run

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
VAULT = HERE / "projects" / "vault"
VAULT_EXAMPLES = 20  # runs of 50 steps: py-evm takes about a minute for them
sys.path.insert(0, str(HERE))

import backends as backends_bench  # noqa: E402  (the do-nothing machine)
import parallel as parallel_bench  # noqa: E402

SNEKMATE_MACHINE = '''
from evmstate import reverts, strategy


class SnekERC20Machine:
    st_amount = strategy("uint256", max_value="1000 ether")
    st_owner = strategy("address")
    st_spender = strategy("address")
    st_receiver = strategy("address")
    st_status = strategy("bool")

    def __init__(cls, accounts, ERC20Mock):
        cls.accounts = accounts
        cls.token = ERC20Mock.deploy("Token", "TKN", "1000 ether", "Token", "1", {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = 1000 * 10**18
        self.allowances = {}
        self.owner = self.accounts[0]
        self.minters = {self.accounts[0]}

    def rule_transfer(self, st_owner, st_receiver, st_amount):
        if self.balances[st_owner] >= st_amount:
            self.token.transfer(st_receiver, st_amount, {"from": st_owner})
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
        else:
            with reverts("erc20: transfer amount exceeds balance"):
                self.token.transfer(st_receiver, st_amount, {"from": st_owner})

    def rule_approve(self, st_owner, st_spender, st_amount):
        self.token.approve(st_spender, st_amount, {"from": st_owner})
        self.allowances[(st_owner, st_spender)] = st_amount

    def rule_transfer_from(self, st_spender, st_owner, st_receiver, st_amount):
        allowed = self.allowances.get((st_owner, st_spender), 0)
        if allowed < st_amount:
            with reverts("erc20: insufficient allowance"):
                self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
        elif self.balances[st_owner] < st_amount:
            with reverts("erc20: transfer amount exceeds balance"):
                self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
        else:
            self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
            if allowed != 2**256 - 1:
                self.allowances[(st_owner, st_spender)] = allowed - st_amount

    def rule_mint(self, st_spender, st_receiver, st_amount):
        if st_spender in self.minters:
            self.token.mint(st_receiver, st_amount, {"from": st_spender})
            self.balances[st_receiver] += st_amount
        else:
            with reverts("erc20: access is denied"):
                self.token.mint(st_receiver, st_amount, {"from": st_spender})

    def rule_burn(self, st_owner, st_amount):
        if self.balances[st_owner] >= st_amount:
            self.token.burn(st_amount, {"from": st_owner})
            self.balances[st_owner] -= st_amount
        else:
            with reverts("erc20: burn amount exceeds balance"):
                self.token.burn(st_amount, {"from": st_owner})

    def rule_set_minter(self, st_spender, st_owner, st_status):
        if st_spender != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.token.set_minter(st_owner, st_status, {"from": st_spender})
        elif st_owner == self.owner:
            with reverts("erc20: minter is owner address"):
                self.token.set_minter(st_owner, st_status, {"from": st_spender})
        else:
            self.token.set_minter(st_owner, st_status, {"from": st_spender})
            (self.minters.add if st_status else self.minters.discard)(st_owner)

    def rule_transfer_ownership(self, st_spender, st_owner):
        if st_spender != self.owner:
            with reverts("ownable: caller is not the owner"):
                self.token.transfer_ownership(st_owner, {"from": st_spender})
        else:
            self.token.transfer_ownership(st_owner, {"from": st_spender})
            self.minters.discard(self.owner)
            self.owner = st_owner
            self.minters.add(st_owner)

    def invariant_balances(self):
        for account in self.accounts:
            assert self.token.balanceOf(account) == self.balances[account]

    def invariant_total_supply(self):
        assert self.token.totalSupply() == sum(self.balances.values())

    def invariant_roles(self):
        assert self.token.owner() == self.owner
        for account in self.accounts:
            assert self.token.is_minter(account) == (account in self.minters)

    def invariant_allowances(self):
        for (owner, spender), amount in self.allowances.items():
            assert self.token.allowance(owner, spender) == amount
'''

VY_TOKEN = '''# pragma version ~=0.4.3
# vyper's ERC20 example, in short: an overdraft fails vyper's own underflow check (safesub).

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])
totalSupply: public(uint256)


@deploy
def __init__(supply: uint256):
    self.balanceOf[msg.sender] = supply
    self.totalSupply = supply


@external
def transfer(to: address, amount: uint256) -> bool:
    self.balanceOf[msg.sender] -= amount
    self.balanceOf[to] += amount
    log Transfer(sender=msg.sender, receiver=to, value=amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    return True


@external
def transferFrom(owner: address, to: address, amount: uint256) -> bool:
    self.balanceOf[owner] -= amount
    self.balanceOf[to] += amount
    self.allowance[owner][msg.sender] -= amount
    log Transfer(sender=owner, receiver=to, value=amount)
    return True
'''

VY_MACHINE = '''
from evmstate import reverts, strategy


class VyERC20Machine:
    st_amount = strategy("uint256", max_value="1000 ether")
    st_owner = strategy("address")
    st_spender = strategy("address")
    st_receiver = strategy("address")

    def __init__(cls, accounts, VyToken):
        cls.accounts = accounts
        cls.token = VyToken.deploy(10**21, {"from": accounts[0]})

    def setup(self):
        self.balances = {a: 0 for a in self.accounts}
        self.balances[self.accounts[0]] = 10**21
        self.allowances = {}

    def rule_transfer(self, st_owner, st_receiver, st_amount):
        if self.balances[st_owner] >= st_amount:
            self.token.transfer(st_receiver, st_amount, {"from": st_owner})
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
        else:
            with reverts("safesub"):
                self.token.transfer(st_receiver, st_amount, {"from": st_owner})

    def rule_approve(self, st_owner, st_spender, st_amount):
        self.token.approve(st_spender, st_amount, {"from": st_owner})
        self.allowances[(st_owner, st_spender)] = st_amount

    def rule_transfer_from(self, st_spender, st_owner, st_receiver, st_amount):
        allowed = self.allowances.get((st_owner, st_spender), 0)
        if self.balances[st_owner] >= st_amount and allowed >= st_amount:
            self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})
            self.balances[st_owner] -= st_amount
            self.balances[st_receiver] += st_amount
            self.allowances[(st_owner, st_spender)] = allowed - st_amount
        else:
            with reverts("safesub"):
                self.token.transferFrom(st_owner, st_receiver, st_amount, {"from": st_spender})

    def invariant_balances(self):
        for account, balance in self.balances.items():
            assert self.token.balanceOf(account) == balance
'''


def project(tmp: Path) -> Path:
    """The bundled project plus the benchmark's machines and contracts (snekmate's ERC20 mock, vyper's ERC20 in short)."""
    root = backends_bench.project_copy(tmp)
    shutil.copy(REPO / "tests" / "projects" / "snekmate" / "contracts" / "ERC20Mock.vy", root / "contracts" / "ERC20Mock.vy")
    (root / "contracts" / "VyToken.vy").write_text(VY_TOKEN)
    (root / "machines" / "snek_erc20.py").write_text(SNEKMATE_MACHINE)
    (root / "machines" / "vy_erc20.py").write_text(VY_MACHINE)
    return root


def vault_project(tmp: Path) -> Path:
    """A copy of the vault-class workload's project (copied, not imported through vault_bugs.py: Hypothesis draws
    constants from every local module this process loads, and the figures above are measured in it too)."""
    root = tmp / "vault"
    shutil.copytree(VAULT, root, ignore=shutil.ignore_patterns(".evmstate", "__pycache__"))
    return root


class SightClock:
    """CPU time spent in the revm backend's sight (calls run again by the tracer, their records merged into the result)
    and in the failed calls it explains on py-evm, while in use; a call inside another is counted once."""

    def __init__(self) -> None:
        from evmstate.evm.revm import shadow, sight

        self.seconds = 0.0
        self.depth = 0
        self.patched = [(sight.Sight, name) for name in ("see", "record", "show")] + [(shadow.Explaining, "_run_on_py_evm")]
        self.originals = [getattr(owner, name) for owner, name in self.patched]

    def timed(self, method: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            if self.depth:
                return method(*args, **kwargs)
            self.depth += 1
            started = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - started
                self.depth -= 1

        return run

    def __enter__(self) -> "SightClock":
        for (owner, name), original in zip(self.patched, self.originals):
            setattr(owner, name, self.timed(original))
        return self

    def __exit__(self, *exc: object) -> None:
        for (owner, name), original in zip(self.patched, self.originals):
            setattr(owner, name, original)


def calls_per_step(root: Path, machine: str) -> tuple[float, float]:
    """(contract calls, transactions) a step of the machine makes, over 5 runs x 50 steps from seed 0 on py-evm: the calls
    that reach the backend (those the call cache answers included; public getters read from storage are not calls)."""
    from evmstate.evm.pyevm.backend import PyEVMBackend

    counted = {"call": 0, "transact": 0}
    originals = {name: getattr(PyEVMBackend, name) for name in counted}

    def counting(name: str) -> Any:
        def method(self: PyEVMBackend, *args: Any, **kwargs: Any) -> Any:
            counted[name] += 1
            return originals[name](self, *args, **kwargs)

        return method

    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    for name in counted:
        setattr(PyEVMBackend, name, counting(name))
    try:
        summary = run(config_mod.load(root), RunOptions((str(root / "machines" / machine),), overrides=Overrides(seed=0, max_examples=5, stateful_step_count=50), save_failures=False), lambda e: None)
    finally:
        for name, original in originals.items():
            setattr(PyEVMBackend, name, original)
    (result,) = summary.results
    return (counted["call"] + counted["transact"]) / result.steps, counted["transact"] / result.steps


def vault_figures(root: Path, backends: tuple[str, ...], repeats: int) -> None:
    """The vault-class machine, run-style: steps/s on each backend with the call cache on and off, and on revm the sight's share."""
    per_step, transactions = calls_per_step(root, "vault.py")
    print(f"vault-class machine ({VAULT_EXAMPLES} runs x 50 steps): {per_step:.1f} contract calls a step, {transactions:.1f} of them transactions")
    rates = {}
    for backend in backends:
        clock = SightClock()
        with clock:
            started = time.process_time()
            on = rate(root, "vault.py", backend, "on", repeats, examples=VAULT_EXAMPLES)
            cpu = time.process_time() - started
        off = rate(root, "vault.py", backend, "off", repeats, examples=VAULT_EXAMPLES)
        rates[backend] = on
        sight = f"; the sight {100 * clock.seconds / cpu:.0f}% of its CPU time (aim <= 15%)" if backend == "revm" else ""
        aim = "  (aim >= 1000)" if backend == "revm" else ""
        print(f"{'vault-class machine':26} {backend:5}: cache on {on:6.0f}, off {off:6.0f}{aim}; {1e6 / (on * per_step):.0f} µs a call{sight}  (load {os.getloadavg()[0]:.2f})")
    if "revm" in rates:
        print(f"vault-class machine: revm {rates['revm'] / rates['pyevm']:.1f}x py-evm  (aim >= 5x)")
        clock = SightClock()
        with clock:
            started = time.process_time()
            sparse = rate(root, "vault.py", "revm", "on", repeats, examples=VAULT_EXAMPLES, interval=5)
            cpu = time.process_time() - started
        print(f"vault-class machine revm, invariant_interval = 5: {sparse:6.0f} ({sparse / rates['revm']:.1f}x every step); the sight {100 * clock.seconds / cpu:.0f}% of its CPU time  (load {os.getloadavg()[0]:.2f})")


def rate(root: Path, machine: str, backend: str, cache: str, repeats: int, examples: int = 50, getters: bool = True, interval: int = 1) -> float:
    """Median steps/s of the machine, 50-step runs from seed 0, fresh example database each time (interval: [fuzz] invariant_interval)."""
    cfg = config_mod.load(root)
    cfg = dataclasses.replace(cfg, backend=BackendConfig(name=backend), fuzz=dataclasses.replace(cfg.fuzz, call_cache=cache, invariant_interval=interval))
    rates = []
    for _ in range(repeats):
        shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
        options = RunOptions((str(root / "machines" / machine),), overrides=Overrides(seed=0, max_examples=examples, stateful_step_count=50), save_failures=False)
        if getters:
            summary = run(cfg, options, lambda e: None)
        else:
            summary = _without_fast_getters(cfg, options)
        (result,) = summary.results
        assert result.status == "passed", result.failure or result.error
        rates.append(result.steps / result.elapsed)
    return statistics.median(rates)


def native_rate(root: Path, machine: str, backend: str, repeats: int, examples: int = 50) -> float:
    """Median steps/s of the machine in evmstate's own loop, as a campaign's shard runs it: 50-step runs from seed 0."""
    from evmstate.contracts.project import Project
    from evmstate.engine.discovery import discover
    from evmstate.engine.item import RunRequest, run_item

    cfg = config_mod.load(root)
    cfg = dataclasses.replace(cfg, backend=BackendConfig(name=backend))
    project = Project(cfg)
    project.activate()
    (item,) = discover(cfg, (str(root / "machines" / machine),)).items
    rates = []
    for _ in range(repeats):
        for kept in ("examples", "corpus"):
            shutil.rmtree(root / ".evmstate" / kept, ignore_errors=True)
        overrides = Overrides(seed=0, max_examples=examples, stateful_step_count=50)
        request = RunRequest(overrides=overrides, seed=0, native=True, corpus=True, save_failures=False)
        result = run_item(cfg, project, item, request, lambda e: None)
        assert result.status == "passed", result.failure or result.error
        loop = result.statistics["evmstate's own loop"]
        assert not loop.startswith("off"), loop
        rates.append(result.steps / result.elapsed)
    return statistics.median(rates)


@contextlib.contextmanager
def hypothesis_loop() -> Iterator[None]:
    """Runs drawn by Hypothesis on every backend (EVMSTATE_NATIVE=0: `evmstate run` on revm draws through the own loop)."""
    before = os.environ.get(NATIVE_VARIABLE)
    os.environ[NATIVE_VARIABLE] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[NATIVE_VARIABLE]
        else:
            os.environ[NATIVE_VARIABLE] = before


def native_figures(root: Path, vault: Path, backends: tuple[str, ...], repeats: int) -> None:
    """evmstate's own loop next to Hypothesis, machine by machine, one right after the other."""
    print(f"evmstate's own loop (evmstate fuzz) against Hypothesis's (evmstate run), load {os.getloadavg()[0]:.2f}:")
    last = backends[-1]
    cases = [
        ("do-nothing machine", root, "draws_only.py", last, "aim >= 25000", 50),
        *((f"ERC20 workload (bundled) {b}", root, "erc20.py", b, "aim >= 6000" if b == "revm" else "no slower", 50) for b in backends),
        *((f"snekmate ERC20 {b}", root, "snek_erc20.py", b, "aim >= 3000" if b == "revm" else "no slower", 50) for b in backends),
        *((f"vault-class machine {b}", vault, "vault.py", b, "aim >= 1000" if b == "revm" else "no slower", VAULT_EXAMPLES) for b in backends),
    ]
    for label, project_root, machine, backend, aim, examples in cases:
        with hypothesis_loop():
            hypothesis_rate = rate(project_root, machine, backend, "on", repeats, examples)
        own = native_rate(project_root, machine, backend, repeats, examples)
        print(f"  {label:30}: own loop {own:6.0f}, Hypothesis {hypothesis_rate:6.0f} ({own / hypothesis_rate:.1f}x)  ({aim}; load {os.getloadavg()[0]:.2f})")


def _without_fast_getters(cfg: config_mod.Config, options: RunOptions):
    """A run where every public getter runs through the EVM (the project's fast_getters off)."""
    from evmstate.contracts import project as project_mod

    init = project_mod.Project.__init__

    def slow_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.fast_getters = False

    project_mod.Project.__init__ = slow_init
    try:
        return run(cfg, options, lambda e: None)
    finally:
        project_mod.Project.__init__ = init


def machine_speed() -> float:
    """Milliseconds of one fixed pure-Python workload (dicts, tuples, calls), best of 3: how fast this machine runs
    Python right now. Printed beside the figures: on a shared machine it moves by a third within minutes."""

    def step(d: dict[int, tuple[int, int]], i: int) -> int:
        d[i % 1021] = (i, i * 7)
        return d.get((i * 31) % 1021, (0, 0))[1]

    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        d: dict[int, tuple[int, int]] = {}
        total = 0
        for i in range(1_000_000):
            total += step(d, i)
        best = min(best, time.process_time() - started)
    return best * 1000


def main() -> int:
    quick = "--quick" in sys.argv
    repeats = 1 if quick else 3
    have_revm = revm.available()
    if not have_revm:
        print(f"pyrevm is not installed ({revm.INSTALL_HINT}): revm figures are left out")
    backends = ("pyevm", "revm") if have_revm else ("pyevm",)
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; medians of {repeats}; steps/s")
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        vault = vault_project(Path(tmp))
        os.chdir(root)
        for compiled, machine in ((root, "erc20.py"), (vault, "vault.py")):
            run(config_mod.load(compiled), RunOptions((str(compiled / "machines" / machine),), overrides=Overrides(max_examples=1, stateful_step_count=1, seed=0), save_failures=False), lambda e: None)
        started = time.perf_counter()
        print(f"this machine now: a fixed Python workload takes {machine_speed():.0f} ms (lower is faster)")
        native_figures(root, vault, backends, repeats)
        print(f"this machine now: the same workload takes {machine_speed():.0f} ms")
        if "--native" in sys.argv:
            return 0
        for label, machine, aims in (
            ("ERC20 workload (bundled)", "erc20.py", {"revm": "aim >= 3000"}),
            ("snekmate ERC20", "snek_erc20.py", {"pyevm": "aim >= 300", "revm": "aim >= 1500"}),
        ):
            for backend in backends:
                on, off = (rate(root, machine, backend, cache, repeats) for cache in ("on", "off"))
                aim = f"  ({aims[backend]})" if backend in aims else ""
                print(f"{label:26} {backend:5}: cache on {on:6.0f}, off {off:6.0f}{aim}")
        for backend in backends:
            on, off = (rate(root, "snek_erc20.py", backend, cache, repeats, examples=20, getters=False) for cache in ("on", "off"))
            print(f"{'snekmate ERC20, getters run as calls':38} {backend:5}: cache on {on:6.0f}, off {off:6.0f}")
        vault_figures(vault, backends, repeats)
        floor = rate(root, "draws_only.py", backends[-1], "on", repeats)
        plain = backends_bench.plain_hypothesis_rate(root, backends[-1], repeats)
        print(f"do-nothing ceiling (Hypothesis and the runner alone, {backends[-1]}): {floor:6.0f}  (aim >= 8000)")
        print(f"  the same rules and strategies under plain Hypothesis (run_state_machine_as_test): {plain:6.0f}")
        label = 'vyper ERC20, reverts("safesub")'
        for backend in backends:
            print(f"{label:38} {backend:5}: {rate(root, 'vy_erc20.py', backend, 'on', repeats):6.0f}")
        print(f"({time.perf_counter() - started:.0f}s so far)")
        cfg = config_mod.load(root)
        machine = str(root / "machines" / "erc20.py")
        walls = {}
        for n in (1, 2):
            steps, wall, _ = min((parallel_bench.measure(cfg, machine, n, 200, 50) for _ in range(repeats)), key=lambda m: m[1])
            walls[n] = steps / wall
            print(f"ERC20 workload -n {n} (start-up included): {walls[n]:6.0f}")
        print(f"-n 2 / -n 1: {walls[2] / walls[1]:.2f}x  (aim >= 1.8x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
