"""No silent pass: a rule whose every transaction reverted, and methods whose names look misspelt, are named."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from .helpers import invoke

# A newcomer's vesting contract: nothing can be released before the cliff, which is a year away,
# and their project lets no time pass between steps, so within a run every release reverts. The machine catches the revert as ported Foundry
# handlers do, and its invariant holds: a pass that tests nothing unless something says so.
VESTING = """\
# pragma version ~=0.4.3
beneficiary: public(address)
start: public(uint256)
cliff: public(uint256)
released: public(uint256)


@deploy
@payable
def __init__(_beneficiary: address, _cliff: uint256):
    self.beneficiary = _beneficiary
    self.start = block.timestamp
    self.cliff = _cliff


@external
def release():
    assert block.timestamp >= self.start + self.cliff, "cliff not reached"
    amount: uint256 = self.balance
    self.released += amount
    send(self.beneficiary, amount)


@external
@payable
def __default__():
    pass
"""

MACHINE = '''
from evmstate import TransactionReverted, reverts, strategy


class VestingMachine:
    amount = strategy("uint256", max_value="1 ether")

    def __init__(cls, accounts, Vesting):
        cls.accounts = accounts
        cls.vesting = Vesting.deploy(accounts[1], 365 * 86400, {"from": accounts[0], "value": "10 ether"})

    def rule_release(self):
        try:
            self.vesting.release({"from": self.accounts[1]})
        except TransactionReverted:
            pass

    def rule_release_expected(self):
        with reverts("cliff not reached"):
            self.vesting.release({"from": self.accounts[1]})

    def rule_tip(self, amount):
        self.accounts[2].transfer(self.vesting, amount)

    def invariant_released(self):
        assert self.vesting.released() <= 10 * 10**18

    def invarient_supply(self):
        assert False, "never runs: the name is misspelt"

    def teardwon(self):
        pass
'''


def write(example: Path) -> None:
    (example / "contracts" / "Vesting.vy").write_text(VESTING)
    (example / "machines" / "vesting.py").write_text(MACHINE)
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nmax_time_delay = 0\nmax_block_delay = 0\n")


def test_a_rule_whose_every_transaction_reverted_is_named_on_a_warning_line(example):
    write(example)
    code, out = invoke("run", "machines/vesting.py", "--seed", "1", "--max-examples", "10", "--json", "report.json", "--junit-xml", "report.xml")
    assert code == 0, out
    lines = out.splitlines()
    warned = [line for line in lines if "every transaction it sent reverted" in line]
    assert len(warned) == 2, out
    assert any(line.startswith("warning: VestingMachine.rule_release ran ") and line.endswith(": it never changed the state") for line in warned)
    assert any(line.startswith("warning: VestingMachine.rule_release_expected ran ") for line in warned)
    # a rule whose transactions went through is not named
    assert not any("rule_tip" in line for line in warned)
    report = json.loads((example / "report.json").read_text())
    (result,) = report["results"]
    assert sorted(result["all_reverted"]) == ["rule_release", "rule_release_expected"]
    release = result["rules"]["rule_release"]
    assert release["transactions"] == release["transactions_reverted"] == release["calls"] > 0
    tip = result["rules"]["rule_tip"]
    assert tip["transactions"] == tip["calls"] and tip["transactions_reverted"] == 0
    (case,) = ET.parse(example / "report.xml").getroot().iter("testcase")
    err = case.find("system-err")
    assert err is not None and "VestingMachine.rule_release ran " in err.text


def test_methods_whose_names_look_misspelt_are_named_when_the_machine_loads(example):
    write(example)
    code, out = invoke("run", "machines/vesting.py", "--seed", "1", "--max-examples", "3", "--json", "report.json")
    assert code == 0, out
    lines = out.splitlines()
    started = next(i for i, line in enumerate(lines) if "VestingMachine" in line)
    assert lines[started].startswith("warning: VestingMachine.invarient_supply looks like 'invariant_' misspelt, so it never runs: rename it invariant_supply")
    assert lines[started + 1].startswith("warning: VestingMachine.teardwon looks like 'teardown' misspelt, so it never runs: rename it teardown")
    report = json.loads((example / "report.json").read_text())
    (result,) = report["results"]
    assert any("invarient_supply" in w for w in result["warnings"])
