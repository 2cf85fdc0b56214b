"""The vault-class workload (benchmarks/projects/vault/) and its planted bugs.

Each bug is one line of contracts/Vault.vy changed; `project(dest, bug)` makes a copy of the
project with it (None: the code as it is). What each bug needs to show, and its minimal programs
where the shrink benchmark checks them (else a program that shows it), are written beside it in
BUGS; `python benchmarks/vault_bugs.py --verify` replays every minimal program and witness on its
bug (each must fail, and fail as the bug's failure does) and on the correct code (each must pass).
`python benchmarks/search.py --vault a,b,c,d,e --backend revm` searches each bug as `evmstate run`
does at its defaults, seeds 0-4 on both backends: how often each is found, how long shrinking took
and whether the program reported is a minimal one; benchmarks/shrink.py shrinks the bugs whose
minimal programs are known.

Run: python benchmarks/vault_bugs.py [--verify]    (without it: the bugs and what each needs)
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import itertools
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "vault"
MACHINE = "machines/vault.py"


@dataclass(frozen=True)
class Bug:
    """One line of contracts/Vault.vy changed, and what it takes to see it.

    old: the text changed, found exactly once (a line, with the line before it where the line
    alone is not unique); new: what it becomes. minimal: the minimal programs of the failure the
    bug shows as, one line per step as evmstate prints them, `_` for any value (see
    benchmarks/shrink.py's Case); empty where the bug is not among the shrink benchmark's cases.
    failure: a text of that failure's message (the invariant or the rule's check that fails).
    """

    name: str
    label: str  # a few words, for tables
    description: str
    old: str
    new: str
    minimal: tuple[str, ...] = ()
    failure: str = ""
    others: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the same bug met as another failure: (a text of its message, its minimal programs)
    witness: tuple[str, str] = ("", "")  # where no minimal program is written down: (a text of its failure's message, a program that shows it)


def _steps(*lines: str) -> str:
    return "\n".join(lines)


def _first(assets: int) -> tuple[str, ...]:
    """accounts[0] puts assets into the vault: a deposit of them, or a mint of as many shares (one share is one asset in a new vault)."""
    return (f"state.rule_deposit(st_actor=accounts[0], st_receiver=accounts[0], st_assets={assets})",
            f"state.rule_mint(st_actor=accounts[0], st_receiver=accounts[0], st_shares={assets})")


# accounts[0] takes its 2 assets back: every way a rule withdraws them
TAKE_2 = (
    "state.rule_withdraw_max(st_actor=accounts[0], st_receiver=accounts[0])",
    "state.rule_redeem_max(st_actor=accounts[0], st_receiver=accounts[0])",
    "state.rule_withdraw(st_actor=accounts[0], st_receiver=accounts[0], st_assets=2)",
    "state.rule_redeem(st_actor=accounts[0], st_receiver=accounts[0], st_shares=2)",
)


def _lend(strategy: int) -> str:
    return f"state.rule_update_debt(st_strategy={strategy}, st_debt=1)"


def _knob(knob: str, strategy: int, amount: int = 1) -> str:
    return f"state.rule_strategy_{knob}(st_strategy={strategy}, st_knob={amount})"


def _orders(steps: dict[str, str], before: set[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Every order of the named steps in which, for each pair (a, b) in before, a comes first."""
    return [tuple(steps[name] for name in order) for order in itertools.permutations(steps)
            if all(order.index(a) < order.index(b) for a, b in before)]


ETHER = 10**18
DAY = 86400
YEAR = 31_556_952
# 1000 assets in, all of them lent to the first strategy; a report of it
_LENT_1000 = ("state.rule_deposit(st_actor=accounts[0], st_receiver=accounts[0], st_assets=1000000000000000000000)",
              "state.rule_update_debt(st_strategy=0, st_debt=1000000000000000000000)")
_REPORT = "state.rule_process_report(st_strategy=0)"


def _overpaid() -> tuple[str, ...]:
    """Bug a as the accounting invariant sees it: 2 assets in, 1 lent to each strategy, the first one's gain, 2 taken out."""
    before = {("in", "lend0"), ("in", "lend1"), ("lend0", "gain0"), ("gain0", "out"), ("lend1", "out")}
    return tuple(_steps(*order) for first in _first(2) for take in TAKE_2
                 for order in _orders({"in": first, "lend0": _lend(0), "lend1": _lend(1), "gain0": _knob("gain", 0, 2), "out": take}, before))


def _overstated() -> tuple[str, ...]:
    """Bug a as the max* views show it: 2 assets in, 1 lent to each strategy, one's share made worth 2, the other unable
    to pay (it lost its asset, has it locked, or had a gain before the vault's deposit, which then bought no share)."""
    programs = []
    for gainer in (0, 1):
        other = 1 - gainer
        for stuck, after_lending in ((_knob("loss", other), True), (_knob("lock", other), None), (_knob("gain", other), False)):
            before = {("in", f"lend{gainer}"), ("in", f"lend{other}"), (f"lend{gainer}", "gain")}
            if after_lending is not None:
                before.add((f"lend{other}", "stuck") if after_lending else ("stuck", f"lend{other}"))
            programs += [_steps(*order) for first in _first(2)
                         for order in _orders({"in": first, "lend0": _lend(0), "lend1": _lend(1), "gain": _knob("gain", gainer, 2), "stuck": stuck}, before)]
    return tuple(programs)


BUGS = {
    bug.name: bug
    for bug in (
        Bug(
            "a", "overpaid by strategy",
            "A withdrawal that needs more than a strategy's debt takes up to what the strategy's shares are worth, "
            "where the debt is the limit: when the strategy holds an unreported gain and the amount needed lies above "
            "its debt (and below its value), the vault takes the gain unreported (no fee, no lock) and the debt ends at zero.",
            "        # it holds at least its debt: up to the debt, at face value\n        to_withdraw = min(needed, current_debt)\n",
            "        # it holds at least its debt: up to the debt, at face value\n        to_withdraw = min(needed, position)\n",
            # 2 assets in, 1 lent to each strategy (idle 0), the first strategy's 1 share made worth 2 (a gain of 2: worth
            # floor(1 * 4 / 2)), 2 withdrawn: the vault takes both from the first strategy where its debt of 1 is the limit,
            # and the invariant sees the debts differ. Fewer steps cannot need more than a strategy's debt (all of it lent to
            # one strategy is all of one's value), nor make a gain (the strategy must hold the vault's shares first; a gain
            # of 1 leaves its share worth 1)
            minimal=_overpaid(),
            failure="idle and debt",
            # a failure of its own, as short: one strategy's share is worth 2, the other cannot pay, so a withdrawal of 2
            # should get 1 (the debt of the one) where the vault's maxWithdraw says 2
            others=(("maxWithdraw and maxRedeem", _overstated()),),
        ),
        Bug(
            "b", "redeem burns less",
            "redeem burns the shares its assets convert back to (rounded up) instead of the shares redeemed. While a "
            "share is worth at least an asset the two are the same; once it is worth less (a loss or fees reported), "
            "a redeem can burn one share or more too few.",
            "    return self._redeem(receiver, owner, assets, shares, True)\n",
            "    return self._redeem(receiver, owner, assets, self._convert_to_shares(assets, True), True)\n",
            # half of what is lent lost and reported (a share is worth half an asset), 3 shares redeemed: 1 asset, which
            # converts back to 2 shares
            witness=("totalSupply", _steps(*_LENT_1000, _knob("loss", 0, 500 * ETHER), _REPORT, "state.rule_redeem(st_actor=accounts[0], st_receiver=accounts[0], st_shares=3)")),
        ),
        Bug(
            "c", "preview rounds down",
            "previewWithdraw rounds the shares down where withdraw rounds them up: the preview is one share short of "
            "the action whenever the price of a share is not 1 and the conversion is inexact.",
            "def previewWithdraw(assets: uint256) -> uint256:\n    return self._convert_to_shares(assets, True)\n",
            "def previewWithdraw(assets: uint256) -> uint256:\n    return self._convert_to_shares(assets, False)\n",
            # a year's management fee reported (its shares make a share worth a little less than an asset), 1 withdrawn
            witness=("previewWithdraw", _steps(*_LENT_1000, f"chain.sleep({YEAR})", _REPORT, "state.rule_withdraw(st_actor=accounts[0], st_receiver=accounts[0], st_assets=1)")),
        ),
        Bug(
            "d", "report reverts",
            "The time the shares still locked have left is computed from the new shares before the loss and fees "
            "are taken from them: a report reverts (an underflow) when profit locked earlier is still unlocking and "
            "the report's loss and fees, in shares, exceed its gain but not what is locked.",
            "            previously_locked_time = (total_locked - newly_locked) * (self.full_profit_unlock_date - block.timestamp)\n",
            "            previously_locked_time = (total_locked - (shares_to_lock - shares_to_burn)) * (self.full_profit_unlock_date - block.timestamp)\n",
            # a gain reported (its profit locked for a week), a day later a report with no gain and a day's management fee
            witness=("process_report reverted: underflow", _steps(*_LENT_1000, _knob("gain", 0, 10 * ETHER), _REPORT, f"chain.sleep({DAY})", _REPORT)),
        ),
        Bug(
            "e", "gain not in debt",
            "process_report adds a gain to the strategy's debt but not to the vault's total debt.",
            "        current_debt += gain\n        self.total_debt += gain\n",
            "        current_debt += gain\n",
            # deposit (or mint) 1, lend it to a strategy, a gain of 2 (its 1 share is then worth 2: a gain of 1), report:
            # no shorter program has a strategy gain to report, and no smaller number makes one
            minimal=tuple(_steps(first, _lend(0), _knob("gain", 0, 2), "state.rule_process_report(st_strategy=0)") for first in _first(1)),
            failure="idle and debt",
        ),
    )
}


def recorded(program: str) -> list:
    """A program as evmstate prints it (`state.rule_...(...)` lines, each after the `chain.sleep(...)` it waited) as recorded steps."""
    from evmstate.engine.recorded import RecordedStep

    steps, waited = [], 0
    for line in program.splitlines():
        call = ast.parse(line).body[0].value
        if call.func.value.id == "chain":
            waited += ast.literal_eval(call.args[0])
            continue
        arguments = {}
        for keyword in call.keywords:
            node = keyword.value
            account = isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "accounts"
            arguments[keyword.arg] = {"account": ast.literal_eval(node.slice)} if account else ast.literal_eval(node)
        steps.append(RecordedStep(call.func.attr, arguments, delay=(waited, 0)))
        waited = 0
    return steps


def replay(root: Path, programs: list[str], machine: str = MACHINE, name: str = "VaultMachine") -> list[str | None]:
    """Each program replayed on a fresh deployment of the project in root (its machine file and class): how it failed (the invariant
    or step, and its error, in a line), None when it passes."""
    from evmstate import config as config_mod
    from evmstate.contracts.project import Project
    from evmstate.engine.loader import load_module
    from evmstate.engine.program import init_class, run_program
    from evmstate.engine.tracebacks import FailureSignature
    from evmstate.spec import collect

    project = Project(config_mod.load(root))
    spec = collect(getattr(load_module(root / machine), name))
    init_class(spec, project)
    base = project.backend.snapshot()
    failures = []
    for program in programs:
        project.backend.revert(base)
        base = project.backend.snapshot()
        with contextlib.redirect_stdout(io.StringIO()):
            ran = run_program(spec, project, recorded(program), strict=True)
        if ran.error is None:
            failures.append(None)
            continue
        where = FailureSignature.of(ran.error).invariant or f"step {ran.at}"
        failures.append(f"{where}: {type(ran.error).__name__}: {ran.error}".splitlines()[0])
    return failures


def verify(tmp: Path, bugs: dict | None = None, make=None, machine: str = MACHINE, name: str = "VaultMachine") -> bool:
    """Every minimal program, and each witness, fails on its bug as the bug's failure does, and passes on the correct code.

    bugs, make (make(dest, bug) copies the project with the bug planted), machine and name: another project's (yearn_v3_bugs.py);
    by default this one's."""
    bugs, make = bugs or BUGS, make or project
    ok = True
    correct = make(tmp / "correct")
    for bug in bugs.values():
        groups = [("minimal programs", bug.failure, bug.minimal), *(("minimal programs", text, programs) for text, programs in bug.others)]
        if bug.witness[1]:
            groups.append(("witness", bug.witness[0], (bug.witness[1],)))
        for kind, failure, written in groups:
            programs = [p for p in written if not re.search(r"[=(]_[,)]", p)]  # `_` (any value) is not a program to run
            if not programs:
                continue
            on_bug = replay(make(tmp / bug.name, bug.name), programs, machine, name)
            on_correct = replay(correct, programs, machine, name)
            for program, failed, passed in zip(programs, on_bug, on_correct):
                good = failed is not None and failure in failed and passed is None
                ok &= good
                if not good:
                    print(f"bug {bug.name}: this program {'fails as expected' if failed and failure in failed else 'does not fail with ' + repr(failure) + ': ' + str(failed)}"
                          f" and {'passes' if passed is None else 'FAILS'} on the correct code{'' if passed is None else ': ' + passed}:\n  " + program.replace("\n", "\n  "))
            print(f"bug {bug.name} ({bug.label}): {sum(f is not None and failure in f for f in on_bug)} of {len(programs)} {kind} fail with {failure!r}, "
                  f"{sum(p is None for p in on_correct)} of them pass on the correct code", flush=True)
    return ok


def project(dest: Path, bug: str | None = None) -> Path:
    """A copy of the vault project in dest, with the bug planted (None: the code as it is)."""
    return planted(PROJECT, "contracts/Vault.vy", BUGS, dest, bug)


def planted(folder: Path, contract: str, bugs: dict, dest: Path, bug: str | None) -> Path:
    """A copy of the project in folder, in dest, with bugs[bug] planted in its contract (None: the code as it is)."""
    shutil.copytree(folder, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".evmstate", "__pycache__"))
    if bug is not None:
        change = bugs[bug]
        path = dest / contract
        source = path.read_text()
        assert source.count(change.old) == 1, f"bug {bug}: the text to change is not in {contract} exactly once: {change.old!r}"
        path.write_text(source.replace(change.old, change.new))
    return dest


def main(doc: str = __doc__, bugs: dict | None = None, make=None, machine: str = MACHINE, name: str = "VaultMachine") -> int:
    """The command line of this file, or of another project's bugs (doc, bugs, make, machine and name: its own, as verify takes them)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--verify", action="store_true", help="replay every minimal program on its bug and on the correct code")
    args = parser.parse_args()
    if args.verify:
        with tempfile.TemporaryDirectory() as tmp:
            return 0 if verify(Path(tmp), bugs, make, machine, name) else 1
    for bug in (bugs or BUGS).values():
        print(f"{bug.name}  {bug.label}: {bug.description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
