"""A timelock's bytes32 salts and operation ids as a run, a replay and the reports show them.

tests/projects/timelock: operations named by a bytes32 id, with a planted bug (the id leaves out
the amount), and a property test of the same bug. Every bytes value reads as 0x..., a program
line as HexBytes('0x...'), and the printed program pasted back calls the rules with the values
the run drew.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from evmstate import HexBytes, Project, TransactionReverted
from evmstate.engine.loader import load_module
from evmstate.failures import FailureStore, decode_value

from ..conftest import copy_project, plain_output
from .helpers import invoke

TIMELOCK = Path(__file__).resolve().parents[1] / "projects" / "timelock"
SALT = "0x" + "00" * 31 + "01"  # the smallest salt the contract takes
ZERO = "0x" + "00" * 32
OPERATION = "0x46a4c039e50e9680394d181a20062f8766b4848b99c17d031857a08887ec8b55"  # keccak256(accounts[1] ++ SALT)
HASHED = "0x0ca60d8bde38502bfe740fb5b41b465359ba8c794d918d9204d0df76c4ae1701"  # keccak256(accounts[1] ++ ZERO)
SOURCE = 'contracts/Timelock.vy:38: raw_revert(concat(method_id("AlreadyScheduled(bytes32)"), abi_encode(id)))'


@dataclass
class Run:
    root: Path
    code: int
    out: str
    report: dict
    junit: str
    ids: dict  # name -> failure id


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("timelock")
    copy_project(TIMELOCK, root)  # with its build, compiled once for every test process and run
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        plain_output(mp)
        code, out = invoke("run", "--seed", "1", "--json", "report.json", "--junit-xml", "junit.xml")
    report = json.loads((root / "report.json").read_text())
    ids = {r["name"]: r["failure_id"] for r in report["results"]}
    return Run(root, code, re.sub(r"gas \d+", "gas N", out), report, (root / "junit.xml").read_text(), ids)


@pytest.fixture()
def in_project(run: Run, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Run:
    monkeypatch.chdir(run.root)
    monkeypatch.setenv("COLUMNS", "250")
    return run


def test_the_program_shows_hexbytes_and_the_trace_events_and_revert_show_hex(run: Run):
    assert run.code == 1, run.out
    assert "b'" not in run.out
    assert (
        "TransactionReverted: Timelock.schedule reverted: AlreadyScheduled(" + OPERATION + ")\n"
        f"  {SOURCE}\n"
        "  at machines/timelock.py:28 in rule_schedule\n"
        "    operation = self.timelock.schedule(self.target, amount, salt, DELAY).return_value\n"
        "\n"
        "Falsifying example (2 steps):\n"
        "state = TimelockMachine()\n"
        f"state.rule_schedule(amount=0, salt=HexBytes('{SALT}'))\n"
        f"state.rule_schedule(amount=1, salt=HexBytes('{SALT}'))\n"
        "\n"
        "Trace:\n"
        f"  1. state.rule_schedule(amount=0, salt=HexBytes('{SALT}'))\n"
        f"       Timelock.schedule(accounts[1], 0, {SALT}, 3600) {{from: accounts[0]}} -> {OPERATION}  gas N\n"
        f"         emit Timelock.CallScheduled(id={OPERATION}, target=accounts[1], amount=0, salt={SALT}, delay=3600)\n"
        f"  2. state.rule_schedule(amount=1, salt=HexBytes('{SALT}'))\n"
        f"       Timelock.schedule(accounts[1], 1, {SALT}, 3600) {{from: accounts[0]}}  gas N\n"
        f"         reverted: 'AlreadyScheduled({OPERATION})' at {SOURCE}\n"
        f"       TransactionReverted: Timelock.schedule reverted: AlreadyScheduled({OPERATION})\n"
    ) in run.out


def test_a_property_tests_example_and_its_assertion_show_hex(run: Run):
    assert (
        f"AssertionError: assert {HASHED} != {HASHED}\n"
        "  at machines/timelock.py:45 in test_amount_is_part_of_the_id\n"
        "    assert timelock.hash_operation(accounts[1], 1, salt) != timelock.hash_operation(accounts[1], 2, salt)\n"
        "\n"
        "Falsifying example:\n"
        f"test_amount_is_part_of_the_id(salt=HexBytes('{ZERO}'))\n"
        "\n"
        "Trace:\n"
        f"     test_amount_is_part_of_the_id(salt=HexBytes('{ZERO}'))\n"
        "       Timelock.deploy() {from: accounts[0]}  gas N\n"
        f"       Timelock.hash_operation(accounts[1], 1, {ZERO}) -> {HASHED}  gas N (call)\n"
        f"       Timelock.hash_operation(accounts[1], 2, {ZERO}) -> {HASHED}  gas N (call)\n"
        f"       AssertionError: assert {HASHED} != {HASHED}\n"
    ) in run.out


def test_the_json_and_junit_reports_show_hex(run: Run):
    text = json.dumps(run.report)
    assert "b'" not in text and "b\\\\x" not in text and "b'" not in run.junit
    machine, test = run.report["results"]
    failure = machine["failure"]
    assert failure["program"][1:] == [f"state.rule_schedule(amount={a}, salt=HexBytes('{SALT}'))" for a in (0, 1)]
    assert failure["revert_reason"] == f"AlreadyScheduled({OPERATION})"
    first, second = (s["calls"][0] for s in failure["trace"]["steps"])
    assert first["call"] == f"Timelock.schedule(accounts[1], 0, {SALT}, 3600)" and first["returned"] == OPERATION
    assert first["events"] == [f"Timelock.CallScheduled(id={OPERATION}, target=accounts[1], amount=0, salt={SALT}, delay=3600)"]
    assert second["reverted"] == f"'AlreadyScheduled({OPERATION})' at {SOURCE}"
    assert test["failure"]["program"] == [f"test_amount_is_part_of_the_id(salt=HexBytes('{ZERO}'))"]
    assert test["failure"]["message"] == f"assert {HASHED} != {HASHED}"
    assert f"state.rule_schedule(amount=1, salt=HexBytes('{SALT}'))\n" in run.junit
    assert f"       Timelock.schedule(accounts[1], 0, {SALT}, 3600) {{from: accounts[0]}} -&gt; {OPERATION}" in run.junit
    assert f'message="Timelock.schedule reverted: AlreadyScheduled({OPERATION})"' in run.junit


def test_the_printed_program_pasted_back_calls_the_rules_with_the_drawn_values(in_project: Run):
    run = in_project
    project = Project.load(run.root)
    cls = load_module(run.root / "machines" / "timelock.py").TimelockMachine
    cls.__init__(cls, project.accounts, project.Timelock)  # once, as evmstate runs a machine's __init__
    state = object.__new__(cls)
    state.setup()
    called = []

    def schedule(**arguments):
        called.append(arguments)
        return cls.rule_schedule(state, **arguments)

    state.rule_schedule = schedule
    program = run.report["results"][0]["failure"]["program"]
    assert program[0] == "state = TimelockMachine()"
    with pytest.raises(TransactionReverted) as caught:
        exec("\n".join(program[1:]), {"state": state, "accounts": project.accounts, "HexBytes": HexBytes})
    assert caught.value.reason == f"AlreadyScheduled({OPERATION})"
    record = FailureStore(run.root / ".evmstate" / "failures").load(run.ids["TimelockMachine"])
    drawn = [{k: decode_value(v, accounts=project.accounts, refs={}) for k, v in step["arguments"].items()} for step in record.steps]
    assert called == drawn == [{"amount": 0, "salt": bytes.fromhex(SALT[2:])}, {"amount": 1, "salt": bytes.fromhex(SALT[2:])}]
    assert all(type(c["salt"]) is HexBytes for c in called)
    # the property test's line reads back to the argument it drew
    (line,) = run.report["results"][1]["failure"]["program"]
    assert eval(line.replace("test_amount_is_part_of_the_id(", "dict("), {"HexBytes": HexBytes}) == {"salt": bytes(32)}


def test_replay_and_the_failures_list_show_hex(in_project: Run):
    run = in_project
    machine_id = run.ids["TimelockMachine"]
    code, out = invoke("replay", machine_id)
    assert code == 1 and "b'" not in out
    assert out == (
        f"replaying {machine_id}: machines/timelock.py::TimelockMachine\n"
        f"  1. state.rule_schedule(amount=0, salt=HexBytes('{SALT}'))\n"
        f"     event Timelock.CallScheduled(id={OPERATION}, target=accounts[1], amount=0, salt={SALT}, delay=3600)\n"
        f"  2. state.rule_schedule(amount=1, salt=HexBytes('{SALT}'))\n"
        f"     TransactionReverted: Timelock.schedule reverted: AlreadyScheduled({OPERATION})\n"
        f"  {SOURCE}\n"
        f"still fails: TransactionReverted: Timelock.schedule reverted: AlreadyScheduled({OPERATION})\n"
        f"  {SOURCE}\n"
    )
    code, out = invoke("failures")
    assert code == 0 and "b'" not in out
    assert f"{machine_id}  machines/timelock.py::TimelockMachine" in out and f"AlreadyScheduled({OPERATION})" in out
    assert f"assert {HASHED} != {HASHED}" in out
