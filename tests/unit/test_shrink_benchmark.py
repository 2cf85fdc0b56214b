"""benchmarks/shrink.py's verdicts on a program: the minimal programs of a case, matched with and without their numbers."""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def shrink_bench():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import shrink

        yield shrink
    finally:
        sys.path.remove(str(BENCHMARKS))


def vault_a(shrink_bench):
    return next(c for c in shrink_bench.CASES if c.label.startswith("vault a "))


def test_a_program_equal_to_a_later_minimal_program_has_the_least_numbers(shrink_bench):
    case = vault_a(shrink_bench)
    programs = [shrink_bench.parse(m.splitlines()) for m in case.minimal]
    shapes = [p for p in programs if shrink_bench.same(p, programs[0], numbers=False)]
    # a later minimal program of the first one's shape with other numbers: exact, and so its numbers are the least
    later = next(p for p in shapes[1:] if p != programs[0])
    assert shrink_bench.checks(case, later) == (True, True)
    assert shrink_bench.checks(case, programs[0]) == (True, True)


def test_a_program_of_a_minimal_shape_with_larger_numbers_is_neither(shrink_bench):
    case = vault_a(shrink_bench)
    program = shrink_bench.parse(case.minimal[0].splitlines())
    step = program[0]
    larger = [(step[0], step[1], step[2], tuple((k, v + 1 if isinstance(v, int) else v) for k, v in step[3])), *program[1:]]
    assert shrink_bench.checks(case, larger) == (False, False)
