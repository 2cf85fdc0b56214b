"""The wait before a step: log scale up to the maximum, or a jump to a time the contract knows (or one past it, or one
before it)."""

from evmstate.engine import delays


class Script:
    """A draw that answers each choice from a list, and records the bounds asked for."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, strategy) -> int:
        self.asked.append(repr(strategy))
        return self.answers.pop(0)


def between(low: int, high: int) -> str:
    return f"integers(min_value={low}, max_value={high})"


YEAR = 365 * 86400


def test_an_octave_then_a_value_in_it():
    draw = Script(22, 3_000_000)  # the 22nd octave: 2**21 .. 2**22 - 1
    assert delays.draw_wait(draw, 4 * YEAR, now=100) == 3_000_000
    assert draw.asked == [between(0, (4 * YEAR).bit_length()), between(2**21, 2**22 - 1)]


def test_octave_zero_is_no_wait_and_the_last_octave_stops_at_the_maximum():
    assert delays.draw_wait(Script(0), 4 * YEAR, now=0) == 0
    draw = Script(27, 4 * YEAR)
    assert delays.draw_wait(draw, 4 * YEAR, now=0) == 4 * YEAR
    assert draw.asked[1] == between(2**26, 4 * YEAR)


def test_a_jump_lands_on_a_known_time_ahead_one_past_it_or_one_before_it():
    now = 1_700_000_000
    known = [now - 5, now + 30 * 86400, now + 10, now + 10 * YEAR]  # one past, one beyond the maximum
    draw = Script(1, 1, 1)  # jump; the second time ahead (sorted: 10, then 30 days); one past it
    assert delays.draw_wait(draw, 4 * YEAR, now, known) == 30 * 86400 + 1
    assert draw.asked == [between(0, 1), between(0, 1), between(0, 2)]  # two times ahead within the maximum
    assert delays.draw_wait(Script(1, 0, 0), 4 * YEAR, now, known) == 10  # the time itself
    assert delays.draw_wait(Script(1, 0, 2), 4 * YEAR, now, known) == 9  # one before it
    assert delays.draw_wait(Script(1, 1, 2), 4 * YEAR, now, known) == 30 * 86400 - 1


def test_one_before_a_time_a_second_ahead_is_the_time_itself_and_one_past_the_maximum_is_the_maximum():
    assert delays.draw_wait(Script(1, 0, 2), 4 * YEAR, 100, [101]) == 1  # one before is now: the wait is still one
    assert delays.draw_wait(Script(1, 0, 1), 60, 100, [160]) == 60
    assert delays.draw_wait(Script(1, 0, 2), 60, 100, [160]) == 59


def test_every_jump_choice_shrinks_toward_the_nearest_known_time_itself():
    # Hypothesis shrinks each choice toward 0: no jump, the nearest time ahead, and the time itself (SIDES[0])
    assert delays.SIDES[0] == 0 and sorted(delays.SIDES) == [-1, 0, 1]
    assert delays.draw_wait(Script(1, 0, 0), 4 * YEAR, 0, [50, 10]) == 10


def test_without_a_known_time_ahead_no_jump_is_drawn():
    draw = Script(5, 20)
    assert delays.draw_wait(draw, 4 * YEAR, 1000, [999, 10]) == 20
    assert len(draw.asked) == 2


def test_a_step_waits_one_time_in_four_and_then_draws_seconds_and_blocks():
    assert delays.draw_delay(Script(0), YEAR, 1000) == delays.NO_DELAY
    draw = Script(delays.WAITS - 1, 3, 5, 2, 3)
    assert delays.draw_delay(draw, YEAR, 1000, (0, 0), ((), ())) == (5, 3)
