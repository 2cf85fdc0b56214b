"""Yearn V3's VaultV3.vy (benchmarks/projects/yearn_v3/) and two bugs planted in a copy of it.

Each bug is one line of contracts/VaultV3.vy changed in a copy (`project(dest, bug)`; the file in git
stays as Yearn published it). Its minimal programs are written beside it, worked out from the code
before any shrinking ran; `python benchmarks/yearn_v3_bugs.py --verify` replays each on its bug (it
must fail, as the bug's failure does) and on the unmodified vault (it must pass).
benchmarks/shrink.py shrinks both ("yearn ..." cases).

Run: python benchmarks/yearn_v3_bugs.py [--verify]    (without it: the bugs and what each needs)
"""

from __future__ import annotations

import sys
from pathlib import Path

import vault_bugs
from vault_bugs import Bug, _first, _knob, _lend, _orders, _steps, planted

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "yearn_v3"
MACHINE = "machines/yearn_v3.py"
NAME = "YearnVaultMachine"


def _take(rule: str, amount: int) -> str:
    return f"state.rule_{rule}(st_actor=accounts[0], st_receiver=accounts[0], st_{'assets' if rule == 'withdraw' else 'shares'}={amount})"


# accounts[0] takes its 1 asset back: every way a rule withdraws it
TAKE_1 = (
    "state.rule_withdraw_max(st_actor=accounts[0], st_receiver=accounts[0])",
    "state.rule_redeem_max(st_actor=accounts[0], st_receiver=accounts[0])",
    _take("withdraw", 1),
    _take("redeem", 1),
)


def _gain_first(last: str) -> tuple[str, ...]:
    """A gain of 1 before 2 are lent to strategy 0 (it holds 1 asset and no share: the vault's 2 buy 2 * 1 // 2 = 1 share,
    worth 1 * 4 // 2 = 2, its debt), 2 in before the lending, then the last step."""
    steps = {"in": "", "gain": _knob("gain", 0), "lend": "state.rule_update_debt(st_strategy=0, st_debt=2)", "last": last}
    return tuple(_steps(*order) for first in _first(2)
                 for order in _orders({**steps, "in": first}, {("in", "lend"), ("gain", "lend"), ("lend", "last")}))


BUGS = {
    bug.name: bug
    for bug in (
        Bug(
            "a", "debt kept on withdrawal",
            "A withdrawal that takes assets from a strategy lowers the vault's total debt but leaves the strategy's "
            "current_debt as it was (only the unrealised loss comes off it): the strategies' debts no longer add up to the total.",
            "            new_debt: uint256 = current_debt - (assets_to_withdraw + unrealised_losses_share)\n",
            "            new_debt: uint256 = current_debt - unrealised_losses_share\n",
            # 1 in, lent to strategy 0, taken back (idle is 0, so from the strategy): fewer steps have nothing to take from a
            # strategy, smaller numbers nothing at all
            minimal=tuple(_steps(first, _lend(0), take) for first in _first(1) for take in TAKE_1),
            failure="do not add up to the total debt",
        ),
        Bug(
            "b", "strategy shares rounded down",
            "_withdraw_from_strategy asks the strategy how many of its shares to redeem with convertToShares (rounding "
            "down) where the code says previewWithdraw (rounding up): once a strategy's share is worth more than an "
            "asset, the vault redeems too few and gets less than it counts on, a loss the withdrawal is charged or "
            "update_debt books as returned.",
            "        IStrategy(strategy).previewWithdraw(assets_to_withdraw), \n",
            "        IStrategy(strategy).convertToShares(assets_to_withdraw), \n",
            # 1 in, lent to strategy 0 (1 share for 1 asset), a gain of 1 (its share is worth 3 // 2 = 1, and 1 asset is
            # 2 // 3 = 0 shares where rounded down), then 1 taken back from it: the vault redeems no share and gets nothing.
            # withdraw refuses the loss; fewer steps leave a share worth exactly an asset (the first deposit's shares are its
            # assets), a loss needs 2 lent. A gain of 1 before the lending buys a lending of 1 no share (nothing to redeem),
            # and a lending of 2 one share worth 2: 1 asset is then 2 // 4 = 0 shares (the same failures but idle and debt's)
            minimal=tuple(_steps(first, _lend(0), _knob("gain", 0), take) for first in _first(1) for take in TAKE_1[::2])
            + _gain_first(_take("withdraw", 1)),
            failure="too much loss",
            others=(
                # redeem takes the loss: it pays nothing for the share
                ("redeem returned", tuple(_steps(first, _lend(0), _knob("gain", 0), take) for first in _first(1) for take in TAKE_1[1::2])
                 + _gain_first(_take("redeem", 1))),
                # update_debt back to 0 books the asset as returned where none came back
                ("idle and debt", tuple(_steps(first, _lend(0), _knob("gain", 0), "state.rule_update_debt(st_strategy=0, st_debt=0)") for first in _first(1))),
                # update_debt returns a debt too high where the share redeemed should pay more than asked: 2 lent (2 shares), a
                # gain of 3 (a share is worth 6 // 3 = 2), the debt brought to 1: 1 asset is 3 // 6 = 0 shares rounded down (1 up,
                # worth 2, so the debt should end at 0). The debt taken back to 0, or a smaller gain, pays no more than asked
                ("update_debt returned", tuple(_steps(first, "state.rule_update_debt(st_strategy=0, st_debt=2)", _knob("gain", 0, 3),
                                                      "state.rule_update_debt(st_strategy=0, st_debt=1)") for first in _first(2))
                 + _gain_first("state.rule_update_debt(st_strategy=0, st_debt=1)")),
            ),
        ),
    )
}


def project(dest: Path, bug: str | None = None) -> Path:
    """A copy of the project in dest, with the bug planted (None: VaultV3.vy as it is)."""
    return planted(PROJECT, "contracts/VaultV3.vy", BUGS, dest, bug)


if __name__ == "__main__":
    sys.exit(vault_bugs.main(__doc__, BUGS, project, MACHINE, NAME))
