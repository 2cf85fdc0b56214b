"""A record knows the sources its program ran on: contracts asked for by name, through deployments.py, or deployed while it ran."""

from __future__ import annotations

import json
from pathlib import Path

from evmstate import Project

from .helpers import invoke

FIX = ("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value")

DEPLOYMENTS = """\
def vault(accounts, Depositer):
    return Depositer.deploy({"from": accounts[0]})
"""

# the Brownie Depositer machine, its contract from deployments.py: no contract among its parameters
MACHINE = """\
from evmstate import reverts, strategy


class VaultMachine:
    value = strategy("uint256", max_value="1 ether")
    address = strategy("address")

    def __init__(cls, accounts, vault):
        cls.accounts, cls.contract = accounts, vault

    def setup(self):
        self.deposits = {i: 0 for i in self.accounts}

    def rule_deposit(self, address, value):
        self.contract.deposit_for(address, {"from": self.accounts[0], "value": value})
        self.deposits[address] += value

    def rule_withdraw(self, address, value):
        if self.deposits[address] >= value:
            self.contract.withdraw_from(value, {"from": address})
            self.deposits[address] -= value
        else:
            with reverts("Insufficient balance"):
                self.contract.withdraw_from(value, {"from": address})

    def invariant(self):
        for address, amount in self.deposits.items():
            assert self.contract.deposited(address) == amount
"""


def only_record(root: Path) -> dict:
    (path,) = (root / ".evmstate" / "failures").glob("*.json")
    return json.loads(path.read_text())


def status(root: Path, rid: str) -> str:
    code, out = invoke("failures")
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if line.startswith(rid)]
    return "changed" if " changed " in f" {row} " else "same" if " same " in f" {row} " else row


def test_a_machine_whose_contracts_come_from_deployments_sees_them_change(example):
    (example / "deployments.py").write_text(DEPLOYMENTS)
    (example / "machines" / "vault.py").write_text(MACHINE)
    code, out = invoke("run", "machines/vault.py", "--seed", "1")
    assert code == 1, out
    record = only_record(example)
    assert list(record["hashes"]["uses"]) == ["Depositer"] and list(record["hashes"]["deployments"]) == ["deployments.py"]
    rid = record["id"]
    assert status(example, rid) == "same"
    # an unrelated contract changes: still the same
    token = example / "contracts" / "Token.vy"
    token.write_text(token.read_text() + "\n# edited\n")
    assert status(example, rid) == "same"
    # the contract the deployment deploys is fixed: the record is stale, and replay says why it no longer fails
    dep = example / "contracts" / "Depositer.vy"
    original = dep.read_text()
    dep.write_text(original.replace(*FIX))
    assert status(example, rid) == "changed"
    code, out = invoke("replay", rid)
    assert code == 0, out
    assert "sources changed since the failure was recorded: contracts: Depositer" in out and f"fixed: {rid} no longer fails" in out
    # the deployments file is a source of the program too
    dep.write_text(original)
    assert status(example, rid) == "same"
    (example / "deployments.py").write_text(DEPLOYMENTS + "\n# edited\n")
    assert status(example, rid) == "changed"
    code, out = invoke("replay", rid)
    assert code == 1 and "sources changed since the failure was recorded: deployments: deployments.py" in out


def test_a_record_made_before_deployments_were_followed_counts_any_contract(example):
    (example / "deployments.py").write_text(DEPLOYMENTS)
    (example / "machines" / "vault.py").write_text(MACHINE)
    code, out = invoke("run", "machines/vault.py", "--seed", "1")
    assert code == 1, out
    record = only_record(example)
    # as an earlier evmstate saved it: the deployment's name was no contract, so it named none
    del record["hashes"]["deployments"]
    record["hashes"]["uses"] = {}
    (example / ".evmstate" / "failures" / f"{record['id']}.json").write_text(json.dumps(record))
    assert status(example, record["id"]) == "same"
    dep = example / "contracts" / "Depositer.vy"
    dep.write_text(dep.read_text().replace(*FIX))
    assert status(example, record["id"]) == "changed"


def test_the_project_tells_which_contracts_were_deployed_or_attached(project: Project):
    accounts = project.accounts
    with project.watching() as used:
        vault = project.Depositer.deploy({"from": accounts[0]})
        with project.watching() as inner:
            project.Token.at(vault.address)
    project.Vault.at(vault.address)  # after: not seen
    assert used == {"Depositer", "Token"} and inner == {"Token"}
