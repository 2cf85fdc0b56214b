"""--backend and --backend-check on the command line."""

from __future__ import annotations

import re
import shutil
import sys

import pytest

from evmstate_cli.main import main

from .helpers import invoke


def report(out: str) -> str:
    """The failure report without timings, speeds and the compile line, which differ from run to run."""
    text = "".join(line for line in out.splitlines(keepends=True) if not line.startswith("compiled "))
    text = re.sub(r"\d+(\.\d+)?s\b", "<t>", text)
    return re.sub(r"\d+ steps/s", "<n> steps/s", text)


def test_an_unknown_backend_is_refused(example, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["evmstate", "run", "--backend", "geth"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    assert "'geth' is not one of 'pyevm', 'revm'" in capsys.readouterr().err


def test_revm_reports_the_depositer_bug_exactly_as_py_evm(example):
    pytest.importorskip("pyrevm", reason="pyrevm has no wheel for this Python")
    # revm has no per-opcode hooks: no coverage guidance, and no storage values for the
    # dictionary; with both off, a seed searches the same on either backend
    toml = example / "evmstate.toml"
    toml.write_text(toml.read_text() + "\n[fuzz]\nguidance = false\ndictionary_weight = 0\n")
    outputs = []
    for backend in ("pyevm", "revm"):
        code, out = invoke("run", "machines/depositer.py", "--seed", "1", "--backend", backend)
        assert code == 1
        outputs.append(report(out))
        shutil.rmtree(example / ".evmstate" / "examples")  # the second run searches afresh too
    assert "Falsifying example (2 steps):\nstate = StateMachine()\nstate.rule_deposit(address=accounts[0], value=1)\n" in outputs[1]
    assert outputs[1] == outputs[0]


def test_the_backend_check_runs_the_bundled_erc20_machine_without_a_difference(example):
    pytest.importorskip("pyrevm", reason="pyrevm has no wheel for this Python")
    code, out = invoke("run", "machines/erc20.py", "--backend-check", "--max-examples", "5", "--steps", "10")
    assert code == 0 and "1 passed, 0 failed" in out and "differ" not in out
