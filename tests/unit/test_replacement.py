"""Input-to-state replacement: a step whose call compared an argument for equality is queued again, the argument's choice replaced."""

from evmstate.search.guidance import REPLACEMENTS, WORD, Guide


class Run:
    """What the guide sees of a provider: the choices drawn so far."""

    def __init__(self, record):
        self.record = record
        self.replayed = 0


U256 = {"min_value": 0, "max_value": WORD - 1, "weights": None, "shrink_towards": 0}
I128 = {"min_value": -(2**127), "max_value": 2**127 - 1, "weights": None, "shrink_towards": 0}
RULE = {"min_value": 0, "max_value": 1, "weights": None, "shrink_towards": 0}


def guided_run(guide, steps, equalities):
    """One run of steps (lists of choices), the step at index k having compared equalities[k]."""
    record = []
    guide.begin(Run(record), [])
    for k, step in enumerate(steps):
        guide.step_started()
        record.extend(step)
        if equalities.get(k):
            guide.compared(equalities[k])
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
