"""evmstate export: a saved failure written as a pytest test or a Foundry test, in this process.

The records are those of the bundled examples' failures (tests/export_cases.py), made once for
the module. That the pytest tests fail on the bundled code and pass on fixed copies under pytest
itself is tests/cli/test_export_pytest.py; that the Foundry tests do under forge, test_export_forge.py.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest

from evmstate import Project, __version__
from evmstate import config as config_mod
from evmstate.errors import ExportError
from evmstate.export.driver import driven
from evmstate.export.python import pytest_test
from evmstate.export.solidity import foundry_test
from evmstate.failures import FailureStore

from ..cli.helpers import invoke
from ..conftest import copy_example
from ..export_cases import FIXES, PROGRAMS, fix, pinned_record


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A copy of the bundled project holding a record of each example's failure: (its root, machine class -> record id)."""
    root = copy_example(tmp_path_factory.mktemp("export"))
    ids = {name: pinned_record(root, path, name, steps).id for (path, name), steps in PROGRAMS.items()}
    return root, ids


def record_of(saved: tuple[Path, dict[str, str]], name: str):
    root, ids = saved
    return FailureStore.of(config_mod.load(root)).load(ids[name])


DEPOSITER_PYTEST = f'''"""Failure 3b1ecb5758 of StateMachine (machines/depositer.py) as a pytest test.

Exported by evmstate {__version__} from failure record 3b1ecb5758: `evmstate export 3b1ecb5758 --pytest`.
Each state.<rule>(...) line runs the rule on the project's contracts, then every invariant of the
machine, as a step of `evmstate run` does. While the bug is there the last step fails with:
    invariant StateMachine.invariant failed: AssertionError: assert 0 == 1
Once it is fixed the test passes.
"""


def test_statemachine_3b1ecb5758(evmstate_machine, accounts, chain):
    state = evmstate_machine('machines/depositer.py', 'StateMachine')
    state.rule_deposit(address=accounts[0], value=1)
    state.rule_withdraw(address=accounts[0], value=0)  # failed here: invariant StateMachine.invariant failed: AssertionError: assert 0 == 1
'''


def test_pytest_export_is_the_program_in_a_test_function(saved):
    assert pytest_test(record_of(saved, "StateMachine")) == DEPOSITER_PYTEST


def test_pytest_export_keeps_bundle_values_and_waits(saved):
    routed = pytest_test(record_of(saved, "PaymentsRouted"))
    assert "    authorized_0 = state.authorize(amount=1)\n    voided_0 = state.void(payment=authorized_0)\n    state.capture_voided(payment=voided_0)  # failed here: " in routed
    staking = pytest_test(record_of(saved, "StakingMachine"))
    assert "    state.rule_stake(staker=accounts[0], amount=1)\n    chain.sleep(1209601)\n    state.rule_fund()  # failed here: " in staking


@contextlib.contextmanager
def running(root: Path):
    """The exported tests' fixtures, as the pytest plugin gives them, on a fresh chain of the project in root."""
    project = Project(config_mod.load(root))
    with project.backend.anchor(), driven(project) as machine:
        yield {"evmstate_machine": machine, "accounts": project.accounts, "chain": project.chain}


@pytest.mark.parametrize("name", sorted(name for _, name in PROGRAMS))
def test_each_exported_pytest_test_fails_as_the_record_did(saved, name):
    record = record_of(saved, name)
    namespace: dict = {}
    exec(compile(pytest_test(record), f"test_{name}.py", "exec"), namespace)
    (test,) = [f for n, f in namespace.items() if n.startswith("test_")]
    with running(saved[0]) as fixtures, pytest.raises(Exception) as raised:
        test(**fixtures)
    assert type(raised.value).__name__ == record.error["type"]
    assert str(raised.value).splitlines()[0] == record.error["message"].splitlines()[0]


def test_the_driver_names_a_rule_the_machine_lacks(saved):
    with running(saved[0]) as fixtures:
        state = fixtures["evmstate_machine"]("machines/depositer.py", "StateMachine")
        with pytest.raises(AttributeError, match="StateMachine has no rule 'rule_deposits'.*its rules: rule_deposit, rule_withdraw"):
            state.rule_deposits(value=1)


DEPOSITER_FOUNDRY_BODY = """        // StateMachine.__init__
        // Depositer.deploy() from 0x591af2ED8E93A8D09054AD310D450251880243FC
        vm.setNonce(0xB2Dc64DD5f3785dC75381F8f9C9e61DCb0ef80d7, 1);
        vm.prank(0x591af2ED8E93A8D09054AD310D450251880243FC);
        deployCodeTo("Depositer.vy", hex"", 0, 0xB2Dc64DD5f3785dC75381F8f9C9e61DCb0ef80d7);
        // state.rule_deposit(address=accounts[0], value=1)
        // Depositer.deposit_for(accounts[0]) from 0x591af2ED8E93A8D09054AD310D450251880243FC: returned hex"0000000000000000000000000000000000000000000000000000000000000001"
        _call(0x591af2ED8E93A8D09054AD310D450251880243FC, 0xB2Dc64DD5f3785dC75381F8f9C9e61DCb0ef80d7, 1, hex"170c0737000000000000000000000000591af2ed8e93a8d09054ad310d450251880243fc");
        // state.rule_withdraw(address=accounts[0], value=0)
        // Depositer.withdraw_from(0) from 0x591af2ED8E93A8D09054AD310D450251880243FC: returned hex"0000000000000000000000000000000000000000000000000000000000000001"
        _call(0x591af2ED8E93A8D09054AD310D450251880243FC, 0xB2Dc64DD5f3785dC75381F8f9C9e61DCb0ef80d7, 0, hex"0a1f28070000000000000000000000000000000000000000000000000000000000000000");
        // invariant invariant
        // Depositer.deposited(accounts[0]) from 0x591af2ED8E93A8D09054AD310D450251880243FC: returned hex"0000000000000000000000000000000000000000000000000000000000000000"
        (ok, out) = _view(0x591af2ED8E93A8D09054AD310D450251880243FC, 0xB2Dc64DD5f3785dC75381F8f9C9e61DCb0ef80d7, hex"cb13cddb000000000000000000000000591af2ed8e93a8d09054ad310d450251880243fc");
        same = _same(same, ok, out, true, hex"0000000000000000000000000000000000000000000000000000000000000000");
        assertFalse(same, "invariant StateMachine.invariant failed: AssertionError: assert 0 == 1: the invariant's calls returned what they returned when it failed");
    }
"""


def test_foundry_export_makes_the_calls_and_checks_what_the_invariant_saw(saved):
    text = foundry_test(config_mod.load(saved[0]), record_of(saved, "StateMachine"))
    assert text.startswith("// SPDX-License-Identifier: UNLICENSED\npragma solidity >=0.8.13;\n\nimport {Test} from \"forge-std/Test.sol\";\n")
    assert f"/// Exported by evmstate {__version__} from failure record 3b1ecb5758: `evmstate export 3b1ecb5758 --foundry`." in text
    assert "contract StateMachine_3b1ecb5758_Test is Test {\n    function test_3b1ecb5758() public {\n" in text
    assert "        vm.chainId(1337);\n        vm.warp(1700000001);\n        vm.roll(1);\n" in text
    assert text.count("vm.deal(") == 10 + 2  # the ten funded accounts, and the two in _send
    assert DEPOSITER_FOUNDRY_BODY in text


def test_foundry_export_of_a_revert_makes_the_call_whose_revert_fails_the_test(saved):
    text = foundry_test(config_mod.load(saved[0]), record_of(saved, "SaleMachine"))
    assert "assertFalse" not in text and "bool same" not in text
    tail = text[: text.index("\n    }\n")].splitlines()[-2:]
    assert tail[0].startswith("        // Sale.buy(1003000) from 0x591af2ED8E93A8D09054AD310D450251880243FC: reverted with hex\"08c379a0")
    assert tail[1].startswith("        _call(0x591af2ED8E93A8D09054AD310D450251880243FC, ")


def test_foundry_export_of_a_wait_sets_the_clock(saved):
    text = foundry_test(config_mod.load(saved[0]), record_of(saved, "StakingMachine"), "vyper")
    assert "        vm.warp(1701209602);\n" in text  # the sleep before the last step, from the start at 1700000001
    assert '_deployAt(_vyper("contracts/StakingRewards.vy"), ' in text
    assert 'command[0] = "vyper";\n        command[1] = "-f";\n        command[2] = "bytecode";\n        command[3] = "--evm-version";\n        command[4] = "prague";' in text


def test_foundry_export_refuses_a_check_made_in_python_alone(saved):
    with pytest.raises(ExportError, match="the invariant invariant_no_more_than_vested made no call to a contract when it failed.*Export it with --pytest"):
        foundry_test(config_mod.load(saved[0]), record_of(saved, "VestingMachine"))


def test_foundry_export_refuses_a_failure_the_sources_no_longer_have(saved, tmp_path):
    root = copy_example(tmp_path / "fixed")
    shutil.copytree(saved[0] / ".evmstate" / "failures", root / ".evmstate" / "failures")
    fix(root, "contracts/Depositer.vy", FIXES["contracts/Depositer.vy"])
    record = record_of((root, saved[1]), "StateMachine")
    with pytest.raises(ExportError, match="does not fail on the sources as they are now.*`evmstate replay 3b1ecb5758` says whether it does"):
        foundry_test(config_mod.load(root), record)


def test_export_command(saved, tmp_path, monkeypatch, cli_env):
    root, ids = saved
    monkeypatch.chdir(root)
    code, out = invoke("export", ids["StateMachine"], "--pytest")
    assert (code, out) == (0, DEPOSITER_PYTEST)
    code, out = invoke("export", ids["StateMachine"][:6], "--pytest", str(tmp_path))
    assert code == 0 and (tmp_path / "test_statemachine_3b1ecb5758.py").read_text() == DEPOSITER_PYTEST
    code, out = invoke("export", ids["SaleMachine"], "--foundry", str(tmp_path / "Sale.t.sol"))
    assert code == 0 and "contract SaleMachine_e641472224_Test is Test" in (tmp_path / "Sale.t.sol").read_text()
    code, out = invoke("export", "--last", "--pytest")  # the newest saved: VestingMachine's
    assert code == 0 and "def test_vestingmachine_2a0b132c0f(evmstate_machine, accounts, chain):" in out


@pytest.mark.parametrize(
    "args, said",
    [
        (["export", "nosuchid", "--pytest"], "error: no saved failure 'nosuchid'"),
        (["export", "3b1ecb5758"], "give one of --pytest [PATH] or --foundry [PATH]"),
        (["export", "3b1ecb5758", "--pytest", "-", "--foundry", "-"], "give one of --pytest [PATH] or --foundry [PATH]"),
        (["export", "--pytest"], "give a failure id or --last"),
        (["export", "3b1ecb5758", "--pytest", "no/such/folder/t.py"], "the folder no/such/folder does not exist"),
        (["export", "2a0b132c0f", "--foundry"], "error: failure 2a0b132c0f: the invariant invariant_no_more_than_vested made no call"),
    ],
)
def test_export_command_errors(saved, monkeypatch, cli_env, args, said):
    monkeypatch.chdir(saved[0])
    code, out = invoke(*args)
    assert code == 2 and said in out


def test_a_record_of_a_property_test_is_refused(saved, tmp_path, monkeypatch, cli_env):
    root = tmp_path / "project"
    root.mkdir()
    (root / "evmstate.toml").write_text((saved[0] / "evmstate.toml").read_text())
    store = root / ".evmstate" / "failures"
    store.mkdir(parents=True)
    record = json.loads((saved[0] / ".evmstate" / "failures" / "3b1ecb5758.json").read_text())
    record.update(id="0a0a0a0a0a", kind="test", name="test_withdraw", path="machines/test_properties.py", steps=[{"rule": "test_withdraw", "arguments": {"amount": 1}}])
    (store / "0a0a0a0a0a.json").write_text(json.dumps(record))
    monkeypatch.chdir(root)
    code, out = invoke("export", "0a0a0a0a0a", "--pytest")
    assert code == 2 and "failure 0a0a0a0a0a is of the property test test_withdraw (machines/test_properties.py), not of a state machine" in out


def test_a_foundry_export_of_sources_forge_cannot_build_says_to_compile_with_vyper(tmp_path):
    """A source that hands a module another (snekmate's erc20 uses ownable: `initializes: erc20[ownable := ow]`) is one
    forge's own Vyper build cannot compile: the export says so, and what to give instead; the bundled project's sources
    need nothing of it."""
    from evmstate.export.solidity import forge_note

    from ..conftest import REPO

    snekmate = REPO / "tests" / "projects" / "export_snekmate"
    note = forge_note(config_mod.load(snekmate))
    assert note.startswith("note: contracts/BurnToken.vy initializes a module that uses another") and "--compile-with vyper" in note, note
    assert forge_note(config_mod.load(copy_example(tmp_path / "plain"))) == ""
