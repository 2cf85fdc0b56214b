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

REPO = Path(__file__).resolve().parents[2]
BY_NAME = """    def __init__(cls, accounts, Depositer):
        # deploy the contract at the start of the test
        cls.accounts = accounts
        cls.contract = Depositer.deploy({'from': accounts[0]})
"""
# the bundled Brownie Depositer machine, its contract from deployments.py: no contract among its parameters
MACHINE = (REPO / "machines" / "depositer.py").read_text().replace(BY_NAME, """    def __init__(cls, accounts, vault):
        cls.accounts, cls.contract = accounts, vault
""")


def recorded(root: Path) -> dict:
    """The record `evmstate run` saves for the machine that gets its contract from deployments.py."""
    assert BY_NAME not in MACHINE
    (root / "deployments.py").write_text(DEPLOYMENTS)
    (root / "machines" / "vault.py").write_text(MACHINE)
    code, out = invoke("run", "machines/vault.py", "--seed", "1")
    assert code == 1, out
    return only_record(root)


def only_record(root: Path) -> dict:
    (path,) = (root / ".evmstate" / "failures").glob("*.json")
    return json.loads(path.read_text())


def status(root: Path, rid: str) -> str:
    code, out = invoke("failures")
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if line.startswith(rid)]
    return "changed" if " changed " in f" {row} " else "same" if " same " in f" {row} " else row


def test_a_machine_whose_contracts_come_from_deployments_sees_them_change(example):
    record = recorded(example)
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
    record = recorded(example)
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
