"""Names a new user can count on: sources by module path when stems collide, deployments written once
in deployments.py and injected by name, labels in traces, and what a Receipt used as a value says."""

from __future__ import annotations

from pathlib import Path

import pytest

from evmstate import Project

from .helpers import invoke

COUNTER = """\
# pragma version ~=0.4.3
count: public(uint256)

@external
def increment() -> uint256:
    self.count += 1
    return self.count
"""

WHICH = """\
# pragma version ~=0.4.3
@external
@view
def which() -> uint256:
    return {0}
"""

DEPLOYMENTS = """\
def counter(accounts, Counter):
    return Counter.deploy({"from": accounts[0]})


def other(accounts, Counter):
    return Counter.deploy({"from": accounts[1], "label": "spare"})


def tokens(counter, a_token, b_token):
    counter.increment()  # runs once, however many ask for counter
    return a_token.deploy(), b_token.deploy()
"""

MACHINE = """\
from evmstate import strategy


class CounterMachine:
    def __init__(cls, counter, other, tokens):
        cls.counter, cls.other, cls.tokens = counter, other, tokens

    def rule_increment(self):
        self.counter.increment()

    def rule_increment_other(self):
        self.other.increment()

    def invariant_tokens(self):
        assert [t.which() for t in self.tokens] == [1, 2]

    def invariant_counted(self):
        # every run starts from the chain as the deployments left it (count 1)
        assert self.counter.count() <= 2
"""

PROPERTIES = """\
from evmstate import given, strategy


@given(n=strategy("uint8", max_value=3))
def test_increment_counts(counter, tokens, n):
    for _ in range(n):
        counter.increment()
    assert counter.count() == 1 + n
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> Path:
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        {
            "contracts/Counter.vy": COUNTER,
            "contracts/a/token.vy": WHICH.format(1),
            "contracts/b/token.vy": WHICH.format(2),
            "deployments.py": DEPLOYMENTS,
        },
    )
    return tmp_path


def test_sources_whose_stems_collide_are_named_by_their_module_path(here: Path):
    code, out = invoke("compile")
    assert code == 0, out
    names = sorted(line.split()[0] for line in out.splitlines()[1:] if line and not line.startswith(("module", "settings")))
    assert names == ["Counter", "a_token", "b_token"]
    project = Project.load(here)
    assert project["a/token"] is project.a_token and project["b/token.vy"] is project.b_token and project["b.token"] is project.b_token
    assert project["Counter"] is project.Counter
    with pytest.raises(KeyError, match=r"project has no contract 'c/token'; contracts: Counter, a_token \(a/token\), b_token \(b/token\)"):
        project["c/token"]


def test_deployments_are_injected_by_name_run_once_and_label_their_contracts(here: Path):
    write(here, {"machines/counter.py": MACHINE, "machines/counter_properties.py": PROPERTIES})
    code, out = invoke("run", "--seed", "3", "--max-examples", "20", "--steps", "4")
    assert code == 1, out
    assert "✓ [2/2] machines/counter_properties.py::test_increment_counts  examples 20/20" in out
    assert "Invariant CounterMachine.invariant_counted failed: AssertionError: assert 3 <= 2" in out
    program = out.split("Falsifying example (2 steps):\n", 1)[1].split("\n\n", 1)[0]
    assert program == "state = CounterMachine()\nstate.rule_increment()\nstate.rule_increment()"
    # the deployment's name labels what it returned; an explicit label wins
    assert "counter.increment() {from: accounts[0]} -> 2" in out and "counter.increment() {from: accounts[0]} -> 3" in out
    assert "counter.count() -> 3  gas" in out
    assert "rule_increment_other" in out


def test_a_label_names_the_contract_in_traces_and_reports(here: Path):
    project = Project.load(here)
    weth = project.Counter.deploy({"from": project.accounts[0], "label": "weth"})
    assert repr(weth) == f"<weth {weth.address}>"
    receipt = weth.increment()
    assert repr(receipt) == f"<Receipt weth.increment gas_used={receipt.gas_used} return_value=1>"
    # a receipt is not the value: each use of it as one says to read .return_value
    for use in (lambda: receipt == 1, lambda: receipt + 1, lambda: 1 < receipt, lambda: bool(receipt), lambda: [0, 1][receipt], lambda: tuple(receipt)):
        with pytest.raises(TypeError, match=r"weth.increment is not a view function: .* Write weth.increment\(...\).return_value"):
            use()
    assert receipt == receipt and receipt in [receipt] and receipt != None and receipt.return_value == 1  # noqa: E711
    assert project.name_at(weth.raw_address) == "weth"
    again = project.Counter.at(weth.address)
    assert repr(again) == f"<Counter {again.address}>" and project.name_at(weth.raw_address) == "Counter"
    assert repr(project.Counter.at(weth, label="wbtc")) == f"<wbtc {weth.address}>"
    for bad in ("", "two words", 5):
        with pytest.raises(Exception, match="label must be a name without spaces"):
            project.Counter.deploy({"label": bad})
    with pytest.raises(Exception, match=r"unknown transaction option\(s\) 'lable' \(did you mean 'label'\?\); use 'from', 'value', 'gas' and 'label'"):
        project.Counter.deploy({"lable": "weth"})
    with pytest.raises(Exception, match=r"weth.increment: unknown transaction option\(s\) 'label'; use 'from', 'value' and 'gas'"):
        weth.increment({"label": "x"})


@pytest.mark.parametrize(
    "deployments, machine_init, message",
    [
        (DEPLOYMENTS, "def __init__(cls, countr):", "CounterMachine.__init__: cannot provide parameter 'countr'. Available: accounts, chain, Counter, a_token, b_token, counter, other, tokens. Did you mean 'counter'?"),
        (
            DEPLOYMENTS + "\n\ndef broken(counter):\n    raise ValueError('no feed for ' + str(counter.count()))\n",
            "def __init__(cls, broken):",
            "the deployment deployments.py::broken raised ValueError: no feed for 0",
        ),
        (
            DEPLOYMENTS + "\n\ndef chained(broken):\n    return broken\n\n\ndef broken(accounts):\n    return accounts[0].transfer(accounts[1], 10**40)\n",
            "def __init__(cls, chained):",
            "the deployment deployments.py::broken (asked for by chained) raised ",
        ),
        (
            DEPLOYMENTS + "\n\ndef ping(pong):\n    return pong\n\n\ndef pong(ping):\n    return ping\n",
            "def __init__(cls, ping):",
            "deployments.py: the deployments ping -> pong -> ping ask for each other; one of them must not.",
        ),
        (
            DEPLOYMENTS + "\n\ndef Counter(accounts):\n    return None\n",
            "def __init__(cls, counter):",
            "deployments.py: the deployment 'Counter' has the name of a contract (Counter)",
        ),
    ],
    ids=["unknown-name", "raises", "raises-below", "cycle", "shadows-a-contract"],
)
def test_a_deployment_that_cannot_be_given_is_an_error_that_names_it(here: Path, deployments: str, machine_init: str, message: str):
    write(here, {"deployments.py": deployments, "machines/m.py": MACHINE.replace("def __init__(cls, counter, other, tokens):", machine_init)})
    code, out = invoke("run", "--max-examples", "2", "--steps", "2")
    assert code == 2, out
    assert message in out, out
    assert "falsified" not in out.lower()


def test_a_deployments_file_that_cannot_be_imported_is_an_error_of_its_own(here: Path):
    write(here, {"deployments.py": "import no_such_module\n", "machines/m.py": MACHINE})
    code, out = invoke("run", "--max-examples", "2", "--steps", "2")
    assert code == 2, out
    assert "deployments.py:1: cannot import: ModuleNotFoundError: No module named 'no_such_module'" in out
    assert "CounterMachine.__init__: cannot provide parameter 'counter'." in out


def test_the_deployments_file_is_a_setting(here: Path):
    (here / "deployments.py").rename(here / "fixtures.py")
    write(here, {"machines/m.py": MACHINE, "evmstate.toml": '[project]\ndeployments = "fixtures.py"\n'})
    code, out = invoke("run", "--max-examples", "3", "--steps", "1")
    assert "examples 3/3" in out, out
    (here / "evmstate.toml").unlink()
    code, out = invoke("run", "--max-examples", "3", "--steps", "1")
    assert code == 2 and "CounterMachine.__init__: cannot provide parameter 'counter'." in out and "Did you mean 'Counter'?" in out, out
    write(here, {"machines/m.py": MACHINE.replace("(cls, counter, other, tokens)", "(cls, weth)")})
    code, out = invoke("run", "--max-examples", "3", "--steps", "1")
    assert code == 2 and "cannot provide parameter 'weth'. Available: accounts, chain, Counter, a_token, b_token. A deployment is a function of deployments.py that returns what it deployed." in out, out


RECEIPT_MACHINE = """\
class PortedMachine:
    def __init__(cls, counter):
        cls.counter = counter

    def setup(self):
        self.count = 1

    def rule_increment(self):
        self.count = int(self.counter.increment())  # as titanoboa returns the value
"""


def test_a_receipt_used_as_the_value_says_to_read_return_value(here: Path):
    write(here, {"machines/ported.py": RECEIPT_MACHINE})
    code, out = invoke("run", "--max-examples", "3", "--steps", "2")
    assert code == 2, out
    assert "falsified" not in out.lower() and "Falsifying example" not in out
    assert (
        "int() of a Receipt: counter.increment is not a view function: calling it sends a transaction and returns a Receipt "
        "(as Brownie does; titanoboa returns the value). Write counter.increment(...).return_value for the value it returned (1 here)"
    ) in out
    assert "PortedMachine.rule_increment raised ReceiptUsedAsValue: " in out
    assert 'File "machines/ported.py", line 9, in rule_increment' in out


def test_a_contract_that_does_not_compile_is_counted_against_the_machines_whose_deployments_need_it(here: Path):
    write(here, {"machines/m.py": MACHINE, "contracts/a/token.vy": "this is not vyper\n"})
    code, out = invoke("run", "--max-examples", "2", "--steps", "2")
    assert code == 2, out
    assert "contract 'a_token' does not compile; needed by CounterMachine (they end as errors, the others run)" in out
    assert "deployments.py::tokens: cannot provide parameter 'a_token': contract 'a_token' does not compile" in out

