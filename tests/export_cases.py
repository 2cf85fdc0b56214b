"""The bundled examples' failures as the export tests use them: each machine's minimal failing program, and the fix of its bug.

The programs are the ones `evmstate run` finds and shrinks to on the bundled project (the search
itself is tested in tests/quality/test_search_power.py and the other quality tests); a record is
made from each by replaying it on the engine (pinned_record), so that no test pays a search to
get one. Each fix is the planted bug's correction, as a replacement in the contract's source.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from evmstate import config as config_mod
from evmstate.engine.program import run_program
from evmstate.engine.recorded import program_lines
from evmstate.engine.records import source_hashes, versions
from evmstate.engine.replay import machine_of, ready_machine
from evmstate.engine.tracebacks import ErrorInfo
from evmstate.failures import FailureRecord, FailureStore, record_id

ACCOUNT_0 = {"account": 0}

# (machine module, machine class) -> its failing program, as a failure record holds its steps
PROGRAMS: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("machines/claims.py", "ClaimsMachine"): [
        {"rule": "rule_register", "arguments": {}},
        {
            "rule": "rule_claim",
            "arguments": {"code": 98089824643083573293214571647689440406858891577231276115043090024928635288419},
        },
        {
            "rule": "rule_claim",
            "arguments": {"code": 98089824643083573293214571647689440406858891577231276115043090024928635288419},
        },
    ],
    ("machines/depositer.py", "StateMachine"): [
        {"rule": "rule_deposit", "arguments": {"address": ACCOUNT_0, "value": 1}},
        {"rule": "rule_withdraw", "arguments": {"address": ACCOUNT_0, "value": 0}},
    ],
    ("machines/fee_vault.py", "FeeVaultMachine"): [{"rule": "rule_set_fee", "arguments": {"fee": 84843314297726}}],
    ("machines/inbox.py", "InboxMachine"): [
        {"rule": "rule_open_inbox", "arguments": {"who": ACCOUNT_0}},
        {
            "rule": "rule_send",
            "arguments": {"who": ACCOUNT_0, "to": "0xd13311AED2C5bF3621611c3C77C14B7DCf13B64F", "amount": 1},
        },
    ],
    ("machines/ladder.py", "LadderMachine"): [{"rule": "rule_climb", "arguments": {"x": x}} for x in (86, 75, 22, 27)],
    ("machines/payments.py", "PaymentsRouted"): [
        {"rule": "authorize", "arguments": {"amount": 1}, "results": ["authorized_0"]},
        {"rule": "void", "arguments": {"payment": {"ref": "authorized_0"}}, "results": ["voided_0"]},
        {"rule": "capture_voided", "arguments": {"payment": {"ref": "voided_0"}}},
    ],
    ("machines/payments.py", "PaymentsFiltered"): [
        {"rule": "authorize", "arguments": {"amount": 1}, "results": ["payments_0"]},
        {"rule": "void", "arguments": {"payment": {"ref": "payments_0"}}},
        {"rule": "capture_refused", "arguments": {"payment": {"ref": "payments_0"}}},
    ],
    ("machines/safe.py", "SafeMachine"): [
        {"rule": "rule_set_base", "arguments": {"number": 1}},
        {"rule": "rule_open", "arguments": {"number": 10}},
    ],
    ("machines/sale.py", "SaleMachine"): [
        {"rule": "rule_set_price", "arguments": {"price": 1000000}},
        {"rule": "rule_buy", "arguments": {"quote": 1003000}},
    ],
    ("machines/staking.py", "StakingMachine"): [
        {"rule": "rule_fund", "arguments": {}},
        {"rule": "rule_stake", "arguments": {"staker": ACCOUNT_0, "amount": 1}},
        {"rule": "rule_fund", "arguments": {}, "sleep": 1209601},
    ],
    ("machines/vesting.py", "VestingMachine"): [
        {"rule": "rule_grant", "arguments": {}},
        {"rule": "rule_release", "arguments": {}, "sleep": 31536000},
    ],
}

# contract source -> the planted bug's texts, each with its correction
FIXES: dict[str, list[tuple[str, str]]] = {
    "contracts/Claims.vy": [
        ("    self.claimed += 1\n", "    self.claimed += 1\n    self.claim_code[msg.sender] = max_value(uint256)\n")
    ],
    "contracts/Depositer.vy": [("self.deposited[msg.sender] = _value", "self.deposited[msg.sender] -= _value")],
    "contracts/FeeVault.vy": [
        (
            "    if _fee == DEBUG_FEE:\n        self.fee = _fee  # the bug: this branch never checks the cap\n        return\n",
            "",
        )
    ],
    "contracts/Inbox.vy": [("self.balances[msg.sender] += 2 * _amount", "self.balances[_to] += _amount")],
    "contracts/Ladder.vy": [("            self.rung = 4", "            pass")],
    "contracts/Payments.vy": [(" or self.status[_payment_id] == VOIDED", "")],
    # SafeMachine holds that none of its accounts opens the safe: the fixed safe opens for its owner alone, none of them
    "contracts/Safe.vy": [
        ("opened: public(bool)\n", "opened: public(bool)\nowner: public(address)\n"),
        ("    self.opened = True", '    assert msg.sender == self.owner, "not the owner"\n    self.opened = True'),
    ],
    "contracts/Sale.vy": [("assert _quote > price,", "assert _quote >= price,")],
    "contracts/StakingRewards.vy": [
        ("    return block.timestamp\n", "    return min(block.timestamp, self.period_finish)\n")
    ],
    "contracts/Vesting.vy": [("block.timestamp - self.start + self.cliff", "block.timestamp - self.start")],
}

SNEKMATE_FIX = [
    (
        "    # the bug: the caller's allowance is not spent first (erc20._spend_allowance(owner_, msg.sender, amount_))\n",
        "    erc20._spend_allowance(owner_, msg.sender, amount_)\n",
    )
]


def fix(root: Path, source: str, changes: list[tuple[str, str]]) -> None:
    """Correct the planted bug in root/source: each bug's text (there once) replaced by its correction."""
    path = root / source
    text = path.read_text()
    for bug, correction in changes:
        assert text.count(bug) == 1, f"{source}: {bug!r} is not there once"
        text = text.replace(bug, correction)
    path.write_text(text)


def pinned_record(root: Path, path: str, name: str, steps: list[dict[str, Any]]) -> FailureRecord:
    """The failure record of a machine's program, made by replaying it on the engine as `evmstate run` records a failure, and saved."""
    cfg = config_mod.load(root)
    steps = [{"results": [], **step} for step in steps]
    draft = FailureRecord(id="pinned", kind="machine", path=path, name=name, error={}, steps=steps, program=[])
    project, cls = machine_of(cfg, draft)
    spec, recorded = ready_machine(project, draft, cls)
    with (
        project.backend.anchor(),
        contextlib.chdir(root),
    ):  # where `evmstate run` runs: the error's place is shown from there
        ran = run_program(spec, project, recorded)
        assert ran.error is not None, f"{path}::{name}: the pinned program does not fail"
        error = ErrorInfo.of(ran.error).to_data()
    record = FailureRecord(
        id=record_id("machine", path, name, error, steps),
        kind="machine",
        path=path,
        name=name,
        error=error,
        steps=steps,
        program=program_lines(name, (line for step in ran.lines for line in step.splitlines())),
        versions=versions(),
        hashes=source_hashes(cfg, project, path),
    )
    return FailureStore.of(cfg).keep(record)
