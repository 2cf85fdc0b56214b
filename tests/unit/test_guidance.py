"""How often guidance extends a kept run: most runs while the corpus grows, fewer and fewer once
it stops, and for longer once the search is climbing (search/guidance.py)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evmstate.search.guidance import CLIMBING_PATIENCE, FRESH, PATIENCE, Entry, Guide, register, unregister


def extended(guide: Guide, runs: int) -> int:
    """How many of the next runs the guide plans as extensions of a kept run (none of them keeps anything)."""
    before = guide.stats.extended
    for _ in range(runs):
        guide.plan()
    return guide.stats.extended - before


def with_one_kept_run(seed: int = 0, climbing: bool = False) -> Guide:
    guide = Guide(seed)
    guide.corpus.append(Entry([("integer", {}, 1)], 0, [(0, 1)]))
    guide.climbing = climbing
    return guide


def test_most_runs_extend_right_after_the_corpus_grew_and_fewer_once_nothing_is_kept():
    guide = with_one_kept_run()
    first = extended(guide, 10)
    assert first >= 6  # 1 - FRESH of them, as many as before the runs without progress
    extended(guide, 190)
    late = extended(guide, 200)
    # after 200-400 runs without progress the share is (1 - FRESH) * PATIENCE / (PATIENCE + idle): about 5%
    assert late <= 200 * (1 - FRESH) * PATIENCE / (PATIENCE + 200) + 10, late
    assert late < first * 200 / 10 / 3


def test_a_climbing_search_is_patient_for_longer():
    calm, climbing = with_one_kept_run(), with_one_kept_run(climbing=True)
    extended(calm, 100), extended(climbing, 100)
    assert CLIMBING_PATIENCE > PATIENCE
    assert extended(climbing, 300) > 2 * extended(calm, 300)


def test_a_new_stage_makes_the_search_climb():
    """Real Hypothesis runs through the guided backend: progress by new code alone in runs drawn
    afresh does not make the search climb; a kept run that stored a new stage does."""
    guide = Guide(3)
    name = register(guide)
    stages: list[int] = []

    def run(stage_at: int | None, examples: int) -> None:
        @settings(max_examples=examples, database=None, backend=name, suppress_health_check=list(HealthCheck), derandomize=True)
        @given(st.data())
        def test(data):
            guide.step_started()
            value = data.draw(st.integers(0, 1000))
            if not guide.corpus:
                guide.reached_new_code()  # the first run reaches every branch there is
            elif stage_at is not None and value % 7 == stage_at and value not in stages:
                stages.append(value)
                guide.reached_new_code(stage=True)
            guide.run_finished()

        test()

    try:
        run(None, 30)
        assert len(guide.corpus) == 1 and not guide.climbing
        run(3, 30)
        assert stages and guide.climbing
    finally:
        unregister(name)


def test_a_kept_run_that_reached_a_rare_state_is_extended_more_often():
    """Besides the newest (half the time), the kept run extended is drawn by the rarity of the rarest state it reached:
    one reached by a single run is extended far more often than runs whose states every run reaches."""
    runs = {"common": 100, "rare": 1}
    guide = Guide(0, rarity=lambda states: max((1 / runs[s] for s in states), default=0.0))
    rare = Entry([("integer", {}, 2)], 0, [(0, 1)], frozenset({"rare", "common"}))
    common = [Entry([("integer", {}, 3 + i)], 0, [(0, 1)], frozenset({"common"})) for i in range(8)]
    guide.corpus.extend([rare, *common])
    picks = [guide._pick() for _ in range(1000)]
    assert picks.count(rare) > 850, picks.count(rare)  # weights 1 against 8 of 0.01: 93%
    # a run saved by an earlier search (its states unknown) is extended as one whose state is rare
    saved = Entry([("integer", {}, 99)], 0, [(0, 1)])
    guide.corpus.append(saved)
    picks = [guide._pick() for _ in range(1000)]
    assert 380 < picks.count(saved) < 560 and 380 < picks.count(rare) < 560
    # no rarity: uniformly
    uniform = Guide(0)
    uniform.corpus.extend([rare, *common])
    assert 50 < [uniform._pick() for _ in range(900)].count(rare) < 160


class _Run:
    """What the guide reads of a run's provider: the choices made so far."""

    def __init__(self) -> None:
        self.record: list = []


def test_a_value_that_makes_a_number_zero_is_tried_once_per_rule_and_an_equalitys_once_per_machine():
    """An argument 0 compared with 1 by one rule queues a step with 1 (and its neighbours); a redeem of 2,377 shares that
    pays nothing below 1 share, met later by another rule, is still repeated with 1; that rule meeting 1 again queues
    nothing, nor does a third rule's equality with 1."""
    guide = Guide(0)

    def run(rule: str, argument: int, other: int, zero: bool = False) -> list[int]:
        """One run of one step of rule whose argument met other: the values of the runs it queued."""
        before = len(guide.pending)
        guide.begin(_Run(), [])
        guide.step_started()
        guide.current.record.append(("integer", {"min_value": 0, "max_value": 10**21}, argument))
        if zero:
            guide.zero_tested([(argument, other)], rule)
        else:
            guide.compared([(argument, other)])
        guide.run_finished()
        return [step[-1][2] for step, _ in guide.pending[before:]]

    assert run("rule_set_fees", 0, 1) == [1, 2, 0]
    assert run("rule_redeem", 2377, 1, zero=True) == [1]
    assert run("rule_redeem", 6058, 1, zero=True) == []
    assert run("rule_withdraw", 6058, 1, zero=True) == [1]
    assert run("rule_transfer", 6058, 1) == []
