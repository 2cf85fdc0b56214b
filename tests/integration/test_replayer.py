"""Programs replayed from checkpoints end exactly as when replayed from the start."""

from __future__ import annotations

import contextlib
import random

import pytest

from evmstate import config as config_mod
from evmstate.contracts.project import Project
from evmstate.engine.loader import load_module
from evmstate.engine.program import InvalidProgram, init_class, run_program
from evmstate.engine.recorded import RecordedStep
from evmstate.engine.shrink.replayer import Replayer
from evmstate.spec import collect

from ..conftest import BACKENDS, backend_config, copy_example

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


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_candidate_resumes_from_the_best_programs_kept_checkpoint_after_another_reverted_below_it(tmp_path, backend):
    """Candidates as the shrinker makes them, each a change of the best program (deleting a step, changing an amount)
    here or there in it: each resumes where it leaves the best program even when the one before changed an earlier
    step, and ends exactly as from the start."""
    root = copy_example(tmp_path)
    (root / "machines" / "ledger.py").write_text(MACHINE)
    project = Project(config_mod.load(root).replace(backend=backend_config(backend)))
    spec = collect(load_module(root / "machines" / "ledger.py").Ledger)
    init_class(spec, project)
    base = project.backend.snapshot()
    rng = random.Random(11)
    best = [RecordedStep("rule_send", {"who": {"account": 1 + i % 2}, "amount": 1 + i}) for i in range(8)]
    # a pass sweeping down the program, then one whose candidates change steps here and there (scaling values together,
    # moving a wait, a new round from the last step)
    sweeps = [
        [(i, rng.random() < 0.5, rng.randrange(21)) for i in range(len(best) - 1, -1, -1)],
        [(rng.randrange(len(best)), rng.random() < 0.2, rng.randrange(21)) for _ in range(30)],
    ]
    counts = {}
    for keeps in (True, False):
        replayer = Replayer(spec, project, base)
        replayer.keeps = keeps
        program, tried = list(best), []
        replayer.along(tuple(s.key for s in program))
        for sweep in sweeps:
            for i, delete, amount in sweep:
                if i >= len(program):
                    continue
                candidate = list(program)
                if delete:
                    del candidate[i]
                else:
                    candidate[i] = candidate[i].with_arguments({"amount": amount})
                tried.append((candidate, _outcome(replayer.run(candidate))))
                if tried[-1][1][0] is None and delete and len(program) > 4:
                    program = candidate  # a deletion that still passes: the best program now
                    replayer.along(tuple(s.key for s in program))
        counts[keeps] = (replayer.steps, replayer.restored)
        replayer.close()
    for candidate, fast in tried:
        project.backend.revert(base)
        assert _outcome(run_program(spec, project, candidate, strict=True)) == fast, candidate
    (kept_steps, restored), (stack_steps, none) = counts[True], counts[False]
    # a candidate after one that changed a later step resumes from the stack; one after an earlier change, from a kept
    # checkpoint
    assert none == 0 and restored >= 10 and kept_steps < stack_steps * 0.8, counts


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


# two invariants beside the one a failure names: one that fails on its own (a program may meet it first), one that only
# counts its checks (module-wide, so that the machine's state is as it would be)
FOCUSED = MACHINE.replace("class Ledger:", "CHECKS = []\n\n\nclass Ledger:") + '''
    def invariant_short(self):
        assert len(self.log) < 7, ("long", len(self.log))

    def invariant_counted(self):
        CHECKS.append(len(self.log))
'''


def _random_candidates(rng, n):
    program, out = [], []
    for _ in range(n):
        candidate = list(program)
        if candidate and rng.random() < 0.3:
            del candidate[rng.randrange(len(candidate))]
        else:
            rule = rng.choice(["rule_send", "rule_back"])
            step = RecordedStep(rule, {"who": {"account": rng.randrange(3)}, "amount": rng.randrange(21)})
            candidate.insert(rng.randrange(len(candidate) + 1), step)
        out.append(candidate)
        if rng.random() < 0.7:
            program = candidate
    return out


def _trials(tmp_path, source, failing):
    """The machine of source, and Trials for the failure the program failing meets."""
    from evmstate.engine.shrink.trials import Trials
    from evmstate.engine.tracebacks import FailureSignature

    root = copy_example(tmp_path)
    (root / "machines" / "ledger.py").write_text(source)
    project = Project(config_mod.load(root))
    module = load_module(root / "machines" / "ledger.py")
    spec = collect(module.Ledger)
    init_class(spec, project)
    base = project.backend.snapshot()
    signature = FailureSignature.of(run_program(spec, project, failing, strict=True).error)
    project.backend.revert(base)
    return module, spec, project, base, lambda: Trials(spec, project, base, signature, None)


def _where(minimized):
    return None if minimized is None else ([s.key for s in minimized.steps], str(minimized.error))


def test_a_focused_replay_judges_every_candidate_as_a_replay_in_full_and_checks_fewer_invariants(tmp_path):
    sends = [RecordedStep("rule_send", {"who": {"account": 1}, "amount": 20})] * 2  # 40 sent: the books' failure
    module, spec, project, base, trials_for = _trials(tmp_path, FOCUSED, sends)
    assert trials_for().target.invariant == "invariant_books"
    candidates = _random_candidates(random.Random(3), 150)
    full, in_full = trials_for(), []
    for c in candidates:
        with contextlib.suppress(InvalidProgram):
            in_full.append((_where(full.judge(c, focused=False)[0]), full.replayer.run(c).error is None))
            continue
        in_full.append((None, False))
    full.replayer.close()
    focused, judged, checks = trials_for(), [], []
    for c in candidates:
        module.CHECKS.clear()
        judged.append(_where(focused.judge(c)[0]))
        checks.append(len(module.CHECKS))
    focused.replayer.close()
    # a focused replay checks the books after a candidate's last step alone: one that fails them there is judged as a
    # replay in full judges it (cut at the step it first fails at); one whose books failed at a step and held again by
    # its end (a send past 40, then one back) is not taken
    at_end = [_sent_at_end(c) >= 40 for c in candidates]
    assert judged == [j if end else None for (j, _), end in zip(in_full, at_end)]
    assert any(j is not None and not end for (j, _), end in zip(in_full, at_end))
    # some candidates fail as the target does, some pass: a focused replay clears those without the other invariants
    passing = [n for n, (_, passed) in zip(checks, in_full) if passed]
    assert sum(j is not None for j in judged) >= 10 and len(passing) >= 10
    assert passing == [0] * len(passing)


def _sent_at_end(candidate):
    """What the ledger's log sums to after every step of candidate (MACHINE's rules, in Python)."""
    sent, total = {}, 0
    for step in candidate:
        who, amount = step.arguments["who"]["account"], step.arguments["amount"]
        if step.rule == "rule_send":
            sent[who] = sent.get(who, 0) + amount
            total += amount
        elif sent.get(who, 0) >= amount:
            sent[who] = sent.get(who, 0) - amount
            total -= amount
    return total


def test_what_a_focused_replay_keeps_fails_so_in_a_fresh_run_though_an_invariant_changes_the_machine(tmp_path):
    # an invariant that writes the machine's state, which a rule reads: unchecked in a focused replay, it leaves a
    # state a replay in full would not; a candidate is kept only as a replay in full from checkpoints in full judges it
    source = FOCUSED.replace("CHECKS.append(len(self.log))", "self.seen = getattr(self, 'seen', 0) + 1").replace(
        "    def rule_back(self, who, amount):\n",
        "    def rule_back(self, who, amount):\n        assert amount != 7 or getattr(self, 'seen', 0) % 2, 'seven'\n",
    )
    seven = [RecordedStep("rule_back", {"who": {"account": 1}, "amount": 7})] * 2  # its second step meets seen = 2
    module, spec, project, base, trials_for = _trials(tmp_path, source, seven)
    trials = trials_for()
    confirmed = []
    run = trials.replayer.run
    def counting(steps, only=None, counted=True):
        confirmed.append(counted)
        return run(steps, only, counted=counted)

    trials.replayer.run = counting

    def judged(*rules):
        confirmed.clear()
        found = trials.judge([RecordedStep(f"rule_{r}", {"who": {"account": 1}, "amount": 7}) for r in rules])[0]
        return None if found is None else [s.rule.removeprefix("rule_") for s in found.steps], confirmed.count(False)

    # unchecked, seen stays 0 in a focused replay: its third step fails there; in full seen is 3 at the third step (odd)
    # and it passes, though the focused replay left its checkpoints along the very same steps
    assert judged("send", "send", "back") == (None, 1)
    # in full, the second step meets seen = 2: kept, cut there
    assert judged("send", "back", "send") == (["send", "back"], 1)
    trials.replayer.close()
    project.backend.revert(base)
    send = RecordedStep("rule_send", {"who": {"account": 1}, "amount": 7})
    fresh = run_program(spec, project, [send, seven[0]], strict=True)
    assert str(fresh.error) == "seven" and fresh.at == 2


def test_a_focused_replay_checks_no_invariant_again_after_steps_it_held_after_from_the_start(tmp_path):
    # the books' invariant counts its own checks: a program replayed again from the start (a candidate that changed
    # its first step took the checkpoints) checks it only after the steps not replayed before
    source = FOCUSED.replace("    def invariant_books(self):\n", "    def invariant_books(self):\n        CHECKS.append('books')\n")
    sends = [RecordedStep("rule_send", {"who": {"account": 1}, "amount": 20})] * 2
    module, spec, project, base, trials_for = _trials(tmp_path, source, sends)
    trials = trials_for()
    program = [RecordedStep("rule_send", {"who": {"account": 1}, "amount": 1 + i}) for i in range(4)]
    other = [RecordedStep("rule_send", {"who": {"account": 2}, "amount": 1}), *program[1:]]
    longer = [*program, RecordedStep("rule_send", {"who": {"account": 1}, "amount": 30})]  # 40 sent: the books fail
    books = []
    for candidate in (program, other, longer):
        module.CHECKS.clear()
        judged = trials.judge(candidate)[0]
        books.append(module.CHECKS.count("books"))
    trials.replayer.close()
    # the first from the chain after __init__ (a check there, and after its last step), the second from the checkpoint
    # before its first step (after its last step); the third shares the first's four steps, which held after the
    # fourth: its fifth step is checked in the focused replay, then the chain after __init__ and each of its five steps
    # in the replay in full that confirms it (without the memory of the first: 1 + 6)
    assert books == [2, 1, 1 + 6]
    assert judged is not None and "too much sent" in str(judged.error)


@pytest.mark.parametrize("backend", BACKENDS)
def test_shrinking_on_the_runs_backend_turns_the_searchs_hooks_off_and_back(tmp_path, backend, monkeypatch):
    """What the hooks record is the search's: the shrinker's replays add nothing to it but the comparisons operands()
    asks for, and the hooks are as they were after."""
    from evmstate.engine.shrink.trials import shrink_program
    from evmstate.evm.base import Feedback

    monkeypatch.setenv("EVMSTATE_SHRINK_ON_REVM", "0")  # py-evm's own candidates, not a revm twin's
    root = copy_example(tmp_path)
    project = Project(config_mod.load(root).replace(backend=backend_config(backend)))
    spec = collect(load_module(root / "machines" / "sale.py").SaleMachine)
    init_class(spec, project)
    base = project.backend.snapshot()
    hits, feedback, observed = {}, Feedback(), []
    project.backend.set_coverage(hits)
    project.backend.set_feedback(feedback)
    project.backend.set_observer(observed.append)
    steps = [RecordedStep("rule_set_price", {"price": 2_000_000}), RecordedStep("rule_buy", {"quote": 2_006_000})]
    ran = run_program(spec, project, steps, strict=True)
    assert ran.error is not None and observed and hits
    observed.clear()
    hits.clear()
    project.backend.revert(base)
    outcome = shrink_program(spec, project, base, steps, ran.error, feedback=feedback)
    assert outcome.found is not None and outcome.replays > 5
    # the price bisected to the least that fails: the candidates ran with the hooks off, the operands' with their own
    assert [s.arguments for s in outcome.found.steps] == [{"price": 1_000_000}, {"quote": 1_003_000}]
    assert observed == [] and hits == {}
    assert project.backend.hooks_now() == (hits, observed.append, feedback)


def test_a_focused_replay_takes_no_checkpoint_past_where_it_leaves_the_best_program(tmp_path):
    sends = [RecordedStep("rule_send", {"who": {"account": 1}, "amount": 20})] * 2
    module, spec, project, base, trials_for = _trials(tmp_path, FOCUSED, sends)
    trials = trials_for()
    best = [RecordedStep("rule_send", {"who": {"account": 1}, "amount": 1 + i}) for i in range(4)]
    changed = [best[0], best[1].with_arguments({"amount": 9}), *best[2:]]
    trials.replayer.along(tuple(s.key for s in best))
    assert trials.replayer.run(changed, trials.focus).error is None
    # before each of the first two steps (the second is where it leaves the best program), none after
    assert [len(c.keys) for c in trials.replayer.checkpoints] == [0, 1]
    assert trials.replayer.run(changed).error is None  # in full: before every step
    assert [len(c.keys) for c in trials.replayer.checkpoints] == [0, 1, 2, 3]
    trials.replayer.close()
