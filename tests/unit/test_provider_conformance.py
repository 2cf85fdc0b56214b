"""Hypothesis's own conformance test, run on the provider evmstate registers (search/guidance.py)."""

from __future__ import annotations

from typing import Any

from hypothesis.internal.conjecture.provider_conformance import run_conformance_test

from evmstate.search.guidance import AVAILABLE_PROVIDERS, Guide, register, unregister


def test_the_guided_provider_conforms_while_it_keeps_and_replays_runs():
    guide = Guide(0)
    name = register(guide)
    try:
        registered = AVAILABLE_PROVIDERS[name]
    finally:
        unregister(name)
    replayed: list[int] = []

    class Guided(registered):  # type: ignore[misc, valid-type]
        """Driven as a search session drives it, as if every step reached new code: each run is kept and later runs replay it."""

        def __init__(self, conjecturedata: Any, /) -> None:
            guide.run_finished()  # the run before ends when the next begins
            super().__init__(conjecturedata)
            guide.step_started()

        def _draw(self, kind: str, constraints: dict[str, Any]) -> Any:
            value = super()._draw(kind, constraints)
            replayed.append(self.replayed)
            guide.reached_new_code()
            guide.step_started()
            return value

    run_conformance_test(Guided)
    # both ways of drawing were checked: afresh, and replaying a kept run
    assert guide.stats.kept > 10 and guide.stats.extended > 10
    assert sum(1 for r in replayed if r) > 10 and replayed.count(0) > 10
