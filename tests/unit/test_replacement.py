"""Input-to-state replacement: a step whose call compared an argument for equality is queued again, the argument's choice replaced;
and a step whose calls all reverted after an argument failed an order, repeated at that bound."""

from evmstate.search import guidance
from evmstate.search.guidance import BOUNDED, REPLACEMENTS, WORD, Guide


class Run:
    """What the guide sees of a provider: the choices drawn so far."""

    def __init__(self, record):
        self.record = record
        self.replayed = 0


U256 = {"min_value": 0, "max_value": WORD - 1, "weights": None, "shrink_towards": 0}
I128 = {"min_value": -(2**127), "max_value": 2**127 - 1, "weights": None, "shrink_towards": 0}
RULE = {"min_value": 0, "max_value": 1, "weights": None, "shrink_towards": 0}


def guided_run(guide, steps, equalities, told=None):
    """One run of steps (lists of choices), the step at index k having compared equalities[k] (or told the guide
    equalities[k] otherwise: told(guide, equalities[k]))."""
    record = []
    guide.begin(Run(record), [])
    for k, step in enumerate(steps):
        guide.step_started()
        record.extend(step)
        if equalities.get(k):
            (told or Guide.compared)(guide, equalities[k])
    guide.run_finished()
    return record


def test_the_step_is_repeated_with_the_argument_replaced_then_its_neighbours():
    guide = Guide(0)
    base = [("integer", RULE, 0), ("integer", U256, 5)]
    opening = [("integer", RULE, 1), ("integer", U256, 123)]
    record = guided_run(guide, [base, opening], {1: [(123, 22)]})
    replaced = [choices for choices, _ in guide.pending]
    assert replaced == [record + [("integer", RULE, 1), ("integer", U256, v)] for v in (22, 23, 21)]
    assert guide.pending[0][1] == [(4, 6)]  # the repeated step is where the run broke through
    # the next runs replay them first
    choices, _ = guide.plan()
    assert choices == replaced[0] and guide.stats.replaced == 1


def test_each_value_is_tried_once_and_a_run_queues_a_few():
    guide = Guide(0)
    step = [("integer", U256, 7)]
    guided_run(guide, [step], {0: [(7, 100)]})
    guided_run(guide, [step], {0: [(7, 100)]})
    assert len(guide.pending) == 3
    guided_run(guide, [step], {0: [(7, v) for v in range(1000, 1100, 10)]})
    assert len(guide.pending) == 3 + REPLACEMENTS


def test_a_signed_argument_takes_the_negative_value_and_a_value_out_of_bounds_is_left_out():
    guide = Guide(0)
    guided_run(guide, [[("integer", I128, -3)]], {0: [(WORD - 3, WORD - 9)]})
    assert [c[-1][2] for c, _ in guide.pending] == [-9, -8, -10]
    small = {"min_value": 0, "max_value": 255, "weights": None, "shrink_towards": 0}
    guide = Guide(0)
    guided_run(guide, [[("integer", small, 3)]], {0: [(3, 1000)]})
    assert guide.pending == []


def test_an_argument_no_choice_drew_queues_nothing():
    guide = Guide(0)
    guided_run(guide, [[("integer", U256, 8)]], {0: [(9, 100)]})
    assert guide.pending == []


def bounded_run(guide, steps, failed):
    """One run of steps, the step at index k having had all its calls revert after its argument failed failed[k]."""
    return guided_run(guide, steps, failed, lambda g, order: g.failed_order(*order))


def test_a_reverted_step_is_repeated_with_its_argument_at_the_bound_it_failed(monkeypatch):
    guide = Guide(0)
    deposit = [("integer", RULE, 0), ("integer", U256, 5)]
    burn = [("integer", RULE, 1), ("integer", U256, 900)]  # a burn of 900 where 125 are held
    record = bounded_run(guide, [deposit, burn], {1: (900, 125)})
    assert guide.bounded == [(record + [("integer", RULE, 1), ("integer", U256, 125)], [(4, 6)])]
    # the same bound again: one below it (a strict order), then nothing
    bounded_run(guide, [deposit, burn], {1: (900, 125)})
    bounded_run(guide, [deposit, burn], {1: (900, 125)})
    assert [c[-1][2] for c, _ in guide.bounded] == [125, 124]
    # a run takes the newest at the odds of AT_BOUND, before an equality's replacement
    monkeypatch.setattr(guidance, "AT_BOUND", 1.0)
    guide.pending.append(([], []))
    choices, spans = guide.plan()
    assert choices[-1][2] == 124 and spans == [(4, 6)] and guide.stats.at_bound == 1 and guide.stats.replaced == 0


def test_a_bound_of_nothing_is_no_bound_and_only_the_newest_wait():
    guide = Guide(0)
    bounded_run(guide, [[("integer", U256, 7)]], {0: (7, 0)})  # a holder of none: any amount is refused
    assert guide.bounded == []
    for bound in range(1, BOUNDED + 3):
        bounded_run(guide, [[("integer", U256, 1000)]], {0: (1000, bound * 10)})
    assert [c[-1][2] for c, _ in guide.bounded] == [bound * 10 for bound in range(3, BOUNDED + 3)]
