"""What people read: plain lines in CI, captured prints, property-test lines, traces, the gas report."""

import json
import re
import shutil
import statistics
import textwrap

from evmstate import Project
from evmstate.engine.events import MachineFinished
from evmstate.runner import RunSummary

from .helpers import invoke

LONG_FILE = "a_machine_file_with_a_name_long_enough_to_wrap_any_terminal_line_in_two_or_more_places.py"
LONG_NAME = "AnERC20MachineWhoseNameAloneIsLongerThanMostTerminalsAreWideAndThenSomeMoreCharacters"


def test_off_a_terminal_lines_are_never_wrapped_and_names_are_whole(example):
    source = (example / "machines" / "erc20.py").read_text().replace("class ERC20Machine:", f"class {LONG_NAME}:")
    (example / "machines" / LONG_FILE).write_text(source)
    code, out = invoke("run", f"machines/{LONG_FILE}", "--max-examples", "3", "--steps", "3", "--seed", "1")
    assert code == 0, out
    # COLUMNS=200 in this environment: the line is longer, and stays one line
    (line,) = [line for line in out.splitlines() if line.startswith("✓ ")]
    assert re.fullmatch(rf"✓ \[1/1\] machines/{LONG_FILE}::{LONG_NAME}  examples 3/3, 9 steps, \d+ steps/s, \d+\.\ds", line), line
    assert len(line) > 200
    assert not (example / ".hypothesis").exists(), "Hypothesis keeps its caches under .evmstate/"
    assert (example / ".evmstate" / "hypothesis").is_dir()


FAILING_LONG = f'''
from evmstate import strategy


class {LONG_NAME}:
    x = strategy("uint8")

    def rule_check(self, x):
        assert x < 200, "a failure message long enough that a table would cut it off somewhere past seventy characters"
'''


def test_failures_lists_whole_names_and_messages(example):
    (example / "machines" / LONG_FILE).write_text(FAILING_LONG)
    code, out = invoke("run", f"machines/{LONG_FILE}", "--max-examples", "30", "--seed", "1")
    assert code == 1, out
    code, out = invoke("failures")
    assert code == 0
    assert f"machines/{LONG_FILE}::{LONG_NAME}" in out
    assert "AssertionError: a failure message long enough that a table would cut it off somewhere past seventy characters" in out
    assert "…" not in out


PRINTING = '''
from evmstate import strategy


class Printer:
    value = strategy("uint256", max_value=100)

    def __init__(cls, accounts, Depositer):
        cls.accounts = accounts
        cls.contract = Depositer.deploy({"from": accounts[0]})

    def setup(self):
        self.total = 0

    def rule_deposit(self, value):
        print(f"deposit {value}")
        self.contract.deposit_for(self.accounts[1], {"from": self.accounts[0], "value": value})
        self.total += value

    def invariant(self):
        assert self.total < 150
'''


def test_prints_are_shown_once_for_the_reported_program_only(example):
    (example / "machines" / "printing.py").write_text(PRINTING)
    code, out = invoke("run", "machines/printing.py", "--seed", "3", "--max-examples", "40")
    assert code == 1, out
    program = out[out.index("Falsifying example") : out.index("Trace:")]
    deposits = re.findall(r"state\.rule_deposit\(value=(\d+)\)", program)
    assert len(deposits) >= 2
    captured = out[out.index("Captured output of the reported program:\n") :].splitlines()[1 : 1 + len(deposits)]
    assert captured == [f"deposit {v}" for v in deposits]
    # nothing else printed: not the runs of the search, not those of shrinking
    assert len(re.findall(r"^deposit \d+$", out, re.M)) == len(deposits)
    # -s lets every print through as it happens (a fresh search: not the saved example)
    shutil.rmtree(example / ".evmstate" / "examples")
    code, passed_through = invoke("run", "machines/printing.py", "--seed", "3", "--max-examples", "40", "-s")
    assert code == 1
    assert len(re.findall(r"^deposit \d+$", passed_through, re.M)) > 10 * len(deposits)


PROPERTY = '''
from evmstate import given, strategy


@given(x=strategy("uint8"), flag=strategy("bool"))
def test_small(Depositer, accounts, x, flag):
    assert x < 10
'''


def test_a_property_test_fails_with_its_drawn_arguments_only(example):
    (example / "machines" / "test_small.py").write_text(PROPERTY)
    code, out = invoke("run", "machines/test_small.py", "--seed", "1", "--max-examples", "50")
    assert code == 1, out
    assert "Falsifying example:\ntest_small(x=10, flag=False)\n" in out
    assert "counted(" not in out and "ContractContainer" not in out and "Accounts" not in out
    (line,) = [line for line in out.splitlines() if line.startswith("✗ ")]
    assert re.fullmatch(r"✗ \[1/1\] machines/test_small\.py::test_small  examples \d+/50, \d+ shrink runs, \d+\.\ds", line), line


TRACED = '''
class Traced:
    def __init__(cls, accounts, Token, Depositer):
        cls.accounts = accounts
        cls.token = Token.deploy("T", "T", 18, 1000, {"from": accounts[0]})
        cls.depositer = Depositer.deploy({"from": accounts[0]})

    def rule_transfer(self):
        self.token.transfer(self.accounts[1], 5, {"from": self.accounts[0]})

    def rule_withdraw(self):
        if self.token.balanceOf(self.accounts[1]) > 0:
            self.depositer.withdraw_from(1, {"from": self.accounts[1]})
'''


def test_the_report_traces_each_step_with_events_gas_and_the_revert_line(example):
    (example / "machines" / "traced.py").write_text(TRACED)
    code, out = invoke("run", "machines/traced.py", "--seed", "1", "--max-examples", "30", "--json", "report.json")
    assert code == 1, out
    trace = out[out.index("Trace:") :]
    pattern = textwrap.dedent(
        r"""
        Trace:
          1\. state\.rule_transfer\(\)
               Token\.transfer\(accounts\[1\], 5\) \{from: accounts\[0\]\} -> True  gas (\d+)
                 emit Token\.Transfer\(sender=accounts\[0\], receiver=accounts\[1\], value=5\)
          2\. state\.rule_withdraw\(\)
               Token\.balanceOf\(accounts\[1\]\) -> 5  gas \d+ \(call\)
               Depositer\.withdraw_from\(1\) \{from: accounts\[1\]\}  gas \d+
                 reverted: 'Insufficient balance' at contracts/Depositer\.vy:11: assert self\.deposited\[msg\.sender\] >= _value, "Insufficient balance"
               TransactionReverted: Depositer\.withdraw_from reverted: 'Insufficient balance'
        """
    ).strip()
    match = re.match(pattern, trace)
    assert match, trace
    # the gas shown is what the receipt of the same call says
    project = Project.load(example)
    token = project.Token.deploy("T", "T", 18, 1000, {"from": project.accounts[0]})
    receipt = token.transfer(project.accounts[1], 5, {"from": project.accounts[0]})
    assert int(match.group(1)) == receipt.gas_used
    data = json.loads((example / "report.json").read_text())
    steps = data["results"][0]["failure"]["trace"]["steps"]
    assert [s["line"] for s in steps] == ["setup()", "state.rule_transfer()", "state.rule_withdraw()"] or [s["line"] for s in steps] == [
        "state.rule_transfer()",
        "state.rule_withdraw()",
    ]
    assert steps[-1]["calls"][-1]["reverted"].startswith("'Insufficient balance' at contracts/Depositer.vy:11")


def test_a_failed_invariant_is_traced_with_the_values_it_read(depositer_run):
    code, out = depositer_run.code, depositer_run.out
    assert code == 1
    assert re.search(
        r"  2\. state\.rule_withdraw\(address=accounts\[0\], value=0\)\n"
        r"       Depositer\.withdraw_from\(0\) \{from: accounts\[0\]\} -> True  gas \d+\n"
        r"     invariant StateMachine\.invariant failed\n"
        r"       Depositer\.deposited\(accounts\[0\]\) -> 0  gas \d+ \(call\)\n"
        r"       AssertionError: assert 0 == 1\n",
        out,
    ), out


GAS = '''
import json
from pathlib import Path

from evmstate import reverts, strategy


class Gas:
    amount = strategy("uint256", max_value=150)
    to = strategy("address")

    def __init__(cls, accounts, Token):
        cls.accounts = accounts
        cls.token = Token.deploy("T", "T", 18, 200, {"from": accounts[0]})

    def setup(self):
        self.log = open("gas.log", "a")

    def rule_transfer(self, to, amount):
        if self.token.balanceOf(self.accounts[0]) >= amount:
            tx = self.token.transfer(to, amount, {"from": self.accounts[0]})
            self.log.write(json.dumps(["Token.transfer", tx.gas_used]) + "\\n")
        else:
            with reverts():
                self.token.transfer(to, amount, {"from": self.accounts[0]})
            self.log.write(json.dumps(["Token.transfer", None]) + "\\n")

    def rule_approve(self, to, amount):
        tx = self.token.approve(to, amount, {"from": self.accounts[0]})
        self.log.write(json.dumps(["Token.approve", tx.gas_used]) + "\\n")

    def teardown(self):
        self.log.close()
'''


def test_the_gas_report_gives_the_figures_of_the_receipts(example):
    (example / "machines" / "gas.py").write_text(GAS)
    code, out = invoke("run", "machines/gas.py", "--seed", "5", "--max-examples", "15", "--steps", "10", "--gas", "--json", "report.json")
    assert code == 0, out
    logged: dict[str, list] = {}
    for line in (example / "gas.log").read_text().splitlines():
        label, gas = json.loads(line)
        logged.setdefault(label, []).append(gas)
    report = json.loads((example / "report.json").read_text())["gas"]
    for label, figures in logged.items():
        used = [g for g in figures if g is not None]
        assert used, label
        expected = {
            "calls": len(used),
            "reverted": len(figures) - len(used),
            "min": min(used),
            "mean": round(statistics.mean(used), 1),
            "median": statistics.median(used),
            "max": max(used),
        }
        assert report[label] == expected, label
    assert report["Token.deploy"]["calls"] == 1
    # balanceOf is called once per transfer: a view call, counted as any other
    assert report["Token.balanceOf"]["calls"] == len(logged["Token.transfer"])
    assert report["Token.transfer"]["reverted"] > 0, "the seed makes some transfers revert"
    table = out[out.index("gas used per call") :]
    approve = report["Token.approve"]
    assert re.search(
        rf"Token\.approve\s+{approve['calls']}\s+0\s+{approve['min']}\s+{approve['mean']:.0f}\s+{approve['median']:.0f}\s+{approve['max']}", table
    ), table


def test_an_interrupted_run_exits_130_or_1_when_a_failure_was_kept():
    def result(status: str) -> MachineFinished:
        return MachineFinished(name="M", kind="machine", path="m.py", status=status, examples=1, steps=1, elapsed=0.1)

    assert RunSummary([result("passed"), result("interrupted")], interrupted=True).exit_code == 130
    assert RunSummary([result("failed"), result("interrupted")], interrupted=True).exit_code == 1
    assert RunSummary([], interrupted=True).exit_code == 130
