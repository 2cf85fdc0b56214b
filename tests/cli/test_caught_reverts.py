"""The rule table counts the reverts a machine caught itself, and a rule most of whose calls reverted is warned of."""

from __future__ import annotations

import json
import re

from evmstate.engine.events import MOSTLY_MIN, MachineFinished, RuleStats

from .helpers import invoke

MACHINE = """
from evmstate import TransactionReverted, reverts, strategy


class CatchingMachine:
    value = strategy("uint256", max_value=100)

    def __init__(cls, accounts, Depositer):
        cls.accounts = accounts
        cls.contract = Depositer.deploy({"from": accounts[0]})

    def setup(self):
        self.held = 0

    def rule_deposit(self, value):
        self.contract.deposit_for(self.accounts[1], {"from": self.accounts[0], "value": value})
        self.held += value

    def rule_withdraw(self, value):
        # most values are more than was deposited: the revert is caught here, and the step tests nothing
        try:
            self.contract.withdraw_from(value * 1000, {"from": self.accounts[1]})
        except TransactionReverted:
            return

    def rule_withdraw_too_much(self):
        with reverts("Insufficient balance"):
            self.contract.withdraw_from(self.held + 1, {"from": self.accounts[1]})
"""


def test_the_table_counts_reverts_however_caught_and_most_reverted_is_a_warning(example):
    (example / "machines" / "catching.py").write_text(MACHINE)
    code, out = invoke("run", "machines/catching.py", "--seed", "6", "--max-examples", "10", "--steps", "30", "--json", "report.json")
    assert code == 0, out
    (result,) = json.loads((example / "report.json").read_text())["results"]
    rules = result["rules"]
    withdraw = rules["rule_withdraw"]
    assert withdraw["transactions"] >= MOSTLY_MIN and withdraw["transactions_reverted"] * 2 > withdraw["transactions"] and withdraw["reverts"] == 0
    rows = {m.group(1): tuple(map(int, m.groups()[1:])) for m in re.finditer(r"^(rule_\w+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)}
    assert "rule  calls  reverted  expected" in re.sub(r" +", "  ", out)
    for name, s in rules.items():
        assert rows[name] == (s["calls"], s["transactions_reverted"], s["reverts"]), (name, out)
    share = 100 * withdraw["transactions_reverted"] // withdraw["transactions"]
    assert (
        f"warning: CatchingMachine.rule_withdraw: {withdraw['transactions_reverted']} of its {withdraw['transactions']} transactions reverted ({share}%) "
        "outside reverts(): most of its steps changed nothing. Add a precondition for when it can succeed, or narrow its strategies to values that can; "
        "a revert it means to check belongs in `with reverts(...)`"
    ) in out
    assert result["mostly_reverted"] == ["rule_withdraw"]
    # a rule that checks its reverts inside reverts() tests something: the other warning names it, this one does not
    assert result["all_reverted"] == ["rule_withdraw_too_much"] and "CatchingMachine.rule_deposit" not in out


def test_most_means_more_than_half_of_enough_transactions_outside_reverts():
    def warned(**counts: int) -> list[str]:
        return MachineFinished(name="M", kind="machine", path="m.py", status="passed", examples=1, steps=1, elapsed=0.0, rules={"rule_x": RuleStats(**counts)}).mostly_reverted

    assert warned(calls=40, transactions=40, transactions_reverted=21) == ["rule_x"]
    assert warned(calls=40, transactions=40, transactions_reverted=20) == []  # half is not most
    assert warned(calls=40, transactions=40, transactions_reverted=30, reverts=15) == []  # half of them expected
    assert warned(calls=10, transactions=MOSTLY_MIN - 1, transactions_reverted=MOSTLY_MIN - 2) == []  # too few to tell
    assert warned(calls=40, transactions=40, transactions_reverted=40) == []  # every one: the other warning says it
