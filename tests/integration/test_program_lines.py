"""One program, one way of printing it: the live steps, the shrink report, the saved record, the replay
and the trace all write the same lines, because they all go through engine/recorded.py."""

import ast
import re
import textwrap
from pathlib import Path

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.engine.program import Step, live_program_lines
from evmstate.engine.recorded import RecordedStep, program_lines, ref_of
from evmstate.engine.replay import replay
from evmstate.failures import FailureStore, Ref, decode_value
from evmstate.runner import Overrides, RunOptions, run

# a plain Python machine (no contract to compile) whose program holds bundle values, accounts,
# bytes, numbers and a wait: every kind of value a program line shows
TICKETS = """
from evmstate import Bundle, StateMachine, invariant, rule, strategy


class TicketMachine(StateMachine):
    tickets = Bundle("tickets")

    def __init__(cls, chain):
        cls.chain = chain

    def setup(self):
        self.start = self.chain.time()
        self.redeemed = []

    @rule(target=tickets, owner=strategy("address"), memo=strategy("bytes4"))
    def issue(self, owner, memo):
        return (owner, memo)

    @rule(ticket=tickets, amount=strategy("uint8"))
    def redeem(self, ticket, amount):
        self.redeemed.append((ticket, amount))

    @invariant()
    def not_after_an_hour(self):
        assert not (self.redeemed and self.chain.time() - self.start >= 3600), "redeemed after an hour"
"""


def test_every_place_that_prints_a_program_prints_the_same_lines(tmp_path):
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "tickets.py").write_text(textwrap.dedent(TICKETS))
    (tmp_path / "evmstate.toml").write_text("")
    config = config_mod.load(tmp_path)
    summary = run(config, RunOptions((str(tmp_path / "machines" / "tickets.py"),), overrides=Overrides(seed=0)), lambda e: None)
    (result,) = summary.results
    failure = result.failure
    assert result.status == "failed" and failure is not None, result.error
    reported = failure.program  # the shrink report's lines (the deletion pass's last replay)
    assert reported[0] == "state = TicketMachine()" and any(line.startswith("chain.sleep(") for line in reported), reported
    assert any("tickets_0" in line for line in reported) and any("HexBytes(" in line for line in reported), reported

    # the saved record
    record = FailureStore.of(config).load(result.failure_id)
    assert record.program == reported
    assert [RecordedStep.from_data(s) for s in record.steps] == list(failure.recorded)
    assert [s.to_data() for s in failure.recorded] == record.steps

    # the trace of the reported program: the same lines, a wait's last one saying when the step ran (a comment)
    traced = [s.line for s in failure.trace.steps if s.kind == "step"]
    when = [line for step in traced for line in step.splitlines() if "  # now block " in line]
    assert when and all(re.fullmatch(r"chain\.(sleep|mine)\(\d+\)  # now block \d+, time \d+ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)", line) for line in when), when
    assert program_lines("TicketMachine", (line.split("  # ")[0] for step in traced for line in step.splitlines())) == reported

    # the replay of the saved record
    replayed = []
    verdict = replay(config, record, replayed.append)
    assert verdict.verdict == "still fails"
    lines = [line.split("  # ")[0] for s in replayed if s.index > 0 for line in s.line.splitlines()]
    assert program_lines("TicketMachine", lines) == reported

    # the live steps, as the search holds them: drawn values, bundle values by Ref
    accounts = Project(config).accounts
    live = [
        Step(s.rule, {k: Ref(ref_of(v)) if ref_of(v) else decode_value(v, accounts=accounts, refs={}) for k, v in s.arguments.items()}, list(s.results), delay=s.delay)
        for s in failure.recorded
    ]
    assert live_program_lines("TicketMachine", live) == reported
    assert [s.recorded() for s in live] == list(failure.recorded)


def test_no_module_but_recorded_writes_a_program_line():
    """A second formatter would write its own "state." receiver or f"state = {name}()" instance line."""
    engine = Path(__file__).resolve().parents[2] / "evmstate"
    writers = []
    for path in sorted(engine.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value == "state.":
                writers.append(f"{path.relative_to(engine)}:{node.lineno}")
            if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant) and str(node.values[0].value).startswith(("state.", "state = ")):
                writers.append(f"{path.relative_to(engine)}:{node.lineno}")
    assert writers and all(w.startswith("engine/recorded.py:") for w in writers), writers
