"""evmstate mutate from the command line: the report as printed, its files, exit codes, workers."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from .. import zygote
from ..conftest import copy_project, evmstate_exe, kept_mutant_compiles, plain_output
from .helpers import invoke, local_cluster

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "mutate"


@pytest.fixture()
def vault(tmp_path: Path, monkeypatch, cli_env: dict[str, str]) -> Path:
    """A copy of the project, its build cache warm (the mutants are compiled anew): the current folder."""
    copy_project(PROJECT, tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def withdraw_judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """The project after `evmstate mutate --function withdraw -n 1 --json m.json --html m.html` judged its mutants by a search, and what it printed."""
    root = tmp_path_factory.mktemp("judged")
    shutil.copytree(PROJECT, root, dirs_exist_ok=True)
    # each mutant judged again, not compiled again (tests/integration/test_mutate.py compiles them)
    with pytest.MonkeyPatch.context() as mp, kept_mutant_compiles(root, "kept-mutants-vault-withdraw"):
        mp.chdir(root)
        plain_output(mp)
        code, out = invoke("mutate", "--function", "withdraw", "-n", "1", "--json", "m.json", "--html", "m.html")
    return root, code, out


@pytest.fixture()
def judged(withdraw_judged: tuple[Path, int, str], tmp_path: Path, monkeypatch, cli_env: dict[str, str]) -> Path:
    """A copy of that project, its verdicts kept: the current folder."""
    shutil.copytree(withdraw_judged[0], tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _timeless(out: str) -> str:
    """The output without its times and the progress lines printed every 30 s off a terminal."""
    return re.sub(r"in \d+\.\d+s", "in …s", "".join(line for line in out.splitlines(keepends=True) if not line.startswith("… ")))


@pytest.mark.quality  # mutants judged by a search (once for the module: the tests below read its kept verdicts)
def test_the_report_lists_survivors_by_function_then_the_table_and_the_score(withdraw_judged):
    vault, code, out = withdraw_judged
    assert code == 0, out
    assert _timeless(out) == (
        "settings: evmstate.toml (contracts in contracts/)\n"
        "seed: 0 — rerun with --seed 0\n"
        "compiled 1 contract in …s\n"
        "mutating contracts/Vault.vy: 10 mutants, judged by machines/vault.py::VaultMachine\n"
        "survived: 2 mutants no invariant or rule noticed\n"
        "  contracts/Vault.vy withdraw\n"
        '    33: assert self.balances[msg.sender] >= amount, "insufficient"  →  assert self.balances[tx.origin] >= amount, "insufficient"  (sender swapped)\n'
        "    34: self.balances[msg.sender] -= amount  →  self.balances[tx.origin] -= amount  (sender swapped)\n"
        "killed by:\n"
        "  VaultMachine.invariant_balances: 3\n"
        "  VaultMachine.invariant_total: 3\n"
        "  VaultMachine.rule_withdraw_all: 1\n"
        "  VaultMachine.rule_withdraw_too_much: 1\n"
        "contract / function  killed  survived  not covered  dropped  error  score\n"
        "Vault                     8         2            0        0      0  80.0%\n"
        "  withdraw                8         2            0        0      0  80.0%\n"
        "mutation score 80.0%: 8 of 10 killed, in …s (in this process)\n"
        "wrote m.json\n"
        "wrote m.html\n"
    )
    report = json.loads((vault / "m.json").read_text())
    assert report["counts"]["killed"] == 8 and report["score"] == 0.8
    assert "Survived: what the invariants do not check" in (vault / "m.html").read_text()


@pytest.mark.quality  # mutants judged by a search
def test_verbose_says_what_killed_each_mutant_and_how(judged):
    code, out = invoke("mutate", "--function", "withdraw", "-n", "1", "-v")
    assert code == 0, out
    assert "10 verdicts kept from the last run" in out  # as the search gave them
    killed = out.split("\nkilled:\n", 1)[1].split("\nkilled by:\n", 1)[0]
    steps = r" \(search, [1-6] steps?\)$"  # as found, not shrunk: at most the machine's stateful_step_count
    assert re.search(r'^    33: assert self\.balances\[msg\.sender\] >= amount, "insufficient"  →  pass  killed by VaultMachine\.rule_withdraw_too_much' + steps, killed, re.M), out
    assert re.search(r'^    33: .*  →  assert self\.balances\[msg\.sender\] > amount, "insufficient"  killed by VaultMachine\.rule_withdraw_all' + steps, killed, re.M), out
    assert re.search(r"^    35: self\.total -= amount  →  pass  killed by VaultMachine\.invariant_total" + steps, killed, re.M), out


@pytest.mark.quality  # mutants judged by a search
def test_min_score_fails_the_command_below_it(judged):
    code, out = invoke("mutate", "--function", "withdraw", "-n", "1", "-q", "--min-score", "85")
    assert code == 1, out
    assert out.endswith("the mutation score is below --min-score 85%\n")
    code, out = invoke("mutate", "--function", "withdraw", "-n", "1", "-q", "--min-score", "80")
    assert code == 0, out
    assert "8 of 10 killed, 10 verdicts kept from the last run" in out


def test_a_name_that_is_not_there_is_a_usage_error(vault):
    code, out = invoke("mutate", "--contract", "Vaults", "-n", "1")
    assert code == 2
    assert "--contract Vaults: no contract or module of that name" in out and "Did you mean 'Vault'?" in out


def test_nothing_to_mutate_exits_5(vault):
    (vault / "machines" / "vault.py").unlink()
    (vault / "machines" / "plain.py").write_text("class Plain:\n    def rule_x(self):\n        pass\n")
    code, out = invoke("mutate", "-n", "1")
    assert code == 5, out
    assert "nothing to mutate: the selected machines and tests deploy no contract of the project's own" in out


@pytest.mark.processes
def test_the_installed_command_judges_on_two_worker_processes_and_keeps_every_verdict(vault, cli_env: dict[str, str]):
    exe = evmstate_exe()
    env = cli_env
    args = [exe, "mutate", "--function", "deposit", "-n", "2", "--json", "m.json"]
    # forked from the test zygote: a process of its own running the console script as a new one does (tests/zygote.py),
    # which starts its own fork server and workers
    first = zygote.run(args, env=env, cwd=vault, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "(on 2 local workers)" in first.stdout
    # the verdicts kept for the next run, read by the command in this process (the worker processes are the first run's)
    code, again = invoke(*args[1:])
    assert code == 0, again
    assert "(no worker needed)" in again
    kept = json.loads((vault / "m.json").read_text())
    judged = [m for m in kept["mutants"] if m["status"] in ("killed", "survived")]
    assert judged and all(m["cached"] for m in judged)
    assert kept["counts"] == {"killed": 6, "survived": 6, "not covered": 0, "dropped": 0, "error": 0}


# four of withdraw's mutants: the two survivors, and two killed each by its own property, as judging
# them in this process does (the report and verbose tests above pin those verdicts)
ON_THE_CLUSTER = (
    'contracts/Vault.vy:33: assert self.balances[msg.sender] >= amount, "insufficient"  →  assert self.balances[tx.origin] >= amount, "insufficient"',
    "contracts/Vault.vy:34: self.balances[msg.sender] -= amount  →  self.balances[tx.origin] -= amount",
    'contracts/Vault.vy:33: assert self.balances[msg.sender] >= amount, "insufficient"  →  pass',
    "contracts/Vault.vy:35: self.total -= amount  →  pass",
)


@pytest.mark.processes
def test_mutants_are_compiled_and_judged_on_a_dask_cluster_as_on_local_workers(vault):
    (vault / "listed.txt").write_text("".join(line + "\n" for line in ON_THE_CLUSTER))
    with local_cluster(2) as cluster:
        code, out = invoke("mutate", "--mutants", "listed.txt", "--cluster", cluster.scheduler_address, "--json", "m.json")
    assert code == 0, out
    assert f"(on Dask cluster at {cluster.scheduler_address})" in out
    report = json.loads((vault / "m.json").read_text())
    assert report["counts"] == {"killed": 2, "survived": 2, "not covered": 0, "dropped": 0, "error": 0}
    verdicts = {(m["line"], m["after"]): (m["status"], m["killed_by"] and m["killed_by"]["by"]) for m in report["mutants"]}
    assert verdicts == {
        (33, 'assert self.balances[tx.origin] >= amount, "insufficient"'): ("survived", None),
        (34, "self.balances[tx.origin] -= amount"): ("survived", None),
        (33, "pass"): ("killed", "VaultMachine.rule_withdraw_too_much"),
        (35, "pass"): ("killed", "VaultMachine.invariant_total"),
    }
