"""The evmstate command through click's CliRunner, and once as a real installed command."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from evmstate_cli.main import main

from ..conftest import evmstate_exe
from .helpers import invoke

REPO = Path(__file__).resolve().parents[2]


def test_run_reports_the_shrunk_program_and_exits_1(depositer_run):
    code, out = depositer_run.code, depositer_run.out
    assert code == 1
    assert "FAILED machines/depositer.py::StateMachine" in out
    assert "Invariant StateMachine.invariant failed: AssertionError: assert 0 == 1" in out
    assert "Falsifying example (2 steps):\nstate = StateMachine()\nstate.rule_deposit(address=accounts[0], value=1)\nstate.rule_withdraw(address=accounts[0], value=0)\n" in out
    assert "rule_withdraw" in out and "reverted  expected" in out


def test_selectors_only_stateful_and_k(example):
    code, out = invoke("run", "machines/erc20.py::ERC20Machine", "--max-examples", "3", "--steps", "5")
    assert code == 0 and "ERC20Machine" in out and "1 passed, 0 failed" in out
    code, out = invoke("run", "--no-stateful", "--max-examples", "3")
    assert code == 0 and "test_transfer_moves_exactly_the_amount" in out and "StateMachine" not in out
    code, out = invoke("run", "--only-stateful", "-k", "erc20", "--max-examples", "2", "--steps", "3")
    assert code == 0 and "ERC20Machine" in out and "test_transfer" not in out and "depositer" not in out


def test_an_import_error_is_reported_and_other_machines_still_run(example):
    (example / "machines" / "broken.py").write_text("import os\nfrom evmstate import nothing_here\n")
    code, out = invoke("run", "--max-examples", "2", "--steps", "3", "-k", "broken or erc20")
    assert "ERROR machines/broken.py" in out and "broken.py:2: cannot import: ImportError" in out
    assert "from evmstate import nothing_here" in out
    assert "ERC20Machine" in out and code == 2


def test_definition_error_names_method_parameter_and_fix(example):
    (example / "machines" / "bad.py").write_text("class BadMachine:\n    def rule_x(self, amt):\n        pass\n")
    code, out = invoke("run", "machines/bad.py")
    assert code == 2
    assert "BadMachine.rule_x: parameter 'amt' has no strategy" in out and 'amt = strategy("uint256")' in out


def test_a_rule_parameter_one_letter_off_a_strategy_is_named_as_the_likely_typo(example):
    source = "from evmstate import strategy\n\nclass BadMachine:\n    shares = strategy('uint8')\n\n    def rule_x(self, share):\n        pass\n"
    (example / "machines" / "bad.py").write_text(source)
    code, out = invoke("run", "machines/bad.py")
    assert code == 2 and "Traceback" not in out
    assert "BadMachine.rule_x: parameter 'share' has no strategy. Did you mean 'shares'?" in out
    assert 'share="shares"' in out


def test_unknown_init_parameter_lists_what_is_available(example):
    (example / "machines" / "bad.py").write_text("class M:\n    def __init__(cls, Tokn):\n        pass\n    def rule_a(self):\n        pass\n")
    code, out = invoke("run", "machines/bad.py")
    assert code == 2 and "cannot provide parameter 'Tokn'" in out and "Token" in out


def test_config_typo_is_a_usage_error(example):
    (example / "evmstate.toml").write_text("[hypothesis]\nmax_exampels = 3\n")
    code, out = invoke("run")
    assert code == 2 and "Did you mean 'max_examples'" in out


def test_a_contract_that_does_not_compile_is_an_error_but_the_rest_runs(example):
    (example / "contracts" / "Bad.vy").write_text("@external\ndef f() -> uint256\n    return 1\n")
    code, out = invoke("run", "machines/test_properties.py", "--max-examples", "3")
    assert code == 2
    assert "ERROR contracts/Bad.vy\ncontract 'Bad' does not compile (no machine or test here asks for it):\n" in out
    assert "Bad.vy:2: SyntaxException" in out
    assert "2 passed, 0 failed, 1 error" in out


def test_a_broken_contract_a_machine_asks_for_counts_as_one_error(example):
    (example / "contracts" / "Bad.vy").write_text("@external\ndef f() -> uint256\n    return 1\n")
    (example / "machines" / "bad.py").write_text("class BadMachine:\n    def __init__(cls, Bad):\n        pass\n\n    def rule_x(self):\n        pass\n")
    code, out = invoke("run", "machines/bad.py", "--max-examples", "3")
    assert code == 2
    assert "contract 'Bad' does not compile; needed by BadMachine" in out and "ERROR machines/bad.py::BadMachine" in out
    assert "0 passed, 0 failed, 1 error" in out


def test_compile_lists_contracts_and_library_modules_and_their_errors(example):
    def write(name: str, text: str) -> None:
        (example / name).parent.mkdir(parents=True, exist_ok=True)
        (example / name).write_text(text)

    write("contracts/lib/shared.vy", "from snekmate.auth import ownable\nuses: ownable\n\n@internal\ndef _check():\n    ownable._check_owner()\n")
    write(
        "contracts/Owned.vy",
        "from snekmate.auth import ownable\nfrom lib import shared\ninitializes: ownable\ninitializes: shared[ownable := ownable]\n\n"
        "@deploy\ndef __init__():\n    ownable.__init__()\n\n@external\ndef check():\n    shared._check()\n",
    )
    write("contracts/Bad.vy", "@external\ndef f() -> uint256:\n    return self.nope\n")
    code, out = invoke("compile")
    assert code == 2
    assert out.splitlines()[0] == "settings: evmstate.toml (contracts in contracts/)"
    lines = out.splitlines()[1:]
    assert [line.split()[0] for line in lines[:15]] == [
        "Bad", "Claims", "Depositer", "FeeVault", "Inbox", "Ladder", "Owned", "Payments", "Puzzle", "Safe", "Sale", "ShareVault",
        "StakingRewards", "Token", "Vesting",
    ]
    assert lines[0] == "Bad                         error  compiled  does not compile (below)"
    assert lines[6].startswith("Owned") and lines[6].endswith("compiled  check")
    assert lines[15:17] == [
        "module shared        contracts/lib/shared.vy  imported by Owned",
        "module ownable       snekmate/auth/ownable.vy  imported by Owned, shared",
    ]
    assert lines[18] == "error: contract 'Bad' does not compile:"
    assert lines[19].endswith("contracts/Bad.vy:3: UndeclaredDefinition: Storage variable 'nope' has not been declared.")
    code, again = invoke("compile")
    assert code == 2 and again.splitlines()[1:4] == ["Bad                         error  cached    does not compile (below)", lines[1].replace("compiled  ", "cached    "), lines[2].replace("compiled  ", "cached    ")]


def test_missing_path_and_machine(example):
    code, out = invoke("run", "machines/nope.py")
    assert code == 2 and "no such machine file" in out
    assert "seed:" not in out  # no run started: no seed to rerun it with
    code, out = invoke("fuzz", "--time", "5s", "machines/nope.py")
    assert code == 2 and "no such machine file" in out and "seed:" not in out
    code, out = invoke("run", "machines/depositer.py::Nope")
    assert code == 2 and "no machine or property test named 'Nope'; found StateMachine" in out


def test_compile_lists_contracts_from_the_cache(example):
    code, out = invoke("compile")
    assert code == 0 and "Depositer" in out and "deposit_for" in out
    code, out = invoke("compile")
    assert "cached" in out and "compiled" not in out


def test_instantiating_a_state_machine_directly_is_a_usage_error():
    from evmstate import StateMachine, UsageError

    class Mine(StateMachine):
        pass

    with pytest.raises(UsageError, match="evmstate run path/to/file.py::Mine"):
        Mine()


def test_main_maps_library_errors_to_exit_2(example, monkeypatch, capsys):
    (example / "evmstate.toml").write_text("[nope]\n")
    monkeypatch.setattr(sys, "argv", ["evmstate", "run"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown section [nope]" in err and "Traceback" not in err


@pytest.mark.processes
def test_real_subprocess_of_the_installed_command(example, cli_env: dict[str, str]):
    exe = evmstate_exe()
    env = cli_env
    proc = subprocess.run([exe, "run", "machines/depositer.py", "--seed", "2"], capture_output=True, text=True, env=env, cwd=example, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "state.rule_deposit(address=accounts[0], value=1)\nstate.rule_withdraw(address=accounts[0], value=0)" in proc.stdout
    assert "falsified at example" in proc.stdout  # plain lines when stdout is not a terminal


def test_init_scaffolds_a_project_that_runs_at_once(tmp_path, monkeypatch, cli_env: dict[str, str]):
    monkeypatch.chdir(tmp_path)
    code, out = invoke("init", "proj")
    assert code == 0 and "next: cd proj && evmstate run" in out
    root = tmp_path / "proj"
    assert (root / ".gitignore").read_text().startswith(".evmstate/")
    toml = (root / "evmstate.toml").read_text()
    from evmstate import config as config_mod

    sections = {"project": config_mod.ProjectConfig, "compiler": config_mod.CompilerConfig, "accounts": config_mod.AccountsConfig, "chain": config_mod.ChainConfig,
                "hypothesis": config_mod.HypothesisConfig, "fuzz": config_mod.FuzzConfig, "backend": config_mod.BackendConfig, "database": config_mod.DatabaseConfig}
    for section, cls in sections.items():
        part = toml.split(f"[{section}]\n", 1)[1].split("\n[", 1)[0]
        for f in (f for f in dataclasses.fields(cls) if not f.metadata.get("internal")):
            assert f"# {f.name} = " in part, f"[{section}] {f.name} is not in the evmstate.toml that init writes"
    monkeypatch.chdir(root)
    code, out = invoke("run", "--max-examples", "10", "--steps", "10")
    assert code == 0, out
    assert "CounterMachine" in out and "CounterCallers" in out and "test_increase_adds_exactly" in out
    assert "never ran" not in out
    code, out = invoke("compile")
    assert code == 0 and "Counter" in out and "increase" in out
    (root / "machines" / "counter.py").write_text("# mine\n")
    code, out = invoke("init")
    assert code == 2 and "machines/counter.py" in out and "nothing was written" in out
    assert (root / "machines" / "counter.py").read_text() == "# mine\n"
    code, out = invoke("init", "--force")
    assert code == 0 and "rule_increase" in (root / "machines" / "counter.py").read_text()


def test_a_bad_gas_setting_names_the_setting(example):
    (example / "evmstate.toml").write_text((example / "evmstate.toml").read_text() + "\n[chain]\ngas_limit = 100\n")
    code, out = invoke("run", "--max-examples", "2")
    assert code == 2
    assert "evmstate.toml: [chain] gas_limit = 100 is below 21000" in out and "Use at least 21000" in out
