"""The native loop's mutations of kept runs (search/native/mutations.py): what each keeps of the runs it starts from."""

from __future__ import annotations

import random

from evmstate.search.guidance import Entry
from evmstate.search.native.choices import integer_constraints
from evmstate.search.native.mutations import Mutator, interleave, repeat, splice

A = Entry([("integer", {}, i) for i in range(10)], 1, [(1, 4), (6, 8)])  # head 0; new code at steps 1-3 and 6-7
B = Entry([("integer", {}, 100 + i) for i in range(6)], 2, [(2, 4)])


def values(choices):
    return [v for _, _, v in choices]


def test_splice_keeps_one_run_up_to_a_step_that_reached_new_code_then_the_others_such_steps():
    for seed in range(10):
        spliced = values(splice(A, B, random.Random(seed)))
        assert spliced in ([0, 1, 2, 3, 102, 103], [0, 1, 2, 3, 4, 5, 6, 7, 102, 103])


def test_interleave_takes_the_steps_that_reached_new_code_of_each_in_turn():
    assert values(interleave(A, B)) == [0, 1, 2, 3, 102, 103, 6, 7]


def test_repeat_does_one_step_again_in_a_row_and_keeps_the_rest():
    a = values(A.choices)
    for seed in range(10):
        repeated = values(repeat(A, random.Random(seed)))
        shapes = [a[:end] + a[start:end] * k + a[end:] for start, end in A.spans for k in range(1, 16)]
        assert repeated in shapes


def test_a_value_moved_toward_what_the_contracts_know_stays_within_its_bounds():
    constraints = integer_constraints(0, 1000)
    plan = [("boolean", {"p": 0.5}, True), ("integer", constraints, 500)]
    mutator = Mutator(random.Random(0), lambda: [7, 10**30, -5])
    for _ in range(50):
        moved = mutator.toward_known(plan)
        assert moved is None or (moved[0] == plan[0] and moved[1][1] is constraints and moved[1][2] in (6, 7, 8))
    assert Mutator(random.Random(0)).mutate([], [A]) == []  # a fresh run stays one
