"""Time to report a bug in a snekmate-based token, and how much of it is shrinking.

The token is snekmate's ERC20 (erc20 and ownable modules) with one function of its own, bonus():
a minter's bonus above 10 ether is credited to a balance without raising the total supply. The
machine (as speed.py's snekmate machine, plus a bonus rule modelled as a mint) compares every
balance, role and known allowance after each step; the total-supply invariant catches the bug.
Seeds 0-2 on py-evm, default settings (50 runs x 50 steps), cold example database.

Run: python benchmarks/shrink_snekmate.py [--before REV]
  --before REV also measures the evmstate of git revision REV (checked out into a temporary
  worktree and imported instead of this one), in the same sitting.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

BUGGY = '''# pragma version ~=0.4.3
from snekmate.auth import ownable as ow
initializes: ow

from snekmate.tokens import erc20
initializes: erc20[ownable := ow]

exports: erc20.__interface__


@deploy
@payable
def __init__(name_: String[25], symbol_: String[5], initial_supply_: uint256, name_eip712_: String[50], version_eip712_: String[20]):
    ow.__init__()
    erc20.__init__(name_, symbol_, 18, name_eip712_, version_eip712_)
    erc20._mint(msg.sender, initial_supply_)


@external
def bonus(to: address, amount: uint256):
    assert erc20.is_minter[msg.sender], "erc20: access is denied"
    if amount > 10 * 10**18:
        erc20.balanceOf[to] += amount  # the bug: the total supply is not raised
    else:
        erc20._mint(to, amount)
'''

BONUS_RULE = '''
    def rule_bonus(self, st_spender, st_receiver, st_amount):
        if st_spender in self.minters:
            self.token.bonus(st_receiver, st_amount, {"from": st_spender})
            self.balances[st_receiver] += st_amount
        else:
            with reverts("erc20: access is denied"):
                self.token.bonus(st_receiver, st_amount, {"from": st_spender})
'''

MEASURE = r'''
import json, sys, time
from pathlib import Path
from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run
root, seed = Path(sys.argv[1]), int(sys.argv[2])
started = time.perf_counter()
summary = run(config_mod.load(root), RunOptions((str(root / "machines" / "bonus.py"),), overrides=Overrides(seed=seed), save_failures=False), lambda e: None)
elapsed = time.perf_counter() - started
(result,) = summary.results
print(json.dumps({"status": result.status, "report": elapsed, "steps": result.failure.steps if result.failure else None,
                  "shrink": result.statistics.get("shrink time"), "first": result.statistics.get("first failure after")}))
'''


def project(tmp: Path) -> Path:
    sys.path.insert(0, str(HERE))
    import speed

    root = tmp / "project"
    (root / "contracts").mkdir(parents=True)
    (root / "machines").mkdir()
    (root / "contracts" / "BonusToken.vy").write_text(BUGGY)
    machine = speed.SNEKMATE_MACHINE.replace("SnekERC20Machine", "BonusMachine").replace("ERC20Mock", "BonusToken")
    machine = machine.replace("    def invariant_balances(self):", BONUS_RULE.lstrip("\n") + "\n    def invariant_balances(self):")
    (root / "machines" / "bonus.py").write_text(machine)
    (root / "evmstate.toml").write_text('[project]\ncontracts = "contracts"\nmachines = "machines"\n')
    return root


def measure(root: Path, seed: int, pythonpath: str | None) -> dict:
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", MEASURE, str(root), str(seed)], capture_output=True, text=True, env=env, cwd=root, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(label: str, root: Path, pythonpath: str | None) -> None:
    # compile once (the build cache is per project; an older evmstate keeps its own format)
    shutil.rmtree(root / ".evmstate", ignore_errors=True)
    measure(root, 0, pythonpath)
    runs = [measure(root, seed, pythonpath) for seed in range(3)]
    for seed, r in enumerate(runs):
        print(f"{label} seed {seed}: {r['status']}, {r['steps']} steps, reported in {r['report']:.1f}s (first failure after {r['first']}, shrinking {r['shrink']})")
    print(f"{label}: median time to report {statistics.median(r['report'] for r in runs):.1f}s")


def main() -> int:
    before = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        started = time.perf_counter()
        if before is not None:
            tree = Path(tmp) / "before"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(tree), before], check=True, capture_output=True)
            try:
                report(f"evmstate at {before}", root, str(tree))
            finally:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False, capture_output=True)
        report("evmstate now", root, str(REPO))
        print(f"(took {time.perf_counter() - started:.0f}s, load {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
