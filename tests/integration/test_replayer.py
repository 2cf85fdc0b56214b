"""Programs replayed from checkpoints end exactly as when replayed from the start."""

from __future__ import annotations

import random

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.engine.loader import load_module
from evmstate.engine.program import InvalidProgram, init_class, run_program
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink.replayer import Replayer
from evmstate.spec import collect

from ..conftest import copy_example

# a machine whose Python state (a dict, a list, a counter) follows the chain's; an error names
# both, so a checkpoint that restored either wrongly shows in the outcome
MACHINE = '''
from evmstate import strategy


class Ledger:
    amount = strategy("uint256", max_value=20)
    who = strategy("address", length=3)

    def __init__(cls, accounts, Token):
        cls.accounts = accounts
        cls.token = Token.deploy("T", "T", 18, 1000, {"from": accounts[0]})

    def setup(self):
        self.sent = {}
        self.log = []

    def rule_send(self, who, amount):
        self.token.transfer(who, amount, {"from": self.accounts[0]})
        self.sent[who] = self.sent.get(who, 0) + amount
        self.log.append(amount)

    def rule_back(self, who, amount):
        if self.sent.get(who, 0) >= amount:
            self.token.transfer(self.accounts[0], amount, {"from": who})
            self.sent[who] -= amount
            self.log.append(-amount)

    def invariant_books(self):
        for who, n in self.sent.items():
            assert self.token.balanceOf(who) == n or who == self.accounts[0], (who, n, self.log)
        assert sum(self.log) < 40, ("too much sent", sum(self.log), self.log)
'''


def _outcome(ran):
    return (type(ran.error).__name__ if ran.error else None, str(ran.error) if ran.error else None, ran.at, ran.lines)


def test_every_program_ends_the_same_from_a_checkpoint_as_from_the_start(tmp_path):
    root = copy_example(tmp_path)
    (root / "machines" / "ledger.py").write_text(MACHINE)
    project = Project(config_mod.load(root))
    spec = collect(load_module(root / "machines" / "ledger.py").Ledger)
    init_class(spec, project)
    base = project.backend.snapshot()
    replayer = Replayer(spec, project, base)
    rng = random.Random(7)
    program: list[RecordedStep] = []
    tried = []
    for _ in range(120):
        # a program like the shrinker's candidates: the last one with a step changed, deleted or added
        candidate = list(program)
        move = rng.random()
        if candidate and move < 0.3:
            del candidate[rng.randrange(len(candidate))]
        elif candidate and move < 0.6:
            i = rng.randrange(len(candidate))
            candidate[i] = candidate[i].with_arguments({"amount": rng.randrange(21)})
        else:
            rule = rng.choice(["rule_send", "rule_back"])
            candidate.insert(rng.randrange(len(candidate) + 1), RecordedStep(rule, {"who": {"account": rng.randrange(3)}, "amount": rng.randrange(21)}))
        try:
            tried.append((candidate, _outcome(replayer.run(candidate))))
        except InvalidProgram:
            continue
        if rng.random() < 0.7:
            program = candidate
    executed = replayer.steps
    replayer.close()
    # then each program again from the chain after __init__, as run_program plays it
    for candidate, fast in tried:
        project.backend.revert(base)
        assert _outcome(run_program(spec, project, candidate, strict=True)) == fast, candidate
    assert len(tried) > 100
    # edits anywhere in the program: the steps before the first edited one come from checkpoints
    assert executed < 0.8 * sum(len(c) for c, _ in tried), "checkpoints spared the shared steps"


def test_the_comparisons_a_candidate_met_come_with_their_arguments_and_are_replayed_once(tmp_path):
    from evmstate.engine.shrink.trials import Trials
    from evmstate.engine.tracebacks import FailureSignature
    from evmstate.evm.base import Feedback

    root = copy_example(tmp_path)
    project = Project(config_mod.load(root))
    feedback = Feedback()
    project.backend.set_coverage({})
    project.backend.set_feedback(feedback)  # the search's hooks, as while a run shrinks
    spec = collect(load_module(root / "machines" / "sale.py").SaleMachine)
    init_class(spec, project)
    trials = Trials(spec, project, project.backend.snapshot(), FailureSignature("AssertionError", None, None, None), feedback)
    candidate = [RecordedStep("rule_set_price", {"price": 2_000_000}), RecordedStep("rule_buy", {"quote": 5})]
    met = trials.operands(candidate, 1)
    # `_quote > price`: the quote, and the price with its fee it was compared with
    assert met.sides == [(5, 2_006_000)] and met.operands == [2_006_000]
    runs = trials.replayer.runs
    assert trials.operands(candidate, 1) == met and trials.replayer.runs == runs
    assert feedback.sides == [] and not feedback.everywhere  # the search's lists as they were
